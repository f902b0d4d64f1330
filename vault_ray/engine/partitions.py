"""`PartitionSet`: the one host of partitions, in-process (embedded mode) and inside
a Ray shard actor (cluster mode), which adds only ownership on top.

It opens partitions (lazily: a store gets a claim log only for partitions written
to), locks them, decides and commits writes across them, resolves disputes, and
answers reads and exports. Storage is injected: `open_log(number, create)` gives a
partition's claim log (None when it has none and `create` is False) and
`new_index()` an empty vector index, so the same host runs over any kind of either.

One vector index serves every open partition (`HostIndex`, vectors.py): searches
and entity resolution ask it once. A background thread applies the claim logs'
journals to DuckDB and compacts the index (`maintain`).

Several callers' writes can be decided together (`write_many`): in arrival order,
each against the state the earlier ones left, each undone alone if it fails, and
committed once per partition for the whole group (`GroupCommit` gathers them).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from vault_ray.storage import ClaimLog, FlatIndex, VectorIndex
from vault_ray.storage.layout import partition_of

from ..errors import DisputeNotFound, StoreClosed, VaultError
from ..models import Claim, Decision, Dispute, EntityView, Event, utcnow
from ..policy import Policy
from ..reasoners.base import Reasoner
from . import gcpause, timeline
from . import search as searching
from .logs import LogFactory, duckdb_logs, open_logs
from .partition import Partition
from .receipts import decided_elsewhere, receipts_elsewhere
from .search import Neighbours
from .txn import WriteItem
from .vectors import HostIndex
from .views import Scored, dispute_partition, empty_view

IndexFactory = Callable[[], VectorIndex]
Groups = dict[int, list[WriteItem]]
"""One caller's write: partition -> its items, in order."""
FLUSH_EVERY_S = 0.5
"""How often the background thread looks at the journals."""
FLUSH_BACKLOG = 256
"""Journal records a partition may hold before they are applied to DuckDB (and the thread woken)."""
FLUSH_AGE_S = 5.0
"""... or how long its oldest record may wait while neither writes nor searches are under way. A
DuckDB transaction costs milliseconds whatever its size: applying a partition's journal every
half second at a few writes per second cost more CPU than the writes themselves."""
FLUSH_BUSY_AGE_S = 30.0
"""... and while writes keep coming. An apply (Arrow rows built in Python, then DuckDB) competes
with the writes for the GIL and the cores: a 10k-fact call ran at half speed, or less, when the
five-second apply of the single writes just before it fell inside it. Searches and `get`s
wait for it too (`READ_QUIET_S`): on a 2-core machine the first apply after 300 text writes
(0.4-0.5 s) took the p99 of the searches that followed from 15-20 ms to 22-58 ms. Reads of the
claim log apply the journal themselves, so a later apply delays nothing a reader sees."""
FLUSH_BYTES = 64 * 2**20
"""... or how much its records may weigh (they are held in memory until applied): a bulk load
that never pauses is applied every 64 MiB (about 30k claims of 384 dimensions) at least."""
INDEX_QUIET_S = 0.2
"""Writes this recent make the index's background work light (`VectorIndex.maintain`)."""
READ_QUIET_S = 0.2
"""A search or `get` this recent makes the journals wait as writes do (`FLUSH_BUSY_AGE_S`); the
index's background work goes on (an HNSW buffer left undrained would slow every search)."""
log = logging.getLogger("vault_ray")


