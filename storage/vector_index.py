"""Vector indexes over unit vectors keyed by non-negative integer ids (a host's rows:
rid x partitions + partition): inner product is cosine.

`VectorIndex` is the protocol the engine uses. Two kinds:

- `FlatIndex` (kind "flat", the default, flat.py): exact search (FAISS `knn`) over dense
  matrices this index owns, the tagged subset in a matrix of its own.
- `HnswIndex` (kind "hnsw", hnsw.py): approximate search on an HNSW graph.

Both keep a tagged subset of their ids (`tag`, `search_tagged`): entity resolution
searches the representative claim of each entity, a subset of the claims index,
without a second copy of the vectors. The flat index keeps the tagged rows apart, so a
tagged search scans one row per entity; HNSW filters its graph by a bitmap.

Both export their contents as named arrays (`export()` / `restore(dim, arrays)`), so a
host can save its HNSW graph beside the logs and reopen without rebuilding it.

Threads: a search of fewer than `BATCH_QUERIES` queries runs on one OpenMP thread;
OpenMP's spinning threads on a loaded 2-core machine turned a 5 ms search into a
second. Larger batches use up to `set_threads(n)` threads (every core by default).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import faiss
import numpy as np

# FAISS's exact search takes one of two paths: a SIMD scan (one query: 5.8 ms over 100k
# vectors on the project's machine) or BLAS blocks (25 ms for that one query,
# but about 5x faster than the scan from 16 queries up). Since faiss 1.9 or so the switch
# counts query *elements* (queries x dim, default 128,000: batches of up to 330 queries went
# the slow way); before, it counted queries (default 20). 1,600 elements sends up to 4 queries
# of 384 dims, or 1 of 1,536, to the scan, and every larger batch to BLAS (measured
# crossover: 4 queries of 386 floats, when rows carried two flag coordinates; docs/performance.md).
_COUNTS_ELEMENTS = faiss.cvar.distance_compute_blas_threshold > 1_000
SCAN_ELEMENTS = 1_600
faiss.cvar.distance_compute_blas_threshold = SCAN_ELEMENTS if _COUNTS_ELEMENTS else 5

BATCH_QUERIES = 32
_MAX_THREADS = [faiss.omp_get_max_threads()]


def set_threads(n: int) -> None:
    """The most OpenMP threads a batched search may use (a shard actor sets 1)."""
    _MAX_THREADS[0] = max(1, int(n))


def most_threads() -> int:
    return _MAX_THREADS[0]


def _threads_for(queries: int) -> None:
    faiss.omp_set_num_threads(1 if queries < BATCH_QUERIES else _MAX_THREADS[0])


class VectorIndex(Protocol):
    dim: int
    kind: str

    def __len__(self) -> int: ...
    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray,
            tagged: Iterable[int] | np.ndarray | None = None) -> None:
        """Add (or replace) the vectors of these ids; `tagged`: those of them that join the
        tagged subset (as `tag(tagged, True)` after the add, in one step)."""
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
