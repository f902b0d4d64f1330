"""The export layout (docs/jobs.md): a store's claim logs as Parquet datasets
partitioned by partition number, its policy and registry as JSON, and a manifest.

    EXPORT/manifest.json                          written last: an export without it is incomplete
    EXPORT/policy.json  EXPORT/registry.json
    EXPORT/claims/partition=3/part-0.parquet      one file per table and partition with data
    EXPORT/disputes/partition=3/part-0.parquet
    EXPORT/events/partition=3/part-0.parquet
    EXPORT/receipts/partition=3/part-0.parquet

The manifest records the format and its version, the store (partition count,
embedder name and dimension), every file with its table, partition, row count,
size and SHA-256, and the row count of each table. `Archive(directory)` checks all
of it before it returns, so a truncated or tampered export is refused before
anything reads it. `pyarrow.dataset` and `ray.data.read_parquet(..., partitioning="hive")`
read each table directory as one dataset with a `partition` column.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from vault_ray.errors import ExportError, InvalidInput

from .bulk_log import LATER_COLUMNS, TABLE_SCHEMAS, _conform
from .layout import write_json

FORMAT = "vault-ray-export"
VERSION = 1
MANIFEST = "manifest.json"
JSON_FILES = ("policy.json", "registry.json")


@dataclass(frozen=True)
class ArchiveFile:
    path: str
    """Relative to the export directory, with forward slashes."""
    table: str | None
    """The claim-log table a Parquet file holds (None for the JSON files)."""
    partition: int | None
    rows: int | None
    bytes: int
    sha256: str


def table_path(table: str, partition: int) -> str:
    return f"{table}/partition={partition}/part-0.parquet"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _directory(directory: object) -> Path:
    if not isinstance(directory, str | os.PathLike) or not str(directory).strip():
        raise InvalidInput(f"an export is a directory path, got {directory!r}")
    return Path(directory)


class ArchiveWriter:
    """Writes an export into a new (or empty) directory; `finish` writes the manifest."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = _directory(directory)
        if self.root.exists() and not self.root.is_dir():
            raise ExportError(f"{str(self.root)!r} is a file; export into a new (or empty) directory", path=str(self.root))
        if self.root.exists() and any(self.root.iterdir()):
            raise ExportError(f"{str(self.root)!r} is not an empty directory; export into a new one", path=str(self.root))
        self._made = not self.root.exists()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ExportError(f"cannot create {str(self.root)!r}: {e.strerror or e}", path=str(self.root)) from e
        self.files: list[ArchiveFile] = []

    def discard(self) -> None:
        """Remove what an unfinished export wrote (no manifest yet), and the directory if this
        writer made it: an interrupted or failed export leaves the directory as it found it,
        so the same export can run again. A finished export (its manifest written) is kept."""
        if (self.root / MANIFEST).exists():
            return
        for name in TABLE_SCHEMAS:
            shutil.rmtree(self.root / name, ignore_errors=True)
        for name in (*JSON_FILES, MANIFEST + ".tmp"):
            with contextlib.suppress(OSError):
                (self.root / name).unlink(missing_ok=True)
        if self._made:
            with contextlib.suppress(OSError):
                self.root.rmdir()

    def _entry(self, rel: str, table: str | None, partition: int | None, rows: int | None) -> ArchiveFile:
        path = self.root / rel
        entry = ArchiveFile(rel, table, partition, rows, path.stat().st_size, _digest(path))
        self.files.append(entry)
        return entry

    def add_partition(self, partition: int, tables: dict[str, pa.Table]) -> list[ArchiveFile]:
        """One partition's four tables (a missing one is written empty)."""
        out = []
        for name, schema in TABLE_SCHEMAS.items():
            table = _conform(tables.get(name), schema, name)
            rel = table_path(name, partition)
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, self.root / rel)
            out.append(self._entry(rel, name, partition, table.num_rows))
        return out

    def add_json(self, name: str, data: Any) -> ArchiveFile:
        (self.root / name).write_text(json.dumps(data, indent=2, sort_keys=True, default=str))
        return self._entry(name, None, None, None)

    def finish(self, store: dict[str, Any]) -> dict[str, Any]:
        """Write the manifest (atomically, last) and return it."""
        rows = {name: sum(f.rows or 0 for f in self.files if f.table == name) for name in TABLE_SCHEMAS}
        manifest = {
            "format": FORMAT, "version": VERSION, "created_at": datetime.now(UTC).isoformat(),
            "store": {k: store[k] for k in ("partitions", "dim", "embedder")},
            "rows": rows, "files": [asdict(f) for f in self.files],
        }
        write_json(self.root / MANIFEST, manifest)
        return manifest


