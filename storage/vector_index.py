"""Vector indexes over unit vectors keyed by non-negative integer ids (a host's rows:
rid x partitions + partition): inner product is cosine.

`VectorIndex` is the protocol the engine uses. Two kinds:

- `FlatIndex` (kind "flat", the default): exact search (FAISS `knn` over a numpy
  matrix this class owns, grown by doubling). A removed
  id frees its row, which the next add reuses, so a remove costs O(1) instead of
  compacting the whole matrix (FAISS's own `remove_ids` moves every later row).
  Freed rows must never be found: each row carries one extra coordinate, 0 on live
  rows and -1 on free ones, and each query carries 4 there, so a free row scores -4,
  below any cosine, and the exact BLAS path stays intact.
- `HnswIndex` (kind "hnsw", hnsw.py): approximate search on an HNSW graph.

Both keep a tagged subset of their ids (`tag`, `search_tagged`): entity resolution
searches the representative claim of each entity, a subset of the claims index,
without a second copy of the vectors. The flat index gives each row a second extra
coordinate (0 tagged, -1 not) that a tagged query weighs by 4; HNSW filters by a
second bitmap.

Both export their contents as named arrays (`export()` / `restore(dim, arrays)`), so a
host can save its HNSW graph beside the logs and reopen without rebuilding it.

Threads: a search of fewer than `BATCH_QUERIES` queries runs on one OpenMP thread;
OpenMP's spinning threads on a loaded 2-core machine turned a 5 ms search into a
second. Larger batches use up to `set_threads(n)` threads (every core by default).
"""

from __future__ import annotations

from typing import Protocol

import faiss
import numpy as np

# FAISS's exact search takes one of two paths: a SIMD scan (one query: 5.8 ms over 100k
# vectors of 386 floats on the project's machine) or BLAS blocks (25 ms for that one query,
# but about 5x faster than the scan from 16 queries up). Since faiss 1.9 or so the switch
# counts query *elements* (queries x dim, default 128,000: batches of up to 330 queries went
# the slow way); before, it counted queries (default 20). 1,600 elements sends up to 4 queries
# of 384 dims, or 1 of 1,536, to the scan, and every larger batch to BLAS (measured
# crossover: 4 queries of 386 floats; docs/performance.md).
_COUNTS_ELEMENTS = faiss.cvar.distance_compute_blas_threshold > 1_000
SCAN_ELEMENTS = 1_600
faiss.cvar.distance_compute_blas_threshold = SCAN_ELEMENTS if _COUNTS_ELEMENTS else 5

BATCH_QUERIES = 32
_MAX_THREADS = [faiss.omp_get_max_threads()]


def set_threads(n: int) -> None:
    """The most OpenMP threads a batched search may use (a shard actor sets 1)."""
    _MAX_THREADS[0] = max(1, int(n))


def _threads_for(queries: int) -> None:
    faiss.omp_set_num_threads(1 if queries < BATCH_QUERIES else _MAX_THREADS[0])


