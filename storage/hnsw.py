"""`HnswIndex` (kind "hnsw"): approximate search on a FAISS HNSW graph.

- **Inserts leave the write path.** Inserting a vector into a 100k-vector graph costs
  a fraction of a millisecond (more for a vector far from everything), and a bulk write
  of 10k facts paid seconds for it. New vectors go to an exact buffer (`FlatIndex`)
  that every search scans beside the graph; `maintain()` (the host's background
  thread) moves them into the graph 16 at a time, so a search waits at most for one
  such step. Before the graph is saved (the host closing) the buffer is moved in whole,
  so a reopened graph serves at full speed at once; a buffer left by a crash is kept.
- **Removals are tombstones**: a bitmap of live graph positions that searches are
  filtered by. Once they pass `COMPACT_FRACTION` of the rows, `maintain()` rebuilds the
  graph from the live vectors without holding the lock, then replays the removals and
  tags made meanwhile before swapping it in.
- **The tagged subset** (entity representatives) is a second bitmap.

Parameters, chosen on 60k hashing vectors of generated sentences (benchmarks/targets.py):
M 24 and efConstruction 40 insert a vector in about 0.1 ms; efSearch 64 finds the exact
top 5 in 98% of cases (ties counted). Resolution looks for near duplicates (cosine >=
0.70), which a beam of 32 finds (`EF_TAGGED`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

import faiss
import numpy as np

from .flat import FlatIndex, merge
from .vector_index import _grown, _ids, _incoming, _Slots, _threads_for


class HnswIndex:
    kind = "hnsw"
    M = 24
    EF_CONSTRUCTION = 40
    EF_SEARCH = 64
    EF_TAGGED = 32
    EXACT_TAGGED = 1024
    """At most this many tagged rows: a tagged search scores them all, exactly; and at most this
    many live rows (or k a quarter of them or more): a search scores them all."""
    COMPACT_FRACTION = 0.2
    COMPACT_MIN = 256
    DRAIN_STEP = 16
    """Buffered vectors moved into the graph per hold of the lock."""
    DRAIN_BUDGET_S = 0.25
    """Time one `maintain()` spends moving buffered vectors into the graph."""
    BUSY_DRAIN_S = 0.01
    """The same while writes are under way (graph inserts take the index lock and a core:
    a full budget cut back-to-back 10k-fact calls from 15k/s to 3-10k/s), unless the
    buffer passed `BUSY_BUFFER_CAP`."""
    BUSY_BUFFER_CAP = 32_768
    """Past this many buffered vectors the drain takes its full budget even while writes
    come. Every search scans the buffer exactly beside the graph: one query over 32k
    buffered vectors costs about 2 ms more (5.8 ms per 100k on the project's machine)."""

    SCANS_PER_INSERT = 10_000
    """Queries' worth of exact scans of a buffered vector after which a search moves the
    buffer into the graph first. Measured on the project's 2-core machine: 10k queries over
    10k buffered vectors take 0.6-0.9 s, inserting those 10k vectors 1.3-1.4 s, so this is
    about half the break-even; the inserts are owed anyway (the background drain, or the
    save at close). Seven back-to-back 10k-fact calls with resolution on, on a 50k HNSW
    store: 26.7 s in all with 10,000; 31.6 s with 20,000; 32.9 s without the rule, whose
    calls grew from 1.2 to 9.1 s as the buffer did (docs/performance.md)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._lock = threading.RLock()
        self._scanned = 0
        """(query, buffered vector) pairs scanned since the buffer last emptied."""
        self._replay: list[tuple[str, Any]] | None = None
        """Graph changes made while a compaction builds a new graph, to replay onto it."""
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._index, self._slots, self._live = self._empty(), _Slots(), 0
            self._bits, self._tag_bits = np.zeros(0, np.uint8), np.zeros(0, np.uint8)
            self._fresh = FlatIndex(self.dim)
            self._replay = None if self._replay is None else []
            self._count = 0

    def _empty(self) -> Any:
        index = faiss.IndexHNSWFlat(self.dim, self.M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.EF_CONSTRUCTION
        return index

    def __len__(self) -> int:
        """Live rows, graph and buffer: counted by each change under the lock, read without it (a
        drain step moves rows without changing the count: a write's count waits for none)."""
        return self._count

    def reserve(self, rows: int) -> None:
        """A graph grows by itself; a restored one needs no room (nothing to do)."""

    def tagged_count(self) -> int:
        return self._slots.tags + self._fresh.tagged_count()

    def tombstones(self) -> int:
        return int(self._index.ntotal) - self._live

    def buffered(self) -> int:
        """Vectors added but not in the graph yet."""
        return len(self._fresh)

    # -- bitmaps of live and tagged graph positions ----------------------------------------
    def _grow_bits(self, end: int) -> None:
        size = (end + 7) // 8
        if len(self._bits) < size:
            extra = max(size, 2 * len(self._bits)) - len(self._bits)
            self._bits = np.concatenate([self._bits, np.zeros(extra, np.uint8)])
            self._tag_bits = np.concatenate([self._tag_bits, np.zeros(extra, np.uint8)])

    @staticmethod
    def _set(bits: np.ndarray, rows: np.ndarray, on: bool) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        masks = (1 << (rows & 7)).astype(np.uint8)
        if on:
            np.bitwise_or.at(bits, rows >> 3, masks)
        else:
            np.bitwise_and.at(bits, rows >> 3, ~masks)

    # -- changes ----------------------------------------------------------------------------
    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray,
            tagged: Iterable[int] | np.ndarray | None = None) -> None:
        if len(rids) == 0:
            return
        ids, vecs = _incoming(rids, vectors, self.dim)
        with self._lock:
            kept = ids[self._slots.tagged_ids(ids)]  # a replaced vector keeps its tag
            self._graph_remove(ids)
            self._fresh.add(ids, vecs, tagged=kept if tagged is None else np.concatenate([kept, _ids(tagged)]))
            self._count = self._live + len(self._fresh)

    def remove(self, rids: list[int] | np.ndarray) -> None:
        if len(rids) == 0:
            return
        ids = _ids(rids)
        with self._lock:
            self._graph_remove(ids)
            self._fresh.remove(ids)
            self._count = self._live + len(self._fresh)

    def _graph_remove(self, ids: np.ndarray) -> None:
        ids, rows = self._slots.drop(ids)
        if len(rows):
            self._live -= len(rows)
            self._set(self._bits, rows, False)
            self._set(self._tag_bits, rows, False)
            if self._replay is not None:
                self._replay.append(("remove", ids))

    def tag(self, rids: list[int] | np.ndarray, on: bool) -> None:
        if len(rids) == 0:
            return
        ids = _ids(rids)
        with self._lock:
            changed, rows = self._slots.tag(ids, on)
            self._set(self._tag_bits, rows, on)
            if self._replay is not None and len(changed):
                self._replay.append(("tag", (changed, on)))
            self._fresh.tag(ids, on)

    # -- search -----------------------------------------------------------------------------
    def _scan_or_drain(self, queries: int) -> None:
        """Count a search's scan of the buffer, or move the buffer into the graph first when
        its scans would pass `SCANS_PER_INSERT` per buffered vector (the caller holds the lock)."""
        if not self._fresh:
            self._scanned = 0
            return
        self._scanned += queries * len(self._fresh)
        # not while a compaction builds the next graph from this one's rows: it would miss them
        if self._scanned >= self.SCANS_PER_INSERT * len(self._fresh) and self._replay is None:
            self.settle()
            self._scanned = 0

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            self._scan_or_drain(np.size(queries) // self.dim)
            if self._live <= self.EXACT_TAGGED or 4 * k >= self._live:  # a small graph, or most of it asked for
                graph = self._exact(queries, min(k, self._live), self._slots.live_ids())
            else:
                allowed = self._bits if self._live < self._index.ntotal else None
                graph = self._search(queries, min(k, self._live), allowed, self.EF_SEARCH)
            return merge(graph, self._fresh.search(queries, k), k)

    def search_tagged(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """A filtered graph search, or exact when few rows are tagged: a beam through a graph
        whose rows are mostly untagged misses tagged ones (widened as the share falls)."""
        with self._lock:
            self._scan_or_drain(np.size(queries) // self.dim)
            tags = self._slots.tags
            if tags <= self.EXACT_TAGGED:
                graph = self._exact(queries, min(k, tags), np.flatnonzero(self._slots.tagged))
            else:
                ef = min(self.EF_TAGGED * max(1, -(-self._live // tags)), 4 * self.EF_SEARCH)
                graph = self._search(queries, min(k, tags), self._tag_bits, ef)
            return merge(graph, self._fresh.search_tagged(queries, k), k)

    def _exact(self, queries: np.ndarray, k: int, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every graph row among `ids` scored: what a beam can miss (HNSW links are pruned, so
        a small or tombstone-heavy graph may leave rows unreachable) cannot be missed here."""
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        ids = np.asarray(ids, np.int64)
        ids = ids[self._slots.rows(ids) >= 0]
        if k <= 0 or not len(ids):
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        scores = q @ self._index.reconstruct_batch(self._slots.rows(ids)).T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, top, axis=1), ids[top]

    def _search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None,
                ef: int) -> tuple[np.ndarray, np.ndarray]:
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if k <= 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        params = faiss.SearchParametersHNSW()
        params.efSearch = max(ef, k)
        if allowed is not None:  # tombstones, or the tagged subset: only these positions answer
            params.sel = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(allowed))
        _threads_for(len(q))
        scores, rows = self._index.search(q, k, params=params)
        return scores, np.where(rows >= 0, self._slots.id_at[np.maximum(rows, 0)], -1)

    def vectors(self, rids: list[int] | np.ndarray) -> np.ndarray:
        ids = _ids(rids)
        with self._lock:
            rows = self._slots.rows(ids)
            out = np.zeros((len(ids), self.dim), np.float32)
            in_graph = rows >= 0
            if in_graph.any():
                out[in_graph] = self._index.reconstruct_batch(rows[in_graph])
            if not in_graph.all():
                out[~in_graph] = self._fresh.vectors(ids[~in_graph])  # KeyError for an absent id
            return out

    def ids(self) -> set[int]:
        with self._lock:
            return set(self._slots.live_ids().tolist()) | self._fresh.ids()

    # -- background work --------------------------------------------------------------------
    def maintain(self, busy: bool = False) -> bool:
        """Move buffered vectors into the graph (for DRAIN_BUDGET_S at most; BUSY_DRAIN_S
        while writes are under way and the buffer is small), then compact if the
        tombstones are due (not while busy). True if it did any work (call again soon)."""
        light = busy and len(self._fresh) <= self.BUSY_BUFFER_CAP
        deadline = time.monotonic() + (self.BUSY_DRAIN_S if light else self.DRAIN_BUDGET_S)
        moved = False
        while self._fresh and time.monotonic() < deadline:
            moved |= self._drain(self.DRAIN_STEP)
        if light:
            return False  # the next round comes after the host's pause
        return moved or self._compact()

    def _drain(self, limit: int) -> bool:
        with self._lock:
            ids = np.sort(self._fresh.live_ids())[:limit]
            if not len(ids):
                return False
            vecs, tagged = self._fresh.vectors(ids), ids[self._fresh.tagged_mask(ids)]
            self._fresh.remove(ids)
            start = int(self._index.ntotal)
            self._append(self._index, self._slots, ids, vecs)
            self._live += len(ids)
            self._grow_bits(int(self._index.ntotal))
            self._set(self._bits, np.arange(start, int(self._index.ntotal)), True)
            changed, rows = self._slots.tag(tagged, True)
            self._set(self._tag_bits, rows, True)
            return True

    @staticmethod
    def _append(index: Any, slots: _Slots, ids: np.ndarray, vecs: np.ndarray) -> None:
        start = int(index.ntotal)
        _threads_for(len(ids))
        index.add(vecs)
        slots.put(ids, np.arange(start, start + len(ids)))

    def purge(self) -> None:
        """Rebuild the graph without any tombstone, however few (an erasure: a removed vector must
        not stay in the graph, nor in a graph saved later); after a compaction under way."""
        while True:
            with self._lock:
                if self._replay is None and not self.tombstones():
                    return
            if not self._compact(force=True):
                time.sleep(0.01)

    def _compact(self, force: bool = False) -> bool:
        """Rebuild the graph without its tombstones once they pass the threshold (any, `force`d)."""
        with self._lock:
            dead = self.tombstones()
            due = dead > 0 if force else dead >= max(self.COMPACT_MIN, self.COMPACT_FRACTION * self._index.ntotal)
            if not due or self._replay is not None:
                return False
            ids = self._slots.live_ids()
            vecs = self._index.reconstruct_batch(self._slots.rows(ids)) if len(ids) else np.zeros((0, self.dim))
            tagged = ids[self._slots.tagged_ids(ids)]
            self._replay = []
        index, slots = self._empty(), _Slots()
        if len(ids):
            self._append(index, slots, ids, vecs)  # the long part, without the lock
        with self._lock:
            changes, self._replay = self._replay or [], None
            self._index, self._slots, self._live = index, slots, len(ids)
            self._bits, self._tag_bits = np.zeros(0, np.uint8), np.zeros(0, np.uint8)
            self._grow_bits(int(index.ntotal))
            self._set(self._bits, np.arange(int(index.ntotal)), True)
            self._set(self._tag_bits, slots.rows(tagged), True)
            slots.tag(tagged, True)
            for op, arg in changes:
                if op == "remove":
                    self._graph_remove(arg)
                elif op == "tag":
                    changed, rows = self._slots.tag(*arg)
                    self._set(self._tag_bits, rows, arg[1])
            self._count = self._live + len(self._fresh)
        return True

    # -- saving -------------------------------------------------------------------------------
    SETTLE_STEP = 4096
    """Buffered vectors moved into the graph per step when it is saved (nobody waits then)."""

    def settle(self) -> None:
        """Move every buffered vector into the graph (before it is saved: a graph reopened
        with a large buffer would scan that buffer exactly on every search until drained)."""
        while self._fresh:
            self._drain(self.SETTLE_STEP)

    def export(self) -> dict[str, np.ndarray]:
        """The graph, the id at each position, and the buffered vectors with their tags
        (none left once `settle` ran: the host settles the index before saving it)."""
        with self._lock:
            fresh = self._fresh.export()
            return {"faiss": faiss.serialize_index(self._index), "ids": self._slots.id_at[: self._index.ntotal].copy(),
                    "fresh_ids": fresh["ids"], "fresh_vectors": fresh["vectors"],
                    "fresh_tagged": fresh["ids"][self._fresh.tagged_mask(fresh["ids"])]}

    @classmethod
    def restore(cls, dim: int, arrays: dict[str, np.ndarray]) -> HnswIndex:
        index = cls(dim)
        index._index = _read_faiss(arrays["faiss"])
        ids = np.asarray(arrays["ids"], dtype=np.int64)
        live = np.flatnonzero(ids >= 0)
        index._slots.put(ids[live], live)
        index._slots.id_at = _grown(index._slots.id_at, len(ids), -1)
        index._live = len(live)
        index._grow_bits(len(ids))
        index._set(index._bits, live, True)
        if "fresh_ids" in arrays:
            index._fresh.add(arrays["fresh_ids"], arrays["fresh_vectors"], tagged=arrays["fresh_tagged"])
        index._count = index._live + len(index._fresh)
        return index

    def close(self) -> None:
        self.reset()


def _read_faiss(data: np.ndarray) -> Any:
    """A serialized FAISS index, read in 8 MB pieces. `faiss.deserialize_index` first
    copies the whole buffer into a zero-filled one of its own: 0.24-0.28 s against 0.12 s
    for the 175 MB graph of 100k claims, which `data` may be a view of (a mapped file)."""
    flat = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    at = 0

    def read(n: int) -> bytes:
        nonlocal at
        piece = flat[at: at + n].tobytes()
        at += len(piece)
        return piece

    return faiss.read_index(faiss.PyCallbackIOReader(read, 8 << 20))
