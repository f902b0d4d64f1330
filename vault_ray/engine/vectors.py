"""One vector index over the active claims of every partition a host has open (the
embedded store, or one shard actor): one search per query instead of one per
partition, and for HNSW one graph instead of sixteen (a search of a small graph
costs nearly as much as one of a graph sixteen times larger). Rows are keyed
`rid * partitions + partition` (dense small integers, as the indexes want); each
partition sees its own rows through a `PartitionIndex`, a `VectorIndex` like any other.

The representative claim of each entity is tagged in the same index (the vector
index's tagged subset): entity resolution searches the tagged rows only, so there is
one vector per entity to compare and no second copy of the vectors.

Partitions stay the unit of ownership: each saves its own active vectors in its
snapshot, and the host index is derived from them. A flat host index is refilled
from the partitions at open (a copy). An HNSW graph is saved beside the logs
(`graph_path`) with a manifest of the partition snapshots it was built from; it is
restored when every partition opens from exactly those snapshots, and otherwise the
partitions' rows are inserted again (minutes at 100k claims: after a crash, or on the
shard that receives a partition in a rebalance).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from vault_ray.storage import VectorIndex, restore_index, snapshot

from ..errors import StorageFailure

log = logging.getLogger("vault_ray")

GRAPH_FORMAT = 1
SORT_IN_NUMPY = 32
"""From this many queries, a search orders its hits in one numpy sort, not one Python sort per query."""


class HostIndex:
    def __init__(self, index: VectorIndex, partitions: int, graph_path: Path | None = None) -> None:
        self.index = index
        self.partitions = partitions
        self.kind, self.dim = index.kind, index.dim
        self.graph_path = graph_path
        self.lock = threading.RLock()
        self.counts: dict[int, int] = {}
        """rows per partition."""
        self.changes = 0
        """Adds and removals so far (a saved graph still current needs no second save)."""
        self._on_disk: tuple[dict[int, str | None], int] | None = None
        """(manifest, changes) of the graph file when it was restored or saved."""

    def view(self, number: int) -> PartitionIndex:
        return PartitionIndex(self, number)

    def gids(self, number: int, rids: np.ndarray | list[int]) -> np.ndarray:
        return np.asarray(rids, dtype=np.int64).reshape(-1) * self.partitions + number

    # -- search ---------------------------------------------------------------------------
    def search(self, queries: np.ndarray, k: int, *, tagged: bool = False) -> list[list[tuple[float, int, int]]]:
        """Per query, the top k (score, partition, rid), best first; equal scores in
        (partition, rid) order, whatever order the rows were added in."""
        with self.lock:
            found = self.index.search_tagged(queries, k) if tagged else self.index.search(queries, k)
        scores, ids = found
        size = self.partitions
        if len(ids) < SORT_IN_NUMPY:
            return [sorted(((s, g % size, g // size) for s, g in zip(srow, grow, strict=True) if g >= 0),
                           key=lambda h: (-h[0], h[1], h[2]))
                    for srow, grow in zip(scores.tolist(), ids.tolist(), strict=True)]
        # a batch (a bulk write's entity resolution): the same order, one lexsort of every row
        ids = np.asarray(ids, dtype=np.int64)
        part, rid = ids % size, ids // size
        order = np.lexsort((rid, part, -np.asarray(scores), ids < 0))  # the last key first: padding last
        counts = (ids >= 0).sum(axis=1).tolist()
        rows = zip(np.take_along_axis(scores, order, 1).tolist(), np.take_along_axis(part, order, 1).tolist(),
                   np.take_along_axis(rid, order, 1).tolist(), counts, strict=True)
        return [list(zip(s[:n], p[:n], r[:n], strict=True)) for s, p, r, n in rows]

    def maintain(self, busy: bool = False) -> bool:
        if getattr(self.index, "MAINTAIN_LOCKED", False):  # short chores that change the index (flat)
            with self.lock:
                return self.index.maintain(busy)
        return self.index.maintain(busy)  # HNSW locks its own steps: a compaction must not hold the host

    def reserve(self, rows: int) -> None:
        with self.lock:
            self.index.reserve(len(self.index) + rows)

    def detach(self, number: int) -> None:
        """Drop every row of a partition (it closed: another host may own it now)."""
        with self.lock:
            mine = [g for g in self.index.ids() if g % self.partitions == number]
            self.index.remove(mine)
            self.counts.pop(number, None)
            self.changes += 1

    # -- a saved HNSW graph -----------------------------------------------------------------
    def restore(self, stamps: dict[int, str | None]) -> set[int]:
        """Load the saved graph if it was built from exactly these partition snapshots;
        returns the partitions whose rows it holds (none when it does not apply)."""
        if self.kind != "hnsw" or self.graph_path is None or not stamps or None in stamps.values():
            return set()
        rebuilt = "the index is rebuilt from the partitions' claim logs"
        try:
            saved = snapshot.read(self.graph_path)
        except snapshot.Damaged as exc:
            (log.info if exc.old else log.warning)("vault-ray: the saved HNSW index %s is %s: ignored, %s",
                                                   self.graph_path, "of an earlier format" if exc.old else
                                                   f"damaged ({exc.why})", rebuilt)
            return set()
        if saved is None:
            log.warning("vault-ray: no saved HNSW index at %s (the store was last closed in the other mode or with "
                        "the flat index, or not closed, or the file was removed): %s", self.graph_path, rebuilt)
            return set()
        try:
            head = saved.header
            manifest = {int(p): s for p, s in head.get("partitions", {}).items()}
            if (head.get("format") != GRAPH_FORMAT or head.get("dim") != self.dim
                    or head.get("partitions_total") != self.partitions or manifest != stamps):
                return set()
            index = restore_index(self.kind, self.dim, saved.arrays("graph.", copy=False))  # read, not copied whole
        except (ValueError, KeyError, RuntimeError) as exc:  # unreadable: the partitions' vectors rebuild it
            log.warning("vault-ray: the saved HNSW index %s is unreadable (%s): %s", self.graph_path, exc, rebuilt)
            return set()
        finally:
            saved.close()
        with self.lock:
            self.index = index
            ids = np.fromiter(index.ids(), np.int64)
            numbers, counts = np.unique(ids % self.partitions, return_counts=True)
            self.counts = dict(zip(numbers.tolist(), counts.tolist(), strict=True))
            self._on_disk = (dict(stamps), self.changes)
        return set(stamps)

    def save(self, stamps: dict[int, str | None]) -> None:
        """Save an HNSW graph with the manifest of the partition snapshots it matches."""
        if self.kind != "hnsw" or self.graph_path is None:
            return
        if not stamps or None in stamps.values():
            self.graph_path.unlink(missing_ok=True)
            return
        if self._on_disk == (stamps, self.changes) and self.graph_path.exists():
            return  # the file holds this graph already (a session that wrote nothing): not 175 MB again at 100k
        with self.lock:
            settle = getattr(self.index, "settle", None)
            if settle is not None:
                settle()
            arrays = {f"graph.{k}": v for k, v in self.index.export().items()}
        header = {"format": GRAPH_FORMAT, "dim": self.dim, "partitions_total": self.partitions,
                  "partitions": {str(p): s for p, s in stamps.items()}}
        try:
            snapshot.write(self.graph_path, header, {}, arrays)
        except OSError as exc:  # derived: the next open rebuilds it from the partitions' snapshots
            self.graph_path.unlink(missing_ok=True)
            raise StorageFailure(f"cannot save {self.graph_path}: {exc.strerror or exc}") from exc
        self._on_disk = (dict(stamps), self.changes)

    def purge(self) -> None:
        """No removed vector left in the graph, and no saved graph file (an erasure; rebuilt at close)."""
        purge = getattr(self.index, "purge", None)
        if purge is not None:
            purge()  # HNSW locks its own steps
        with self.lock:
            self.changes += 1
            self._on_disk = None
        if self.graph_path is not None:
            self.graph_path.unlink(missing_ok=True)

    def close(self) -> None:
        with self.lock:
            self.index.close()
            self.counts.clear()


class PartitionIndex:
    """One partition's rows of a `HostIndex`, as a `VectorIndex` keyed by rid."""

    def __init__(self, host: HostIndex, number: int) -> None:
        self.host = host
        self.number = number
        self.kind, self.dim = host.kind, host.dim

    def __len__(self) -> int:
        return self.host.counts.get(self.number, 0)

    def _changed(self, change) -> None:  # type: ignore[no-untyped-def]
        host = self.host
        with host.lock:
            before = len(host.index)
            change(host.index)
            host.changes += 1
            host.counts[self.number] = host.counts.get(self.number, 0) + len(host.index) - before

    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray,
            tagged: Iterable[int] | np.ndarray | None = None) -> None:
        if len(rids):
            into = None if tagged is None else self.host.gids(self.number, list(tagged))
            self._changed(lambda index: index.add(self.host.gids(self.number, rids), vectors, tagged=into))

    def remove(self, rids: list[int]) -> None:
        if rids:
            self._changed(lambda index: index.remove(self.host.gids(self.number, rids).tolist()))

    def tag(self, rids: list[int], on: bool) -> None:
        if rids:
            with self.host.lock:
                self.host.index.tag(self.host.gids(self.number, rids).tolist(), on)

    def tagged_count(self) -> int:
        raise NotImplementedError("the host counts tagged rows for all its partitions")

    def vectors(self, rids: list[int]) -> np.ndarray:
        with self.host.lock:
            return self.host.index.vectors(self.host.gids(self.number, rids).tolist())

    def ids(self) -> set[int]:
        with self.host.lock:
            size = self.host.partitions
            return {g // size for g in self.host.index.ids() if g % size == self.number}

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Exact, over this partition's rows only (hosts search all partitions at once)."""
        rids = sorted(self.ids())
        q = np.asarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if not rids:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        scores = q @ self.vectors(rids).T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, top, axis=1), np.asarray(rids, np.int64)[top]

    def search_tagged(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError("hosts search the tagged rows of all their partitions at once")

    def reset(self) -> None:
        self.host.detach(self.number)

    def purge(self) -> None:
        self.host.purge()

    def maintain(self, busy: bool = False) -> bool:
        return False

    def export(self) -> dict[str, np.ndarray]:
        rids = np.asarray(sorted(self.ids()), np.int64)
        vectors = self.vectors(rids.tolist()) if len(rids) else np.zeros((0, self.dim), np.float32)
        return {"ids": rids, "vectors": vectors}

    def close(self) -> None:
        """The rows stay: the host detaches a partition it gives away, and saves them all when it closes."""