class PartitionSet:
    def __init__(self, root: str | Path, *, partitions: int, dim: int, open_log: LogFactory | None = None,
                 new_index: IndexFactory | None = None, name: str = "embedded") -> None:
        self.root = str(root)
        self.partitions = partitions
        self.dim = dim
        self.open_log = open_log or duckdb_logs(root, dim)
        self.new_index = new_index or (lambda: FlatIndex(dim))
        self.host = HostIndex(self.new_index(), partitions, Path(root) / "partitions" / f"{name}.hnsw")
        self.parts: dict[int, Partition] = {}
        self._opening = threading.Lock()
        self.closed = False
        self._wake = threading.Event()
        self._last_write, self._writing = 0.0, 0
        """When a write last ended, and how many are under way (a hint for the index's chores)."""
        self._last_read = 0.0
        """When a search or `get` last began (a hint for the journals' apply)."""
        self._stop = threading.Event()
        self._chores = threading.Thread(target=self._background, name=f"vault-{name}-flush", daemon=True)
        self._chores.start()

    # -- opening and closing ---------------------------------------------------------
    def open(self, number: int, *, create: bool) -> Partition | None:
        """Partition `number`, opened now if needed; None if it has no log and not `create`."""
        found = self.parts.get(number)
        if found is None:
            with self._opening:  # two threads must not create one partition's log at once
                found = self.parts.get(number)
                if found is None:
                    self._not_closed()
                    log = self.open_log(number, create)
                    if log is None:
                        return None
                    found = self.parts[number] = self._partition(number, log)
        return found

    def open_many(self, numbers: Iterable[int], *, create: bool = False) -> None:
        """Open these partitions (those with a log, or all with `create`) at once, their logs side
        by side: a saved HNSW graph built from exactly their snapshots is restored instead of
        inserting their vectors again."""
        with self._opening:
            self._not_closed()
            logs = open_logs(self.open_log, [p for p in sorted(set(numbers)) if p not in self.parts], create)
            if not self.parts:
                restored = self.host.restore({p: getattr(log, "stamp", None) for p, log in logs.items()})
                if not restored:  # the vectors come from the logs: room for them all at once
                    self.host.reserve(sum(getattr(log, "expected_vectors", lambda: 0)() for log in logs.values()))
            try:
                for p, log in logs.items():
                    self.parts[p] = self._partition(p, log)
            except BaseException:
                for p, log in logs.items():
                    if p not in self.parts:
                        log.close()
                raise

    def _partition(self, number: int, log: ClaimLog) -> Partition:
        try:
            with gcpause.loading():
                return Partition(number, log, self.host.view(number))
        except BaseException:
            log.close()
            raise

    def reload(self, number: int) -> Partition:
        """Rebuild an open partition's memory and its rows of the host index from its log
        (after a bulk change to the log: a restore); the log stays open."""
        part = self.parts[number]
        self.host.detach(number)
        found = self.parts[number] = self._partition(number, part.log)
        return found

    def close(self, number: int) -> None:
        """Close a partition this host gives away: its rows leave the host index."""
        part = self.parts.pop(number, None)
        if part is not None:
            try:
                part.close()
            finally:
                self.host.detach(number)

    def close_all(self) -> None:
        """Close every partition, each even if another fails (no log stays held), the host marked
        closed first: a write still under way opens no partition again."""
        with self._opening:
            self.closed = True
        self._stop.set()
        self._wake.set()
        if self._chores.is_alive() and self._chores is not threading.current_thread():
            self._chores.join()
        parts = [self.parts.pop(number) for number in sorted(self.parts)]
        try:
            with ExitStack() as closing:  # the callbacks all run (last in, first out); an error is raised after
                for part in reversed(parts):
                    closing.callback(part.close)
            self.host.save({part.number: getattr(part.log, "stamp", None) for part in parts})
        finally:
            self.host.close()

    def _not_closed(self) -> None:
        if self.closed:  # a write that raced close(): it must not take a partition's log again
            raise StoreClosed("this vault is closed; open the store again (Vault.open / Vault.connect)")

    def opened(self, partitions: Iterable[int] | None = None) -> list[Partition]:
        """The open partitions (every partition that holds data), or those among `partitions`."""
        numbers = sorted(self.parts) if partitions is None else sorted(p for p in set(partitions) if p in self.parts)
        return [self.parts[p] for p in numbers]

    def owner(self, entity: str) -> Partition | None:
        return self.parts.get(partition_of(entity, self.partitions))

    # -- background chores ------------------------------------------------------------------
    def _background(self) -> None:
        busy = False
        while not self._stop.is_set():
            if not busy:  # the index had more to do: no pause before the next round
                self._wake.wait(FLUSH_EVERY_S)
            self._wake.clear()
            busy = self.chores()

    def chores(self) -> bool:
        """Apply every partition's journal to DuckDB, fold changed claims into columns, and
        let the vector index do its housekeeping; True if the index has more to do."""
        busy = self._busy()
        for part in list(self.parts.values()):
            try:  # asked again before each partition: a read or write that came meanwhile stops the round
                if self._flush_due(part.log, self._quiet()):
                    part.log.flush()
                if part.state.needs_compaction():
                    with part.lock:
                        part.state.compact()
            except Exception:  # noqa: BLE001  the journal keeps the records; reads retry and raise
                log.exception("background work on partition %d failed; it will be retried", part.number)
        try:  # while writes come, the index does only a little (its inserts hold the GIL)
            return self.host.maintain(busy=busy)
        except Exception:  # noqa: BLE001  a failed compaction leaves the old index serving
            log.exception("compacting the vector index failed")
            return False

    # -- writes ---------------------------------------------------------------------------
    def write_many(self, calls: Sequence[Groups], policy: Policy, reasoner: Reasoner,
                   now: datetime | Sequence[datetime]) -> list[dict[int, list[Decision]] | VaultError]:
        """Decide each call in order, then commit once per partition. Call i is recorded at
        `now` + i microseconds, or at its own time when given one per call (group commit),
        never before the call ahead of it. A call that fails (an error of ours while
        deciding) is rolled back alone and gets its error."""
        nows = [now + timedelta(microseconds=i) for i in range(len(calls))] if isinstance(now, datetime) else list(now)
        touched = sorted({p for call in calls for p in call})
        if sum(p not in self.parts for p in touched) > 1:  # a new store's first writes: open the logs side by side
            self.open_many(touched, create=True)
        parts = {p: self.open(p, create=True) for p in touched}
        elsewhere = [receipts_elsewhere(self.parts, call) for call in calls]
        results: list[dict[int, list[Decision]] | VaultError] = []
        self._writing += 1
        with ExitStack() as stack:
            stack.callback(self._wrote)
            stack.enter_context(gcpause.paused(sum(len(items) for call in calls for items in call.values())))
            for p in touched:
                stack.enter_context(parts[p].lock)  # type: ignore[union-attr]
            txns = {p: parts[p].begin(nows[0]) for p in touched}  # type: ignore[union-attr]
            clock = None
            given: dict[str, int] = {}  # an id given to an earlier call of this group -> the partition that took it
            for call, at, foreign in zip(calls, nows, elsewhere, strict=True):
                foreign = decided_elsewhere(call, given, txns, foreign)
                # each call at its own time, and after the one before it (one microsecond at
                # least): the group records like its calls one by one
                clock = at if clock is None or at > clock else clock + timedelta(microseconds=1)
                clock = max((parts[p].after(clock) for p in call), default=clock)  # type: ignore[union-attr]
                for p in call:
                    txns[p].set_clock(clock)
                marks = {p: txns[p].mark() for p in call}
                try:
                    results.append({p: parts[p].decide(txns[p], call[p], policy, reasoner, foreign.get(p))  # type: ignore[union-attr]
                                    for p in sorted(call)})
                    given.update((i.id, p) for p, items in call.items() for i in items if i.digest and i.id not in given)
                except VaultError as exc:
                    for p, mark in marks.items():
                        txns[p].rollback(mark)
                    results.append(exc)
            for p in touched:
                parts[p].commit(txns[p])  # type: ignore[union-attr]
        if any(self._flush_due(parts[p].log, False) for p in touched):  # type: ignore[union-attr, arg-type]
            self._wake.set()
        return results

    def _busy(self) -> bool:
        """Writes are under way, or one ended less than INDEX_QUIET_S ago."""
        return self._writing > 0 or time.monotonic() - self._last_write < INDEX_QUIET_S

    def _quiet(self) -> bool:
        """No write is busy and no search or `get` came in the last READ_QUIET_S."""
        return not self._busy() and time.monotonic() - self._last_read >= READ_QUIET_S

    @staticmethod
    def _flush_due(log: ClaimLog, quiet: bool) -> bool:
        """Whether the background thread should apply this journal now (see FLUSH_*)."""
        return log.backlog() > 0 and (log.backlog() >= FLUSH_BACKLOG or log.backlog_bytes() >= FLUSH_BYTES
                                      or log.backlog_age() >= (FLUSH_AGE_S if quiet else FLUSH_BUSY_AGE_S))

    def _wrote(self) -> None:
        self._writing -= 1
        self._last_write = time.monotonic()

    def write(self, groups: Groups, policy: Policy, reasoner: Reasoner, now: datetime) -> dict[int, list[Decision]]:
        """One caller's write: every partition's share is decided before any is committed,
        so an error while deciding leaves every partition unchanged."""
        (result,) = self.write_many([groups], policy, reasoner, now)
        if isinstance(result, VaultError):
            raise result
        return result

    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str, keep_both: bool,
                        cardinality: Callable[[str], str], now: datetime) -> Dispute:
        part = self._dispute_owner(dispute_id)
        with part.lock:
            txn = part.begin(now)
            found = part.get_dispute(dispute_id)
            assert found is not None
            resolved = part.resolve_dispute(txn, dispute_id, winner, decided_by=decided_by, note=note,
                                            keep_both=keep_both, cardinality=cardinality(found.entity))
            part.commit(txn)
            return resolved

    def expire_disputes(self, policy: Policy, now: datetime, partitions: Iterable[int] | None = None) -> list[Dispute]:
        done: list[Dispute] = []
        for part in self.opened(partitions):
            with part.lock:  # `now` is what a dispute's age is measured against; the change is recorded at the clock
                txn = part.begin(utcnow())
                done += part.expire_disputes(txn, policy, now)
                part.commit(txn)
        return done

    def _dispute_owner(self, dispute_id: str) -> Partition:
        p = dispute_partition(dispute_id)
        part = self.parts.get(p) if p is not None else None
        if part is None or part.get_dispute(dispute_id) is None:
            raise DisputeNotFound(dispute_id)
        return part

    # -- reads ------------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int, partitions: Iterable[int] | None = None, *,
               agent: str | None = None, entity: str | None = None) -> list[Scored]:
        self._last_read = time.monotonic()
        return searching.search(self, vectors, k, partitions, agent=agent, entity=entity)

    def nearest_entities(self, vectors: np.ndarray, k: int, partitions: Iterable[int] | None = None) -> list[Neighbours]:
        return searching.nearest_entities(self, vectors, k, partitions)

    def search_as_of(self, vectors: np.ndarray, k: int, at: datetime, partitions: Iterable[int] | None = None, *,
                     agent: str | None = None, entity: str | None = None) -> list[Scored]:
        self._last_read = time.monotonic()
        parts = [p for p in self.opened(partitions) if entity is None or p is self.owner(entity)]
        return timeline.search_as_of(parts, vectors, k, at, agent=agent, entity=entity)

    def entities_present(self, entities: Iterable[str]) -> set[str]:
        return {e for e in entities if (part := self.owner(e)) is not None and part.has_entity(e)}

    def aligned_to(self, labels: Iterable[str], partitions: Iterable[int] | None = None) -> dict[str, tuple[float, str]]:
        return searching.aligned_to(self, labels, partitions)

    def views(self, entities: Iterable[str], policy: Policy) -> dict[str, EntityView]:
        self._last_read = time.monotonic()
        return {e: part.view(e, policy) if (part := self.owner(e)) is not None else empty_view(e) for e in entities}

    def history(self, entity: str) -> list[Claim]:
        part = self.owner(entity)
        return part.history(entity) if part is not None else []

    def find_claim(self, claim_id: str, partitions: Iterable[int] | None = None) -> Claim | None:
        for part in self.opened(partitions):
            found = part.find_claim(claim_id)
            if found is not None:
                return found
        return None

    def disputes(self, status: str | None, partitions: Iterable[int] | None = None) -> list[Dispute]:
        found = [d for part in self.opened(partitions) for d in part.disputes(status)]
        return sorted(found, key=lambda d: d.opened_at)

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        p = dispute_partition(dispute_id)
        part = self.parts.get(p) if p is not None else None
        return part.get_dispute(dispute_id) if part is not None else None

    def events(self, entity: str | None = None, claim_id: str | None = None,
               partitions: Iterable[int] | None = None) -> list[Event]:
        if entity is not None:
            part = self.owner(entity)
            return part.events(entity=entity) if part is not None else []
        found = [e for part in self.opened(partitions) for e in part.events(claim_id=claim_id)]
        return sorted(found, key=lambda e: e.ts)

    def events_from(self, positions: dict[int, int], limit: int,
                    partitions: Iterable[int] | None = None) -> list[tuple[int, int, Event]]:
        """(partition, seq, event) for up to `limit` events per partition from its position
        in `positions` (0 when absent), each partition's in sequence order."""
        return [(part.number, seq, e) for part in self.opened(partitions)
                for seq, e in part.events_from(positions.get(part.number, 0), limit)]

    def event_heads(self, partitions: Iterable[int] | None = None) -> dict[int, int]:
        """Per open partition, the sequence number its next event will get."""
        return {part.number: part.event_head() for part in self.opened(partitions)}

    def all_claims(self, partitions: Iterable[int] | None = None, *, with_vectors: bool = False) -> list[Claim]:
        return [c for part in self.opened(partitions) for c in part.all_claims(with_vectors=with_vectors)]

    def export_parquet(self, directory: str | Path, partitions: Iterable[int] | None = None) -> list[str]:
        paths: list[str] = []
        for part in self.opened(partitions):
            with part.lock:
                paths += part.log.export_parquet(Path(directory) / f"p{part.number:04d}").values()
        return paths

    def check(self, partitions: Iterable[int]) -> dict[int, bool]:
        """Invariant 3 per partition: its index holds exactly its log's active claims
        (trivially so for a partition with no log yet)."""
        return {p: part.index_matches_log() if (part := self.parts.get(p)) is not None else True
                for p in sorted(set(partitions))}

    def active_count(self) -> int:
        return sum(part.active_count() for part in self.parts.values())

