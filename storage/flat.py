"""`FlatIndex` (kind "flat", the default): exact inner-product search (FAISS `knn`).

The rows live in two dense matrices, `_Pool`s: the tagged subset (entity
representatives, one row per entity) and the rest. Entity resolution scans the tagged
pool only, so its cost follows the number of entities, not of claims: a store whose
entities hold several active claims each, or one whose free-text notes all sit on one
entity, compares each new label with one vector per entity. A search of every row scans
both pools and merges their top k. Tagging a row moves it to the other pool (one row
copied); `add(..., tagged=)` puts new rows in the tagged pool at once, so opening a
store copies no row twice.

A pool stays dense: a removal moves the pool's last row into the hole (O(1) per row;
FAISS's own `remove_ids` moves every later row), so a search scans exactly the live rows
and no query needs padding. A pool that fell to a quarter of its room gives the rest back.
"""

from __future__ import annotations

from collections.abc import Iterable

import faiss
import numpy as np

from ..cores import idle_cores
from .prescan import SPLIT_ROWS, copies_for
from .vector_index import SCAN_ELEMENTS, _ids, _incoming, _Slots, _threads_for, most_threads


class _Pool:
    """Dense rows [0, n) of unit vectors, each with its id."""

    MIN_ROWS = 1024
    PRESCAN_ROWS = 16_384
    """From this many rows, a search of a few queries scans low-precision copies first
    (prescan.py); they are made at the first such search (or by the housekeeping) and
    dropped below half as many rows."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.data = np.zeros((0, dim), np.float32)
        self.n = 0
        self.slots = _Slots()
        self.copies: tuple = ()

    def rows(self, ids: np.ndarray) -> np.ndarray:
        return self.slots.rows(ids)

    def live_ids(self) -> np.ndarray:
        return self.slots.id_at[: self.n].copy()

    def reserve(self, rows: int) -> None:
        """Room for `rows` rows and as many again, in one allocation (untouched capacity is
        zero pages that take no memory until rows land there)."""
        if rows > len(self.data):
            self._resize(2 * rows)

    def _resize(self, capacity: int) -> None:
        grown = np.zeros((capacity, self.dim), np.float32)
        grown[: self.n] = self.data[: self.n]
        self.data = grown
        for copy in self.copies:
            copy.shrink(self.n)

    def row(self, rid: int) -> int:
        return int(self.slots.row_of[rid]) if rid < len(self.slots.row_of) else -1

    def add_one(self, rid: int, vec: np.ndarray) -> None:
        """`add` of one id in plain Python (a single write's step: numpy's per-call cost
        would be most of it)."""
        row, slots = self.row(rid), self.slots
        if row < 0:
            row = self.n
            if row >= len(self.data):
                self._resize(max(row + 1, 2 * len(self.data), self.MIN_ROWS))
            if rid < len(slots.row_of) and row < len(slots.id_at):
                slots.row_of[rid], slots.id_at[row] = row, rid
            else:
                slots.put(np.array([rid], np.int64), np.array([row], np.int64))
            self.n += 1
        self.data[row] = vec
        for copy in self.copies:
            copy.put(row, self.data)

    def add(self, ids: np.ndarray, vecs: np.ndarray) -> None:
        """Add or replace (ids distinct)."""
        if len(ids) == 1:
            self.add_one(int(ids[0]), vecs[0])
            return
        rows = self.slots.rows(ids)
        new = rows < 0
        fresh = int(new.sum())
        if fresh:
            if self.n + fresh > len(self.data):
                self._resize(max(self.n + fresh, 2 * len(self.data), self.MIN_ROWS))
            rows[new] = np.arange(self.n, self.n + fresh)
            self.slots.put(ids[new], rows[new])
            self.n += fresh
        if rows[-1] - rows[0] == len(rows) - 1 and (np.diff(rows) == 1).all():
            run = slice(int(rows[0]), int(rows[-1]) + 1)
            self.data[run] = vecs  # one run (a bulk load): no fancy indexing
        else:
            run, self.data[rows] = rows, vecs
        for copy in self.copies:
            copy.put(run, self.data)

    def remove(self, ids: np.ndarray) -> np.ndarray:
        """Drop the present ones; returns their vectors (in the order of the ids dropped)."""
        if len(ids) == 1:
            return self._remove_one(int(ids[0]))
        ids, rows = self.slots.drop(ids)
        if not len(rows):
            return np.zeros((0, self.dim), np.float32)
        if len(rows) > 1:
            ids, first = np.unique(ids, return_index=True)
            rows = rows[first]
        gone = self.data[rows].copy()
        end = self.n - len(rows)
        holes = rows[rows < end]
        if len(holes):  # the live rows past the new end fill the holes before it
            tail = np.arange(end, self.n)
            movers = tail[self.slots.id_at[tail] >= 0]
            self.data[holes] = self.data[movers]
            for copy in self.copies:
                copy.put(holes, self.data)
            moved = self.slots.id_at[movers]
            self.slots.id_at[holes], self.slots.row_of[moved] = moved, holes
            self.slots.id_at[movers] = -1
        self.n = end
        self._give_back()
        return gone

    def _remove_one(self, rid: int) -> np.ndarray:
        """`remove` of one id in plain Python (a single write's step: numpy's per-call cost
        would be most of it)."""
        slots, row = self.slots, self.row(rid)
        if row < 0:
            return np.zeros((0, self.dim), np.float32)
        gone = self.data[row: row + 1].copy()
        last = self.n - 1
        if row != last:
            moved = int(slots.id_at[last])
            self.data[row] = self.data[last]
            for copy in self.copies:
                copy.put(row, self.data)
            slots.id_at[row], slots.row_of[moved] = moved, row
        slots.id_at[last], slots.row_of[rid] = -1, -1
        self.n = last
        self._give_back()
        return gone

    def prepare_copies(self) -> tuple:
        """The low-precision copies, made now if the pool is large enough to scan them."""
        if not self.copies and self.n >= self.PRESCAN_ROWS:
            self.copies = copies_for(self.data, self.n)
        return self.copies

    def _give_back(self) -> None:
        """A pool that fell to a quarter of its room keeps twice its rows."""
        if self.copies and 2 * self.n < self.PRESCAN_ROWS:
            self.copies = ()
        if len(self.data) > self.MIN_ROWS and 4 * self.n < len(self.data):
            self._resize(max(2 * self.n, self.MIN_ROWS))

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        return self.data[rows]

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, self.n)
        if k <= 0:
            return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
        _threads_for(len(queries))
        copies = self.prepare_copies() if queries.size <= SCAN_ELEMENTS else ()  # a few queries: the scan's path
        if copies:
            scores, rows = self._prescan(copies, queries, k)
        else:
            scores, rows = faiss.knn(queries, self.data[: self.n], k, faiss.METRIC_INNER_PRODUCT)
        return scores, np.where(rows >= 0, self.slots.id_at[np.maximum(rows, 0)], -1)

    def _prescan(self, copies: tuple, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Each copy in turn settles what it can prove; the float32 scan the rest."""
        scores, rows = np.zeros((len(queries), k), np.float32), np.zeros((len(queries), k), np.int64)
        todo = np.arange(len(queries))
        threads = scan_threads(self.n)
        for copy in copies:
            if copy.resting():
                continue
            s, r, settled = copy.search(queries[todo], self.data, self.n, k, threads)
            scores[todo[settled]], rows[todo[settled]] = s[settled], r[settled]
            todo = todo[~settled]
            if not len(todo):
                return scores, rows
        scores[todo], rows[todo] = faiss.knn(queries[todo], self.data[: self.n], k, faiss.METRIC_INNER_PRODUCT)
        return scores, rows