class VectorIndex(Protocol):
    dim: int
    kind: str

    def __len__(self) -> int: ...
    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray) -> None:
        """Add (or replace) the vectors of these ids."""
        ...
    def remove(self, rids: list[int]) -> None: ...
    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, rids), each (n, k'); k' = min(k, len(self)); rid -1 pads."""
        ...
    def vectors(self, rids: list[int]) -> np.ndarray:
        """The stored vectors of these ids (each must be present), as (n, dim)."""
        ...
    def tag(self, rids: list[int], on: bool) -> None:
        """Mark ids (present ones) as members of the tagged subset, or not; removing an id drops its tag."""
        ...
    def search_tagged(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """`search` over the tagged ids only."""
        ...
    def tagged_count(self) -> int: ...
    def ids(self) -> set[int]: ...
    def reset(self) -> None: ...
    def reserve(self, rows: int) -> None:
        """A hint: about `rows` rows are coming (an index may allocate for them at once)."""
        ...
    def maintain(self, busy: bool = False) -> bool:
        """Housekeeping that may take long (HNSW: drain its insert buffer, compact
        tombstones); True if there is more to do at once. `busy`: writes are under way,
        so do only a little (the work holds the GIL and the index)."""
        ...
    def export(self) -> dict[str, np.ndarray]: ...
    def close(self) -> None: ...


def _unit_rows(vectors: np.ndarray, n: int, dim: int) -> np.ndarray:
    return np.ascontiguousarray(vectors, dtype=np.float32).reshape(n, dim)


def _ids(rids: np.ndarray | list[int]) -> np.ndarray:
    ids = np.asarray(rids, dtype=np.int64).reshape(-1)
    if len(ids) and ids.min() < 0:
        raise ValueError(f"vector ids must be non-negative, got {int(ids.min())}")
    return ids


def _incoming(rids: np.ndarray | list[int], vectors: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids and unit vectors of an add, an id given twice keeping its last vector."""
    ids, vecs = _ids(rids), _unit_rows(vectors, len(rids), dim)
    if len(ids) < 2:  # a single write's row: nothing to deduplicate
        return ids, vecs
    keep = _last_of_each(ids)
    if len(keep) == len(ids):  # no id twice (the usual case): no copy of the vectors
        return ids, vecs
    return ids[keep], vecs[keep]


def _last_of_each(ids: np.ndarray) -> np.ndarray:
    """Positions of the last occurrence of each distinct id (a repeated id: its last vector wins)."""
    _, first_from_end = np.unique(ids[::-1], return_index=True)
    return np.sort(len(ids) - 1 - first_from_end)


def _grown(array: np.ndarray, size: int, fill: object) -> np.ndarray:
    if size <= len(array):
        return array
    out = np.full(max(size, 2 * len(array), 1024), fill, array.dtype)
    out[: len(array)] = array
    return out


class _Slots:
    """id <-> row maps as two growable arrays (ids are dense small integers: a host
    numbers its rows rid * partitions + partition), with a tag flag per id. Vectorized:
    a bulk add or remove costs numpy operations, not a Python loop."""

    def __init__(self) -> None:
        self.row_of = np.full(0, -1, np.int64)
        self.id_at = np.full(0, -1, np.int64)
        self.tagged = np.zeros(0, bool)
        self.tags = 0

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """The row of each id, -1 where absent."""
        out = np.full(len(ids), -1, np.int64)
        inside = ids < len(self.row_of)
        out[inside] = self.row_of[ids[inside]]
        return out

    def present_rows(self, ids: list[int] | np.ndarray) -> np.ndarray:
        rows = self.rows(_ids(ids))
        if (rows < 0).any():
            raise KeyError(f"ids not in the index: {_ids(ids)[rows < 0].tolist()}")
        return rows

    def put(self, ids: np.ndarray, rows: np.ndarray) -> None:
        if not len(ids):
            return
        self.row_of = _grown(self.row_of, int(ids.max()) + 1, -1)
        self.tagged = _grown(self.tagged, len(self.row_of), False)
        self.id_at = _grown(self.id_at, int(rows.max()) + 1, -1)
        self.row_of[ids], self.id_at[rows] = rows, ids

    def drop(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Forget these ids (and their tags); returns (ids, rows) of those that were present."""
        rows = self.rows(ids)
        ids, rows = ids[rows >= 0], rows[rows >= 0]
        self.row_of[ids], self.id_at[rows] = -1, -1
        self.tags -= int(self.tagged[ids].sum())
        self.tagged[ids] = False
        return ids, rows

    def tag(self, ids: np.ndarray, on: bool) -> tuple[np.ndarray, np.ndarray]:
        """Set the tag of the present ids; returns (ids, rows) whose tag changed."""
        rows = self.rows(ids)
        ids, rows = ids[rows >= 0], rows[rows >= 0]
        if len(ids) > 1:
            ids, first = np.unique(ids, return_index=True)
            rows = rows[first]
        change = self.tagged[ids] != on
        ids, rows = ids[change], rows[change]
        self.tagged[ids] = on
        self.tags += len(ids) if on else -len(ids)
        return ids, rows

    def live_ids(self) -> np.ndarray:
        return self.id_at[self.id_at >= 0]

    def tagged_ids(self, ids: np.ndarray) -> np.ndarray:
        inside = ids < len(self.tagged)
        out = np.zeros(len(ids), bool)
        out[inside] = self.tagged[ids[inside]]
        return out


class FlatIndex:
    """Exact inner-product search with O(1) removal and a tagged subset (see the module docstring)."""

    kind = "flat"
    _OFF, _QUERY = -1.0, 4.0

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.reset()

    def reset(self) -> None:
        self._data = np.zeros((0, self.dim + 2), np.float32)
        """The rows: a vector, then 0 (live) or -1 (free), then 0 (tagged) or -1 (not)."""
        self._n = 0
        self._slots = _Slots()
        self._free: list[int] = []

    def __len__(self) -> int:
        return self._n - len(self._free)

    def tagged_count(self) -> int:
        return self._slots.tags

    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray) -> None:
        if len(rids) == 0:
            return
        ids, vecs = _incoming(rids, vectors, self.dim)
        rows = self._slots.rows(ids)
        new = np.flatnonzero(rows < 0)
        reuse = min(len(new), len(self._free))
        if reuse:
            rows[new[:reuse]] = self._free[-reuse:]
            del self._free[-reuse:]
        fresh = len(new) - reuse
        if fresh:
            rows[new[reuse:]] = np.arange(self._n, self._n + fresh)
            self._n += fresh
            if self._n > len(self._data):
                # only the rows in use are copied: the spare capacity stays untouched zero pages
                # (no page faults, no RSS until used), which halves a reopen's cost of filling
                used = self._n - fresh
                grown = np.zeros((max(self._n, 2 * len(self._data), 1024), self.dim + 2), np.float32)
                grown[:used] = self._data[:used]
                self._data = grown
        self._slots.put(ids[new], rows[new])
        tag = np.where(self._slots.tagged_ids(ids), 0.0, self._OFF)
        if len(rows) == 1 or len(rows) and rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all():
            rows = slice(int(rows[0]), int(rows[-1]) + 1)  # appended in one run (a bulk load): no fancy indexing
        self._data[rows, : self.dim] = vecs
        self._data[rows, self.dim] = 0.0
        self._data[rows, self.dim + 1] = tag

    def reserve(self, rows: int) -> None:
        """Room for `rows` rows in all, in one allocation: a reopen that knows how many
        vectors are coming fills the array without growing (and copying) it on the way.
        As much again is reserved for the writes that follow: untouched capacity is zero
        pages that take no memory until rows land there, and the first growth would
        otherwise copy the whole matrix (154 MB at 100k rows) inside some write."""
        if rows > len(self._data):
            grown = np.zeros((2 * rows, self.dim + 2), np.float32)
            grown[: self._n] = self._data[: self._n]
            self._data = grown

    def remove(self, rids: list[int]) -> None:
        if len(rids) == 0:
            return
        _, rows = self._slots.drop(_ids(rids))
        self._data[rows] = 0.0
        self._data[rows, self.dim:] = self._OFF
        self._free.extend(rows.tolist())

    def tag(self, rids: list[int], on: bool) -> None:
        if len(rids):
            _, rows = self._slots.tag(_ids(rids), on)
            self._data[rows, self.dim + 1] = 0.0 if on else self._OFF

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return self._search(queries, min(k, len(self)), 0.0)

    def search_tagged(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return self._search(queries, min(k, self._slots.tags), self._QUERY)

    def _search(self, queries: np.ndarray, k: int, tag_weight: float) -> tuple[np.ndarray, np.ndarray]:
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if k <= 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        padded = np.empty((len(q), self.dim + 2), np.float32)
        padded[:, : self.dim], padded[:, self.dim], padded[:, self.dim + 1] = q, self._QUERY, tag_weight
        _threads_for(len(q))
        scores, rows = faiss.knn(padded, self._data[: self._n], k, faiss.METRIC_INNER_PRODUCT)
        return scores, np.where(rows >= 0, self._slots.id_at[np.maximum(rows, 0)], -1)

    def vectors(self, rids: list[int]) -> np.ndarray:
        return self._data[self._slots.present_rows(rids), : self.dim].copy()

    def ids(self) -> set[int]:
        return set(self._slots.live_ids().tolist())

    def maintain(self, busy: bool = False) -> bool:
        return False

    def export(self) -> dict[str, np.ndarray]:
        ids = self._slots.live_ids()
        return {"ids": ids, "vectors": self.vectors(ids)}

    @classmethod
    def restore(cls, dim: int, arrays: dict[str, np.ndarray]) -> FlatIndex:
        index = cls(dim)
        index.add(arrays["ids"], arrays["vectors"])
        return index

    def close(self) -> None:
        self.reset()
