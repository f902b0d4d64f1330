"""The claim log of one partition: the canonical truth.

`ClaimLog` is the protocol the engine uses; `DuckDBClaimLog` is the one kind: a write-ahead journal (journal.py)
in front of a DuckDB file (tables.py), and a snapshot of the partition's in-memory image beside them (snapshot.py).

- `commit(changes)` appends the change set to the journal and fsyncs it (one fsync, a tenth
  of a DuckDB commit): when it returns, the write survives a crash (DESIGN §7.4).
- `flush()` applies the journal's records to DuckDB in one transaction (a background thread; every read flushes first).
- Opening replays the records DuckDB does not have yet. It reads the snapshot instead of DuckDB when the snapshot is
  fresh (its stamp matches the DuckDB file the log left at its last close, and the journal is empty); the active
  claims' vectors are saved in the same file, so the index needs no DuckDB read either.
- `receipts(ids)` answers from an in-memory filter of 64-bit keys of the claim ids the log holds and reads DuckDB only
  for a key it holds (a retried write): deciding a write reads no disk. `commit` refuses a claim id stored twice by it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from vault_ray.errors import StorageFailure, StoreClosed
from vault_ray.models import Claim, Dispute, Event

from . import log_files, snapshot
from .bulk_log import BulkSide
from .changes import ChangeSet
from .claim_cache import ClaimCache
from .erase import EraseSide
from .journal import Journal
from .layout import hold_log
from .log_files import PartitionImage
from .rows import disputes_from_arrow
from .tables import TABLES, ClaimTables, Record, receipt_key

__all__ = ["TABLES", "ChangeSet", "ClaimLog", "DuckDBClaimLog", "PartitionImage"]
SNAPSHOT_FORMAT = 1


class ClaimLog(Protocol):
    """What a partition needs from its log (reads return domain values)."""

    def allocate_rid(self) -> int: ...
    def commit(self, changes: ChangeSet) -> None:
        """Durable when it returns."""
    def flush(self) -> None:
        """Apply committed changes to the tables (a background chore; reads do it themselves)."""
    def backlog(self) -> int:
        """Committed change sets the tables do not have yet; `backlog_age`: seconds since the
        oldest of them was committed (0 without one); `backlog_bytes`: about what they weigh."""
    def backlog_age(self) -> float: ...
    def backlog_bytes(self) -> int: ...
    def load(self, *, with_vectors: bool = True) -> PartitionImage: ...
    def active_vectors(self) -> tuple[np.ndarray, np.ndarray]: ...
    def receipts(self, ids: Iterable[str]) -> dict[str, str]: ...
    def claims_for_entity(self, entity: str) -> list[Claim]: ...
    def entity_log(self, entity: str) -> tuple[list[Claim], list[Event]]: ...
    def get_claims(self, ids: Iterable[str], *, with_vectors: bool = False) -> dict[str, Claim]: ...
    def stored(self, ids: Iterable[str]) -> dict[str, tuple[Claim, int]]:
        """Claims whatever their status, each with its vector and index row (a claim brought back)."""
    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]: ...
    def disputes(self, *, status: str | None = None, entity: str | None = None) -> list[Dispute]: ...
    def get_dispute(self, dispute_id: str) -> Dispute | None: ...
    def events(self, *, entity: str | None = None, claim_id: str | None = None,
               until: float | None = None) -> list[Event]: ...
    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        """Up to `limit` events whose sequence number is `seq` or later, in order, with it."""
    def event_head(self) -> int:
        """The sequence number the next event will get (how many the log holds)."""
    def entity_keys(self) -> set[str]: ...
    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, str]: ...
    def close(self, vectors: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Flush, close, and save the partition's image with the index's active (rids, vectors): a fast reopen."""
    # the bulk side (storage/bulk_log.py): export and import, staged vectors of a reindex; erasure (storage/erase.py)
    def dump(self) -> dict[str, pa.Table]: ...
    def claim_columns(self, columns: Sequence[str]) -> pa.Table: ...
    def row_counts(self) -> dict[str, int]: ...
    def restore(self, tables: dict[str, pa.Table]) -> dict[str, int]: ...
    def unstaged(self, embedder: str, dim: int) -> pa.Table: ...
    def stage_vectors(self, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int: ...
    def drop_staged(self, keep: tuple[str, int] | None = None) -> int: ...
    def adopt_staged(self, embedder: str, dim: int) -> int: ...
    def erase(self, entity: str, record: dict[str, Any], ids: list[str] | None = None, *, audit: bool = False) -> int: ...
    def drop_sources(self, sources: list[str]) -> list[str]: ...


class DuckDBClaimLog(BulkSide, EraseSide):
    def __init__(self, path: str | os.PathLike[str], *, dim: int) -> None:
        self.path, self.dim = str(path), dim
        base = Path(path)
        self.journal = Journal(base.with_suffix(".journal"))
        self._snapshot_path = base.with_suffix(".snapshot")
        self._db = threading.Lock()  # the DuckDB connection; held for a whole flush
        self._append = threading.Lock()  # the journal file and the pending records
        self._tables: ClaimTables | None = None
        self._pending: list[Record] = []
        self._flushing: list[Record] | None = None
        self._recent: set[int] = set()
        self._since = 0.0
        self._snapshot: snapshot.Snapshot | None = None
        self.cache = ClaimCache()  # stored claims read by id (claim_cache.py)
        self.closed, self._owner = False, -1
        created = not base.exists()
        log_files.refuse_orphaned(base)  # a journal or snapshot left without its DuckDB file: refused
        try:
            if created:
                self._connect()  # creates the file and its tables
            self._owner = hold_log(self.path)
            with log_files.named(self.path):
                self._open(created)
        except BaseException:
            self._abandon(created)
            raise

    def expected_vectors(self) -> int:
        """How many active vectors `load` will hand over, when its snapshot says (else 0)."""
        if self._snapshot is None:
            return 0
        kind = self._snapshot.header["sections"].get("active_vectors", ("float32;0,0",))[0]
        return int(kind.split(";")[1].split(",")[0] or 0)

    # -- opening -------------------------------------------------------------------------
    def _open(self, created: bool) -> None:
        self._new = created
        """Made by this open, nothing written yet: no journal or snapshot (refuse_orphaned), nothing to count or
        read (`load` hands over an empty image). The new file's directory entry is synced with the journal's,
        before the first write is acknowledged."""
        self._snapshot = None if created else log_files.fresh_snapshot(
            self._snapshot_path, self.journal, db=self.path, dim=self.dim, fmt=SNAPSHOT_FORMAT, created=False)
        if created:
            self._next_rid, self._next_seq, self._seq = 0, 0, 0
            self._keys = np.zeros(0, np.uint64)
            self._dirty = True
        elif self._snapshot is not None:
            head = self._snapshot.header
            self._next_rid, self._next_seq, self._seq = head["next_rid"], head["next_seq"], head["seq"]
            self._keys = self._snapshot.array("id_keys")
            self._dirty = False
        else:
            tables = self._connect()
            self._replay(tables)
            self._next_rid, self._next_seq, self._seq = tables.next_rid(), tables.next_seq(), tables.applied()
            self._keys = tables.id_keys()
            self._dirty = True
        self.stamp: str | None = self._snapshot.header["stamp"] if self._snapshot is not None else None
        """The stamp of the snapshot this log opened from (None: it read DuckDB), then of the one it saved."""

    def _abandon(self, created: bool) -> None:
        """Let go of every file (a failed open's, or at close); a log `created` now is removed."""
        if self._snapshot is not None:
            self._snapshot, snap = None, self._snapshot
            snap.close()
        if self._tables is not None:
            with contextlib.suppress(Exception):
                self._tables.close()
            self._tables = None
        if self._owner >= 0:
            self._owner, owner = -1, self._owner
            os.close(owner)
        self.journal.close()
        if created:
            log_files.remove_created(self.path)

    def _connect(self) -> ClaimTables:  # lazily: a log opened from its snapshot may never need DuckDB
        if self._tables is None:
            if self.closed:  # a call that raced close(): the file is no longer held
                raise StoreClosed(f"the claim log {self.path} is closed")
            self._tables = ClaimTables(self.path, dim=self.dim)
        return self._tables

    def _replay(self, tables: ClaimTables) -> None:
        """Apply the journal records DuckDB does not have yet, then start an empty journal."""
        applied = tables.applied()
        todo = [r for r in self.journal.records() if r[0] > applied]
        if todo:
            tables.apply(todo, tables.next_seq())
        self.journal.reset()

    def load(self, *, with_vectors: bool = True) -> PartitionImage:
        """The partition's image: from a fresh snapshot (its active vectors a view of the mapped file), else DuckDB."""
        snap, self._snapshot = self._snapshot, None
        if self._new:
            return PartitionImage.empty(self.dim, with_vectors=with_vectors)
        if snap is not None:
            try:
                vectors = (snap.array("active_rids"), snap.array("active_vectors", copy=False)) if with_vectors else None
                return PartitionImage(snap.table("live"), disputes_from_arrow(snap.table("disputes")),
                                      (snap.array("disputed_rids"), snap.array("disputed_vectors")), snap.header["gone"],
                                      vectors)
            except (ValueError, KeyError, OSError, pa.ArrowException):  # unreadable after all: DuckDB has it all
                self.stamp, self._dirty = None, True
            finally:
                snap.close()
        with self._reading() as tables:
            image = PartitionImage(tables.live(), tables.disputes(status="open"), tables.vectors("disputed"),
                                   tables.gone_entities())
            image.vectors = tables.vectors("active") if with_vectors else None
            return image

    def active_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        with self._reading() as tables:
            return tables.vectors("active")

    # -- the one write path ---------------------------------------------------------------
    def allocate_rid(self) -> int:
        rid = self._next_rid
        self._next_rid += 1
        return rid

    def commit(self, changes: ChangeSet) -> None:
        if not changes:
            return
        ids = list(dict.fromkeys([*(c.id for c in changes.new_claims), *changes.receipts]))
        keys = [receipt_key(cid) for cid in ids]  # each id's key once: the refusal's filter lookup, then the filter
        self._refuse_stored(changes, ids, keys)
        with self._append:
            if self.closed:
                raise StoreClosed(f"the claim log {self.path} is closed")
            self._new = False
            record = changes.record(self._seq + 1)
            self.journal.append(record)
            self._seq += 1
            if not self._pending and self._flushing is None:
                self._since = time.monotonic()
            self._pending.append(record)
            self._recent.update(keys)
            self._dirty = True
            self.cache.drop([*changes.status, *changes.supersedes, *(c.id for c in changes.new_claims)], then=changes.left,
                            entities={*(c.entity for c in changes.new_claims), *(e.entity for e in changes.events)})

    def _refuse_stored(self, changes: ChangeSet, ids: list[str], keys: list[int]) -> None:
        """StorageFailure if a new claim's id is given twice, or a new claim's or receipt's id is
        stored already. `ids`: the new claims' and receipts' ids, each once; `keys`: their receipt keys."""
        new = [c.id for c in changes.new_claims]
        clash = {i for i in new if new.count(i) > 1} if len(set(new)) != len(new) else set()
        maybe = set(self.may_hold(ids, keys))  # one filter lookup
        maybe_new, maybe_receipts = [i for i in new if i in maybe], [i for i in changes.receipts if i in maybe]
        if maybe_new or maybe_receipts:
            with self._reading() as tables:
                clash |= tables.stored_ids(maybe_new, maybe_receipts)
        if clash:
            raise StorageFailure(f"claim log write refused in {self.path}: claim ids already stored: {sorted(clash)}")

    def backlog(self) -> int:
        return len(self._pending) + len(self._flushing or ())

    def backlog_age(self) -> float:
        return time.monotonic() - self._since if self.backlog() else 0.0

    def backlog_bytes(self) -> int:  # the records not being applied yet: the current journal file's
        return self.journal.pending_bytes() if self._pending else 0

    def flush(self) -> None:
        self._new = False  # every change to the tables (a commit's, a restore's, an erasure's) comes after a flush
        with self._db:
            if self._flushing is None:
                with self._append:
                    if not self._pending:
                        return
                    self._flushing, self._pending = self._pending, []
                    self.journal.rotate()
            tables = self._connect()
            self._next_seq += tables.apply(self._flushing, self._next_seq)  # a failure keeps them for the next try
            self.journal.drop_rotated()
            self._flushing = None
            with self._append:
                if self._pending:
                    self._since = time.monotonic()  # roughly: the oldest left came after the flush began

    @contextmanager
    def _reading(self) -> Iterator[ClaimTables]:
        self.flush()
        with self._db, log_files.named(self.path):
            yield self._connect()

    # -- reads ---------------------------------------------------------------------------
    def receipts(self, ids: Iterable[str]) -> dict[str, str]:
        maybe = self.may_hold(list(ids))
        if not maybe:
            return {}
        with self._reading() as tables:
            return tables.receipts(maybe)

    def may_hold(self, ids: list[str], keys: list[int] | None = None) -> list[str]:
        """The ids a claim or receipt may be stored for (the rest certainly have none); `keys`: their receipt keys."""
        if not ids:
            return []
        keys = [receipt_key(i) for i in ids] if keys is None else keys
        found = np.zeros(len(ids), bool)
        if len(self._keys):
            wanted = np.asarray(keys, np.uint64)
            at = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
            found = self._keys[at] == wanted
        if not found.any() and self._recent.isdisjoint(keys):  # (a bulk write of new ids: one C loop, no list)
            return []
        return [i for i, k, f in zip(ids, keys, found.tolist(), strict=True) if f or k in self._recent]

    def claims_for_entity(self, entity: str) -> list[Claim]:
        if not self.cache.too_large(entity):  # else only its claims are read
            return self.entity_log(entity)[0]
        with self._reading() as tables:
            return tables.claims_for_entity(entity)

    def entity_log(self, entity: str) -> tuple[list[Claim], list[Event]]:
        """The entity's claims and events: kept by the cache (claim_cache.py), else read and kept under the DuckDB lock."""
        held, generation = self.cache.entity(entity)
        if held is None:
            with self._reading() as tables:
                held = tables.claims_for_entity(entity), tables.events(entity=entity, claim_id=None, until=None)
                self.cache.keep_entity(entity, *held, generation)
        return list(held[0]), list(held[1])

    def get_claims(self, ids: Iterable[str], *, with_vectors: bool = False) -> dict[str, Claim]:
        # without vectors, the claims the cache holds (claim_cache.py); the rest are read and kept under the DuckDB lock
        held, missing, generation = ({}, list(ids), -1) if with_vectors else self.cache.split(list(ids))
        if missing:
            with self._reading() as tables:
                held.update(read := tables.get_claims(missing, with_vectors=with_vectors))
                self.cache.keep({} if with_vectors else read, generation)
        return held

    def stored(self, ids: Iterable[str]) -> dict[str, tuple[Claim, int]]:
        with self._reading() as tables:
            return tables.stored(list(ids))

    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]:
        with self._reading() as tables:
            return tables.all_claims(with_vectors=with_vectors)

    def disputes(self, *, status: str | None = None, entity: str | None = None) -> list[Dispute]:
        with self._reading() as tables:
            return tables.disputes(status=status, entity=entity)

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        with self._reading() as tables:
            found = tables.disputes(id=dispute_id)
        return found[0] if found else None

    def events(self, *, entity: str | None = None, claim_id: str | None = None, until: float | None = None) -> list[Event]:
        if entity is not None and claim_id is None and not self.cache.too_large(entity):
            return [e for e in self.entity_log(entity)[1] if until is None or e.ts <= until]
        with self._reading() as tables:
            return tables.events(entity=entity, claim_id=claim_id, until=until)

    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        with self._reading() as tables:
            return tables.events_from(seq, limit)

    def event_head(self) -> int:
        with self._reading() as tables:
            return tables.next_seq()

    def entity_keys(self) -> set[str]:
        """Every entity with at least one claim, whatever its status."""
        with self._reading() as tables:
            return tables.entity_keys()

    def count(self, status: str | None = None) -> int:
        with self._reading() as tables:
            return tables.count(status)

    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, str]:
        with self._reading() as tables:
            return tables.export_parquet(directory)

    # -- closing ---------------------------------------------------------------------------
    def close(self, vectors: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Apply the journal, close DuckDB and, given the active claims' vectors, save the image (unless the
        snapshot is still fresh). Whatever fails (a full disk), the log lets go of its files (the journal kept)."""
        try:
            self.flush()
            with self._db, log_files.named(self.path):
                fresh = not self._dirty and self._tables is None and self.stamp is not None
                image = None if vectors is None or fresh else log_files.image_parts(
                    self._connect(), vectors, np.union1d(self._keys, np.fromiter(self._recent, np.uint64, len(self._recent))),
                    {"format": SNAPSHOT_FORMAT, "dim": self.dim, "next_rid": self._next_rid, "next_seq": self._next_seq,
                     "seq": self._seq})
                if self._tables is not None:
                    tables, self._tables = self._tables, None
                    tables.close()
                self.journal.reset()
        finally:
            self.closed = True  # no lazy reconnect, no commit from now on
            self._abandon(False)  # releases the hold on the file
        stamp = log_files.stamp(self.path)
        if image is not None and stamp is not None:
            tables_, arrays, header = image
            try:
                snapshot.write(self._snapshot_path, {**header, "stamp": stamp}, tables_, arrays)
                self.stamp = stamp
            except OSError as exc:  # the log is intact; the next open reads DuckDB instead
                raise StorageFailure(f"cannot save {self._snapshot_path}: {exc}") from exc