def scan_threads(rows: int) -> int:
    """2 when a scan of `rows` rows is worth two halves (`prescan.SPLIT_ROWS`), the process
    may use two threads (a shard actor may not: `set_threads`) and no other thread, this
    process's included, wants the second core now (`idle_cores`); else 1."""
    return 2 if rows >= SPLIT_ROWS and most_threads() >= 2 and idle_cores() >= 2 else 1


def _member(ids: np.ndarray, of: Iterable[int] | np.ndarray | None) -> np.ndarray:
    """Which of `ids` are in `of`."""
    if of is None:
        return np.zeros(len(ids), bool)
    wanted = _ids(of if isinstance(of, np.ndarray) else list(of))
    if len(ids) * len(wanted) <= 64:  # a single write: no numpy set machinery
        small = set(wanted.tolist())
        return np.fromiter((i in small for i in ids.tolist()), bool, len(ids))
    if not len(ids) or not len(wanted):
        return np.zeros(len(ids), bool)
    end = int(max(ids.max(), wanted.max())) + 1
    if end > 64 * (len(ids) + len(wanted)) + 4096:  # sparse ids: sort-based
        return np.isin(ids, wanted)
    lookup = np.zeros(end, bool)  # a host's ids are dense small integers: a table is O(n)
    lookup[wanted] = True
    return lookup[ids]


