"""The files of one partition's claim log beside its DuckDB file (pNNNN.duckdb):
its journal (pNNNN.journal, pNNNN.journal.1) and its snapshot (pNNNN.snapshot).

The DuckDB file is canonical. A journal or snapshot without it means the log was
lost (deleted, moved), not that the partition is new: opening refuses it
(`refuse_orphaned`) instead of starting an empty log that the next close would save
over the last copy. A snapshot that is missing or damaged is derived data: the
partition is rebuilt from its log, and a warning names the file (`fresh_snapshot`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from vault_ray.errors import StorageFailure, StoreError
from vault_ray.models import Dispute

from . import snapshot
from .journal import Journal
from .rows import CLAIM_SCHEMA, DISPUTE_SCHEMA, dispute_row, rows_table

log = logging.getLogger("vault_ray")


@dataclass
class PartitionImage:
    """What a partition holds in memory, as its log hands it over when it opens."""

    live: pa.Table
    """Active and disputed claims (no embeddings), in rid order."""
    disputes: list[Dispute]
    """Open disputes."""
    disputed: tuple[np.ndarray, np.ndarray]
    """(rids, vectors) of the disputed claims (a later win needs no read)."""
    gone: list[str]
    """Entities that have claims, none of them live."""
    vectors: tuple[np.ndarray, np.ndarray] | None = None
    """(rids, vectors) of the active claims, when asked for (from the snapshot, else DuckDB)."""

    @classmethod
    def empty(cls, dim: int, *, with_vectors: bool) -> PartitionImage:
        """The image of a log that holds nothing (as DuckDB would read it: the same columns and types)."""
        def nothing() -> tuple[np.ndarray, np.ndarray]:
            return np.zeros(0, np.int64), np.zeros((0, dim), np.float32)

        live = CLAIM_SCHEMA.remove(CLAIM_SCHEMA.get_field_index("embedding")).empty_table()
        return cls(live, [], nothing(), [], nothing() if with_vectors else None)


def companions(path: Path) -> list[Path]:
    """The journal and snapshot files of the log at `path` that exist."""
    found = [path.with_suffix(".journal"), path.with_name(path.with_suffix(".journal").name + ".1"),
             path.with_suffix(".snapshot")]
    return [p for p in found if p.exists()]


def refuse_orphaned(path: Path) -> None:
    """StoreError if the DuckDB file at `path` is missing while its journal or snapshot is
    there: the partition's canonical log was lost, and nothing is opened or created."""
    left = companions(path)
    if left and not path.exists():
        raise StoreError(f"the claim log {path} is missing, but {', '.join(p.name for p in left)} of it "
                         f"{'is' if len(left) == 1 else 'are'} still there: restore {path.name} (from a backup, or "
                         "`vault-ray import` of an export) before opening the store; nothing was changed")


HEADER_BYTES = 3 * 4096
"""DuckDB's file header and its two database headers (each checkpoint writes one, with a new
iteration number and checksum): what a stamp hashes."""


def stamp(path: str) -> str | None:
    """The DuckDB file as a log left it (its size, modification time and header blocks); None
    when DuckDB has a WAL of its own to replay. A copy that keeps the file's times (`cp -a`,
    `rsync -a`, `shutil.copytree`) has the same stamp, so a copied store opens from its snapshot;
    a file changed, replaced or copied without its times does not, and is read again."""
    if os.path.exists(path + ".wal") or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        head = hashlib.blake2b(f.read(HEADER_BYTES), digest_size=16).hexdigest()
    return f"{st.st_size}:{st.st_mtime_ns}:{head}"


def fresh_snapshot(path: Path, journal: Journal, *, db: str, dim: int, fmt: int,
                   created: bool) -> snapshot.Snapshot | None:
    """The snapshot at `path` if it may be loaded instead of the DuckDB file `db`: whole, of
    format `fmt` and `dim`, its stamp the file's, and no journal record newer. A missing
    (for a log not `created` now) or damaged one is said in a warning."""
    if journal.has_records():  # a crash left records to replay: the snapshot is older than the log
        return None
    rebuilt = "the partition is rebuilt from its claim log"
    try:
        found = snapshot.read(path)
    except snapshot.Damaged as exc:
        if exc.old:
            log.info("vault-ray: the snapshot %s is of an earlier format: %s (once)", path, rebuilt)
        else:
            log.warning("vault-ray: the snapshot %s is damaged (%s): ignored, %s %s", path, exc.why, rebuilt, db)
        return None
    if found is None:
        if not created:
            log.warning("vault-ray: no snapshot at %s (the store was not closed after this log last changed, as "
                        "after a crash, or the file was removed): %s %s", path, rebuilt, db)
        return None
    head = found.header
    now = stamp(db)
    if head.get("format") != fmt or head.get("dim") != dim or now is None or head.get("stamp") != now:
        found.close()
        log.info("vault-ray: the snapshot %s is older than its claim log: %s", path, rebuilt)
        return None
    return found


def remove_created(path: str) -> None:
    """Remove a DuckDB file (and its WAL) this process has just created, when creating the
    log failed (a full disk): no empty log is left for the next open to trip over."""
    for leftover in (path, path + ".wal"):
        with contextlib.suppress(OSError):
            os.unlink(leftover)


@contextmanager
def named(path: str) -> Iterator[None]:
    """A DuckDB error (a damaged file: cut short, bytes changed) as StorageFailure naming the log."""
    try:
        yield
    except duckdb.Error as exc:
        raise StorageFailure(f"cannot read the claim log {path}: {exc}") from exc


def image_parts(tables: Any, active: tuple[np.ndarray, np.ndarray], keys: np.ndarray, counters: dict[str, Any]
                ) -> tuple[dict[str, pa.Table], dict[str, np.ndarray], dict[str, Any]]:
    """A partition's image for its snapshot, from its log's `tables` (ClaimTables) and the index's `active`
    (rids, vectors): its tables, its arrays (with the receipt `keys`), its header (`counters` and more)."""
    rids, vectors = tables.vectors("disputed")
    open_disputes = rows_table([dispute_row(d) for d in tables.disputes(status="open")], DISPUTE_SCHEMA)
    arrays = {"disputed_rids": rids, "disputed_vectors": vectors, "id_keys": keys.astype(np.uint64),
              "active_rids": np.asarray(active[0], np.int64), "active_vectors": np.asarray(active[1], np.float32)}
    header = {**counters, "gone": tables.gone_entities(), "staged": tables.has_staged()}
    return {"live": tables.live(), "disputes": open_disputes}, arrays, header