class Archive:
    """A verified export: opening it checks the manifest against every file."""

    def __init__(self, directory: str | os.PathLike[str], *, verify: bool = True) -> None:
        """`verify=False` reads the manifest only (what an export says about its store),
        for a caller that verifies when it imports."""
        self.root = _directory(directory)
        self.manifest = self._read_manifest()
        if not verify:
            self.store = self.manifest["store"]
            self.files, self.partitions = [], []
            return
        self.store: dict[str, Any] = self.manifest["store"]
        self.files = [ArchiveFile(**f) for f in self.manifest["files"]]
        self._verify()
        self.partitions = sorted({f.partition for f in self.files if f.partition is not None})

    def _refuse(self, why: str) -> ExportError:
        return ExportError(f"{str(self.root)!r} is not a valid vault-ray export: {why}; nothing was imported",
                           path=str(self.root))

    def _read_manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        if not self.root.exists():  # a typo, most likely: not "an unfinished or foreign export"
            raise self._refuse("there is no such directory")
        if not self.root.is_dir():  # the manifest itself, an archive of the export, any other file
            parent = f": give its directory, {str(self.root.parent)!r}" if self.root.name == MANIFEST else ""
            raise self._refuse(f"it is a file, not the directory an export writes{parent}")
        if not path.is_file():
            raise self._refuse(f"no {MANIFEST} (an unfinished or foreign export)")
        raw = path.read_bytes()
        self.digest = hashlib.sha256(raw).hexdigest()
        """The SHA-256 of the manifest, which holds every file's: the export's identity."""
        try:
            manifest = json.loads(raw.decode())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._refuse(f"{MANIFEST} is not JSON ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise self._refuse(f"{MANIFEST} does not name the format {FORMAT!r}")
        if manifest.get("version") != VERSION:
            raise self._refuse(f"format version {manifest.get('version')!r}; this vault-ray reads version {VERSION}")
        store = manifest.get("store")
        if not isinstance(store, dict) or not all(isinstance(store.get(k), int) for k in ("partitions", "dim")) \
                or not isinstance(store.get("embedder"), str):
            raise self._refuse("the manifest's store section needs partitions, dim and embedder")
        if not isinstance(manifest.get("files"), list) or not isinstance(manifest.get("rows"), dict):
            raise self._refuse("the manifest lists no files or row counts")
        for f in manifest["files"]:
            if not _well_formed(f):
                raise self._refuse(f"a file entry of the manifest is malformed: {f!r:.200}")
        return manifest

    def _verify(self) -> None:
        listed = {f.path for f in self.files}
        for f in self.files:
            self._verify_file(f)
        for name in TABLE_SCHEMAS:
            found = sorted(str(p.relative_to(self.root)) for p in (self.root / name).rglob("*") if p.is_file()) \
                if (self.root / name).is_dir() else []
            extra = [p for p in found if p not in listed]
            if extra:
                raise self._refuse(f"file(s) not in the manifest: {extra[:3]}")
            total = sum(f.rows or 0 for f in self.files if f.table == name)
            if total != self.manifest["rows"].get(name):
                raise self._refuse(f"{name}: the files hold {total} rows, the manifest says {self.manifest['rows'].get(name)}")

    def _verify_file(self, f: ArchiveFile) -> None:
        path = self.root / f.path
        if ".." in Path(f.path).parts or Path(f.path).is_absolute():
            raise self._refuse(f"the manifest names a path outside the export: {f.path!r}")
        if not path.is_file():
            raise self._refuse(f"{f.path} is missing")
        if path.stat().st_size != f.bytes:
            raise self._refuse(f"{f.path} has {path.stat().st_size} bytes, the manifest says {f.bytes} (truncated?)")
        if _digest(path) != f.sha256:
            raise self._refuse(f"{f.path} does not match its SHA-256 checksum (changed after the export)")
        if f.table is not None:
            if f.table not in TABLE_SCHEMAS or f.partition is None or not 0 <= f.partition < self.store["partitions"]:
                raise self._refuse(f"{f.path}: unknown table or partition out of range")
            try:
                meta = pq.read_metadata(path)
            except (pa.ArrowInvalid, OSError) as exc:
                raise self._refuse(f"{f.path} is not a Parquet file ({exc})") from None
            if meta.num_rows != f.rows:
                raise self._refuse(f"{f.path} holds {meta.num_rows} rows, the manifest says {f.rows}")
            needed = set(TABLE_SCHEMAS[f.table].names) - set(LATER_COLUMNS.get(f.table, ()))
            missing = sorted(needed - set(meta.schema.to_arrow_schema().names))
            if missing:
                raise self._refuse(f"{f.path} lacks the column(s) {missing}")

    def tables(self, partition: int) -> dict[str, pa.Table]:
        """The four tables of one partition (verified when the archive was opened)."""
        out = {}
        for f in self.files:
            if f.partition == partition and f.table is not None:
                out[f.table] = _conform(pq.read_table(self.root / f.path), TABLE_SCHEMAS[f.table], f.table)
        return out

    def table_files(self, table: str) -> dict[int, Path]:
        """partition -> the file of `table` there."""
        return {f.partition: self.root / f.path for f in self.files if f.table == table and f.partition is not None}

    def json(self, name: str) -> Any | None:
        """policy.json or registry.json (None if the export has none)."""
        if not any(f.path == name for f in self.files):
            return None
        return json.loads((self.root / name).read_text())


_FIELDS = {"path": (str,), "table": (str, type(None)), "partition": (int, type(None)), "rows": (int, type(None)),
           "bytes": (int,), "sha256": (str,)}


def _well_formed(entry: object) -> bool:
    return isinstance(entry, dict) and entry.keys() == _FIELDS.keys() and all(
        isinstance(entry[k], types) and not isinstance(entry[k], bool) for k, types in _FIELDS.items())