class FlatIndex:
    """Exact inner-product search, the tagged subset in a pool of its own (see the module docstring).

    One caller at a time: a search may remake the low-precision copies, so concurrent
    calls (even searches) must be serialized by the caller, as a vault does under its
    host index's lock."""

    kind = "flat"

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.reset()

    def reset(self) -> None:
        self._plain, self._tagged = _Pool(self.dim), _Pool(self.dim)

    def __len__(self) -> int:
        return self._plain.n + self._tagged.n

    def tagged_count(self) -> int:
        return self._tagged.n

    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray,
            tagged: Iterable[int] | np.ndarray | None = None) -> None:
        """Add (or replace) vectors; `tagged`: ids of this add that join the tagged subset
        (as `tag(ids, True)` after it). A replaced vector keeps its tag."""
        if len(rids) == 0:
            return
        ids, vecs = _incoming(rids, vectors, self.dim)
        if len(ids) == 1:  # a single write's row
            rid = int(ids[0])
            if self._tagged.row(rid) >= 0 or (tagged is not None and _member(ids, tagged)[0]):
                self._plain.remove(ids)
                self._tagged.add_one(rid, vecs[0])
            else:
                self._plain.add_one(rid, vecs[0])
            return
        into = self._tagged.rows(ids) >= 0
        if tagged is not None:
            into |= _member(ids, tagged)
        if not into.any():
            self._plain.add(ids, vecs)
            return
        if into.all():
            self._plain.remove(ids)
            self._tagged.add(ids, vecs)
            return
        self._plain.remove(ids[into])
        self._tagged.add(ids[into], vecs[into])
        self._plain.add(ids[~into], vecs[~into])

    def reserve(self, rows: int) -> None:
        """Room for `rows` rows in either pool (a reopen does not know how they split)."""
        self._plain.reserve(rows)
        self._tagged.reserve(rows)

    def remove(self, rids: list[int] | np.ndarray) -> None:
        if len(rids) == 0:
            return
        ids = _ids(rids)
        self._plain.remove(ids)
        self._tagged.remove(ids)

    def tag(self, rids: list[int] | np.ndarray, on: bool) -> None:
        """Move present ids into the tagged pool (`on`) or out of it."""
        if len(rids) == 0:
            return
        ids = _ids(rids)
        source, target = (self._plain, self._tagged) if on else (self._tagged, self._plain)
        if len(ids) == 1:
            rid = int(ids[0])
            if source.row(rid) >= 0:
                target.add_one(rid, source.remove(ids)[0])
            return
        present = ids[source.rows(ids) >= 0]
        if len(present):
            if len(present) > 1:
                present = np.unique(present)
            target.add(present, source.remove(present))

    def tagged_mask(self, rids: np.ndarray) -> np.ndarray:
        return self._tagged.rows(_ids(rids)) >= 0

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        return merge(self._tagged.search(q, k), self._plain.search(q, k), k)

    def search_tagged(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        return self._tagged.search(np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim), k)

    def vectors(self, rids: list[int] | np.ndarray) -> np.ndarray:
        ids = _ids(rids)
        out = np.empty((len(ids), self.dim), np.float32)
        missing = np.ones(len(ids), bool)
        for pool in (self._tagged, self._plain):
            rows = pool.rows(ids)
            here = rows >= 0
            if here.any():
                out[here] = pool.vectors_at(rows[here])
                missing &= ~here
        if missing.any():
            raise KeyError(f"ids not in the index: {ids[missing].tolist()}")
        return out

    def live_ids(self) -> np.ndarray:
        return np.concatenate([self._tagged.live_ids(), self._plain.live_ids()])

    def ids(self) -> set[int]:
        return set(self.live_ids().tolist())

    MAINTAIN_LOCKED = True
    """Its housekeeping is short and changes the pools: the host runs it under its lock."""

    def maintain(self, busy: bool = False) -> bool:
        """While no write is under way, make the byte and float16 copies of a pool that will
        scan them (about 0.2 s per 100,000 rows), so that no search after an open pays for it."""
        if not busy:
            for pool in (self._tagged, self._plain):
                pool.prepare_copies()
        return False

    def export(self) -> dict[str, np.ndarray]:
        ids = self.live_ids()
        return {"ids": ids, "vectors": self.vectors(ids)}

    @classmethod
    def restore(cls, dim: int, arrays: dict[str, np.ndarray]) -> FlatIndex:
        index = cls(dim)
        index.add(arrays["ids"], arrays["vectors"])
        return index

    def close(self) -> None:
        self.reset()


def merge(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The top k of two result sets of the same queries (rid -1 pads)."""
    if not b[1].shape[1]:
        return a
    if not a[1].shape[1]:
        return b
    scores = np.concatenate([np.where(a[1] >= 0, a[0], -np.inf), np.where(b[1] >= 0, b[0], -np.inf)], axis=1)
    ids = np.concatenate([a[1], b[1]], axis=1)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    picked = np.take_along_axis(ids, top, axis=1)
    kept = np.take_along_axis(scores, top, axis=1)
    count = min(k, int((ids >= 0).sum(axis=1).min()))
    return kept[:, :count].astype(np.float32), picked[:, :count]
