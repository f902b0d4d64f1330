"""Export and import: a store's contents out to the documented Parquet layout
(`vault_ray.storage.archive`, docs/jobs.md) and back in, through the partition owners.

- `export_store`: each owner dumps its partitions' tables under the partition lock;
  this process writes the files, the policy and registry, and the manifest last.
- `import_archive` first verifies the whole export (manifest, row counts, SHA-256),
  so a truncated or tampered one changes nothing. Into an **empty** store it
  restores every partition verbatim (ids, provenance, statuses, events, disputes,
  receipts, policy, registry) through the owners' `restore`, which commits the
  tables in one claim-log transaction and rebuilds the index. A restore records
  itself in the store first (`transfer_restore.py`), so an interrupted one is resumed
  by the same import (and any other import is refused until it is). Into a store that
  **holds claims** it merges by claim id: claims the store has are skipped, the
  others are written through the normal write path (`Vault.write_batch`, with
  their ids, provenance and stored vectors, entity resolution off), in the order
  the source recorded them, so conflicts are detected by the target's policy.
  Importing the same export twice changes nothing the second time. A claim the
  source retracted is retracted here too, at its place in the source's order, with
  its `decided_by` and note (`transfer_retract.py`): never live in the target. A claim
  the source erased is not written, and the store's own copy of it, if it holds one, is
  erased as `Vault.erase` does (`transfer_erase.py`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vault_ray.storage.archive import Archive, ArchiveWriter
from vault_ray.storage.erase import erased_rows
from vault_ray.storage.layout import partition_of

from .backends.base import BulkBackend
from .backends.unfinished import refuse_unfinished, restoring_of
from .errors import ExportError, StoreMismatch, VaultError
from .models import AddResult, Fact, WriteRequest, from_epoch, utcnow
from .policy import Policy
from .registry import EntityRegistry
from .transfer_erase import carry_erasures, source_erasures
from .transfer_restore import restore, unfinished_restore
from .transfer_retract import replay, source_retractions

MERGE_BATCH = 500
"""Claims per `write_batch` call when merging."""


@dataclass(frozen=True)
class ExportResult:
    """What `Vault.export` wrote (docs/jobs.md)."""

    directory: str
    manifest: str
    partitions: int
    """Partitions with data (each gets one file per table)."""
    rows: dict[str, int]
    paths: list[str]
    seconds: float


@dataclass(frozen=True)
class ImportResult:
    """What `Vault.import_from` did (docs/jobs.md): restored into an empty store, or merged by claim id."""

    source: str
    mode: str
    """"restore" (the store was empty) or "merge"."""
    claims: int
    """Claims restored, or written through the write path when merging."""
    skipped: int = 0
    """Claims the store already held (merge)."""
    resumed: int = 0
    """Partitions an interrupted restore of the same export had restored (each checked to hold
    exactly the export's rows for it): kept, the others restored (restore)."""
    rows: dict[str, int] = field(default_factory=dict)
    """Rows restored per table (restore)."""
    outcomes: dict[str, int] = field(default_factory=dict)
    """Decisions of the merged claims by outcome when each was written (active, disputed,
    superseded, noop): a claim written active may be superseded by one written after it."""
    errors: dict[str, str] = field(default_factory=dict)
    """Claim id -> why the write path refused it (merge; the others were written)."""
    seconds: float = 0.0
    statuses: dict[str, int] = field(default_factory=dict)
    """The merged claims by status once the import finished (active, disputed, superseded,
    retracted; noop: a claim that repeated one keeps none of its own)."""
    retracted: int = 0
    """Claims retracted because the source had retracted them (merge; a restore keeps them verbatim)."""
    erased: int = 0
    """Claims the source had erased, left out of a merge: an erasure left no text, value or vector
    to write (a restore keeps their skeletons verbatim)."""
    erased_here: int = 0
    """Of those, the claims this store held (an earlier copy) and had not erased: erased here too,
    as `Vault.erase` does (transfer_erase.py; merge)."""


class Transfers:
    """`Vault.export` and `Vault.import_from` (mixed into `Vault`)."""

    _backend: Any

    def write_batch(self, requests: Sequence[WriteRequest], *, rate_limit: bool = True) -> list[AddResult | VaultError]:
        ...  # Vault's

    def export(self, directory: str | Path) -> ExportResult:
        """Write the store to `directory` (new or empty) in the documented Parquet layout:
        every partition's claims (with embeddings), disputes, events and receipts, the
        policy and registry, and a manifest with row counts and checksums (docs/jobs.md). A store
        whose restore is unfinished is refused (RestoreUnfinished): its export would be partial."""
        refuse_unfinished(self._backend, "this export")  # a half-restored store's export would be partial
        policy, registry = self._backend.control()
        return export_store(as_bulk(self._backend), directory, policy, registry)

    def restoring(self) -> dict[str, Any] | None:
        """The store's record of an unfinished restore (`export`, `started_at`, `manifest_sha256`, ...), None if
        there is none. While it is there reads are partial and every change is refused (RestoreUnfinished) until
        the same `import_from` finishes the restore (docs/jobs.md). In cluster mode asked of the control actor."""
        marker = restoring_of(self._backend)
        return None if marker is None else dict(marker)

    def import_from(self, directory: str | Path) -> ImportResult:
        """Load an export. Into an empty store: restored verbatim (ids, statuses, events,
        disputes, receipts, policy, registry); an interrupted restore is resumed by the
        same import (`ImportResult.resumed`), and any other import into that store is
        refused (StoreError) until it is. Into a store with claims: merged by claim
        id, new claims going through the write path so conflicts are detected. The
        export is verified first: a truncated or tampered one raises ExportError and
        changes nothing. A claim the source retracted stays retracted (a merge replays
        the retraction); a claim it erased, if this store holds it, is erased here too (a
        merge). Importing the same export again changes nothing."""
        return import_archive(as_bulk(self._backend), directory, lambda reqs: self.write_batch(reqs, rate_limit=False))


def export_store(backend: BulkBackend, directory: str | Path, policy: Policy, registry: EntityRegistry) -> ExportResult:
    started = time.perf_counter()
    writer = ArchiveWriter(directory)
    written = 0
    try:
        for p in range(backend.partitions):
            tables = backend.dump_partition(p)
            if tables and any(t.num_rows for t in tables.values()):
                writer.add_partition(p, tables)
                written += 1
        writer.add_json("policy.json", policy.to_dict())
        writer.add_json("registry.json", registry.to_list())
        info = backend.info()
        manifest = writer.finish({"partitions": info.partitions, "dim": info.dim, "embedder": info.embedder})
    except OSError as e:  # a full disk, a folder made read-only meanwhile: what was written goes
        writer.discard()
        raise ExportError(f"writing the export to {str(directory)!r} failed: {e.strerror or e}; nothing was "
                          "exported", path=str(directory)) from e
    except BaseException:  # interrupted (Ctrl-C), an owner's error: the same export can run again
        writer.discard()
        raise
    root = Path(directory)
    return ExportResult(str(root), str(root / "manifest.json"), written, manifest["rows"],
                        [str(root / f.path) for f in writer.files] + [str(root / "manifest.json")],
                        time.perf_counter() - started)


def import_archive(backend: BulkBackend, directory: str | Path,
                   write: Callable[[list[WriteRequest]], list[AddResult | VaultError]]) -> ImportResult:
    """Restore into an empty store, else merge (see the module docstring). `write` is
    the vault's write path for a batch of requests (rate limits off)."""
    started = time.perf_counter()
    archive = Archive(directory)
    marker = unfinished_restore(backend, archive)  # an unfinished restore of another export refuses this import
    info = backend.info()
    exported = archive.store
    if (exported["embedder"], exported["dim"]) != (info.embedder, info.dim):
        raise StoreMismatch(f"the export holds {exported['dim']}-dimensional {exported['embedder']!r} vectors; this "
                            f"store uses {info.dim}-dimensional {info.embedder!r} ones. Import into a store with the "
                            "export's embedder, then `vault-ray reindex` it", path=info.store)
    if marker is not None or not any(n for counts in backend.row_counts().values() for n in counts.values()):
        result = restore(backend, archive, marker)  # transfer_restore.py: resumes an interrupted one
    else:
        result = _merge(backend, archive, write)
    return ImportResult(str(directory), **result, seconds=time.perf_counter() - started)


def _merge(backend: BulkBackend, archive: Archive,
           write: Callable[[list[WriteRequest]], list[AddResult | VaultError]]) -> dict[str, Any]:
    claims = _claims_in_recording_order(archive)
    erased, erasures = 0, []
    if claims.num_rows:
        gone = erased_rows(claims)
        erased = pc.sum(gone).as_py() or 0
        erasures = source_erasures(claims.filter(gone))  # erased here too where this store holds them
        claims = claims.filter(pc.invert(gone))
    written = skipped = 0
    outcomes: Counter[str] = Counter()
    errors: dict[str, str] = {}
    kept: dict[int, set[str]] = {}  # partition -> ids of the claims written (not noops)
    pending = source_retractions(archive)  # each replayed between the claims recorded before and after it

    def retract(entity: str, ids: list[str], by: str, note: str) -> Any:
        return backend.retract(entity, ids, decided_by=by, note=note, now=utcnow())

    retracted, start = 0, 0
    while start < claims.num_rows:
        rows = claims.slice(start, MERGE_BATCH).to_pylist()
        if pending:
            cut = next((i for i, r in enumerate(rows) if r["recorded_at"] > pending[0].ts), len(rows))
            if cut == 0:
                retracted += replay(pending, rows[0]["recorded_at"], retract)
                continue
            rows = rows[:cut]
        start += len(rows)
        by_partition: dict[int, list[str]] = {}
        for r in rows:
            by_partition.setdefault(partition_of(r["entity"], backend.partitions), []).append(r["id"])
        present = backend.present_claims(by_partition)
        todo = [r for r in rows if r["id"] not in present]
        skipped += len(rows) - len(todo)
        for r, result in zip(todo, write([_request(r) for r in todo]), strict=True):
            if isinstance(result, VaultError):
                errors[r["id"]] = str(result)
                continue
            written += 1
            outcomes.update(str(d.outcome) for d in result.decisions)
            for d in result.decisions:
                if str(d.outcome) != "noop":
                    kept.setdefault(partition_of(d.entity, backend.partitions), set()).add(d.claim_id)
    retracted += replay(pending, None, retract)
    erased_here = carry_erasures(backend, erasures) if erasures else 0  # transfer_erase.py
    return {"mode": "merge", "claims": written, "skipped": skipped, "outcomes": dict(outcomes), "errors": errors,
            "statuses": _final_statuses(backend, kept, noops=outcomes["noop"]), "retracted": retracted,
            "erased": erased, "erased_here": erased_here}


def _final_statuses(backend: BulkBackend, kept: dict[int, set[str]], *, noops: int) -> dict[str, int]:
    """The written claims by status now that every claim of the import is in."""
    found: Counter[str] = Counter({"noop": noops} if noops else {})
    for p, ids in kept.items():
        table = backend.claim_columns(p, ["id", "status"])
        if table is not None:
            found.update(s for i, s in zip(table.column("id").to_pylist(), table.column("status").to_pylist(),
                                           strict=True) if i in ids)
    return dict(found)


def _claims_in_recording_order(archive: Archive) -> pa.Table:
    parts = []
    for p in archive.partitions:
        table = archive.tables(p)["claims"]
        parts.append(table.append_column("partition", pa.array([p] * table.num_rows, pa.int64())))
    if not parts:
        return pa.table({"id": pa.array([], pa.string())})
    table = pa.concat_tables(parts)
    order = pc.sort_indices(table, [("recorded_at", "ascending"), ("partition", "ascending"), ("rid", "ascending")])
    return table.take(order)


def _request(row: dict[str, Any]) -> WriteRequest:
    fact = Fact(entity=row["entity"], text=row["text"], value=row["value"], kind=row["kind"],
                observed_at=from_epoch(row["observed_at"]), claim_id=row["id"], confidence=row["confidence"],
                meta=json.loads(row["meta"]) if row["meta"] else None, source=row.get("source"))
    blob = row["embedding"]
    # a vector of the wrong size is refused by the write path (InvalidEmbedding), per claim
    vectors = None if blob is None else np.frombuffer(blob, dtype=np.float32).reshape(1, -1)
    return WriteRequest(row["agent"], facts=[fact], session=row["session"], vectors=vectors, resolve=False)


def as_bulk(backend: Any) -> BulkBackend:
    """The backend, checked to answer the bulk jobs' calls."""
    if not all(hasattr(backend, name) for name in ("dump_partition", "restore_partition", "present_claims", "restoring")):
        raise VaultError(f"{type(backend).__name__} does not support export and import")
    return backend  # type: ignore[no-any-return]

