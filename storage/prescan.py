"""Low-precision copies of a flat pool's rows, scanned first by a small exact search.

One query over 100,000 rows of 384 float32 reads 146 MB, and the scan runs at the
memory's speed (two threads are no faster than one on the project's 2-core machine). A
copy in fewer bytes is scanned instead for the `wide` best rows; the float32 rows of
those are scored again exactly (FAISS's own kernel, so the scores are the full scan's to
the bit), and the result is kept only when it can be proved exact:

- every copy knows a bound on how far its score of a row can be from the true one;
- every row left out of the `wide` scored at most the last of them in the copy, so truly
  at most that plus the bound. When the k-th exact score of the candidates is above it,
  no row left out can beat the result; when it is not (a query with more than `wide`
  rows within the bound of its k-th: near-identical rows), the query goes to the next
  copy, and after the last to the float32 scan (`fallbacks` counts them).

Two copies, tried in this order:

- `ByteCopy`, one signed byte per coordinate (FAISS `QT_8bit_direct_signed`, whose
  scan multiplies bytes by bytes: the query is rounded to bytes too). A quarter of the
  bytes and a quarter of float16's scan time (1.8-2.0 ms against 8.0-8.5 ms over 100,000
  rows of 384 on the project's machine), but a loose bound (about 0.01-0.05 for unit
  vectors): it settles queries whose k-th row stands clear of the 256th.
- `HalfCopy`, float16 (`QT_fp16`): a bound of 2^-10 * |q|; it settles nearly every
  query the byte copy could not.

Scans of `SPLIT_ROWS` rows or more can run in two halves on two threads (`scan`): the
flat index asks for it only while a second core is free (flat.py, `scan_threads`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import faiss
import numpy as np

WIDEN = 4
MAX_REST = 64
"""A copy that settled none of a search's queries sits out the next 1, 3, 7, ... searches,
up to this many (one that settles a query rests no more): where its bound is too loose for
the data it costs a 64th of its scan, not a whole one per search."""
SPLIT_ROWS = 32_768
"""From this many rows a scan may run in two halves, one on a helper thread: over 100,000
rows of 384 the byte copy's scan of one query takes 0.97 ms split, 1.57 ms whole (the
project's machine, quiet), and a write to a new entity of a 100k-entity store 2.7 ms
against 3.4-4.0 (docs/performance.md, "Two threads for a large scan")."""
GROWTH = 1.25
"""Room made ahead when a copy grows (FAISS's buffer is a std::vector, zero-filled and so
resident as soon as it is made: a copy holds about the live rows, not the pool's room)."""


class _Copy:
    """Rows [0, capacity) of a pool's float32 matrix in FAISS's own buffer of a scalar
    quantizer index (the pool writes each changed row here as it writes it there)."""

    QTYPE: int
    DTYPE: type
    MIN_CANDIDATES: int
    """The scan keeps max(WIDEN * k, MIN_CANDIDATES) rows per query."""

    def __init__(self, data: np.ndarray, n: int) -> None:
        self.dim = data.shape[1]
        self.index = faiss.IndexScalarQuantizer(self.dim, self.QTYPE, faiss.METRIC_INNER_PRODUCT)
        self.index.is_trained = True
        self.rows = np.zeros((0, self.dim), self.DTYPE)
        self.fallbacks = 0
        self.rest = self.span = 0
        self.resize(n)
        self.put(slice(0, n), data)

    def resize(self, capacity: int) -> None:
        """Room for `capacity` rows (the rows kept keep their values)."""
        size = capacity * self.index.code_size
        self.index.codes.resize(size)  # may move the buffer: the view is taken again
        raw = faiss.rev_swig_ptr(self.index.codes.data(), size) if size else np.zeros(0, np.uint8)
        self.rows = raw.view(self.DTYPE).reshape(capacity, self.dim)

    def put(self, rows: slice | np.ndarray | int, data: np.ndarray) -> None:
        end = rows.stop if isinstance(rows, slice) else int(np.max(rows)) + 1
        if end > len(self.rows):
            self.resize(max(end, int(GROWTH * len(self.rows))))
        self.rows[rows] = self.encode(data[rows])

    def shrink(self, n: int) -> None:
        """Give back the room past `GROWTH` times the pool's `n` rows."""
        if len(self.rows) > GROWTH * n + 1024:
            self.resize(int(GROWTH * n))

    def resting(self) -> bool:
        """Whether to leave this search to the next copy (see `MAX_REST`)."""
        if self.rest:
            self.rest -= 1
            return True
        return False

    def encode(self, block: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def scan(self, queries: np.ndarray, n: int, wide: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(approximate scores, rows, bound per query) of the `wide` best of rows [0, n)."""
        raise NotImplementedError

    def search(self, queries: np.ndarray, data: np.ndarray, n: int, k: int,
               threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scores, rows, settled): the exact top k of data[:n] for each query whose
        answer the bound proves (`settled`); 0 < k <= n. `threads` 2: scan in two halves."""
        wide = min(n, max(WIDEN * k, self.MIN_CANDIDATES))
        approx, found, bound = self.scan(queries, n, wide, threads)
        scores, rows = np.zeros((len(queries), k), np.float32), np.zeros((len(queries), k), np.int64)
        settled = np.zeros(len(queries), bool)
        for i, query in enumerate(queries):
            candidates = np.sort(found[i][found[i] >= 0])  # in row order: ties break as in the full scan
            s, r = faiss.knn(query[None, :], data[candidates], k, faiss.METRIC_INNER_PRODUCT)
            if wide == n or s[0, -1] > approx[i, wide - 1] + bound[i]:
                scores[i], rows[i], settled[i] = s[0], candidates[r[0]], True
            else:
                self.fallbacks += 1
        self.span = 0 if settled.any() else min(2 * self.span + 1, MAX_REST)
        self.rest = self.span
        return scores, rows, settled


class HalfCopy(_Copy):
    """float16. A stored row is a unit vector; float16 keeps each coordinate to a relative
    2^-11 (an absolute 2^-25 below its normal range), so a float16 score is within
    2^-11 * |q| (plus that and float32 rounding, both far smaller) of the true one.
    `BOUND` = 2^-10 * |q| allows twice that."""

    QTYPE = faiss.ScalarQuantizer.QT_fp16
    DTYPE = np.float16
    MIN_CANDIDATES = 32
    BOUND = 2.0**-10

    def encode(self, block: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(block, dtype=np.float32).reshape(-1, self.dim)
        return self.index.sa_encode(rows).view(np.float16).reshape(block.shape)  # FAISS's: twice numpy's speed

    def scan(self, queries: np.ndarray, n: int, wide: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        approx, found = scan(self.index, queries, n, wide, threads)
        return approx, found, self.BOUND * np.linalg.norm(queries, axis=1)


class ByteCopy(_Copy):
    """Signed bytes: a row x is kept as c = round(s * x), s = 127 / (`HEADROOM` * the
    largest coordinate when the copy was made), and a query q as p = round(t * q), t = 127 /
    its largest coordinate. FAISS sums p * c in integers (exact below 2^24: `MAX_DIM`), and
    the score p.c / (s t) differs from q.x by at most

        |q.(x - c/s)| + |(q - p/t).c/s|  <=  ||q||_1 * 0.5/s + (||c||_1 / s) * 0.5/t

    with ||c||_1 taken at its largest over the rows kept (`l1`). A row with a coordinate
    past the range (127 / s) makes the copy stale: it is made again, with a new scale, at
    the next search."""

    QTYPE = faiss.ScalarQuantizer.QT_8bit_direct_signed
    DTYPE = np.uint8
    MIN_CANDIDATES = 256
    HEADROOM = 1.25
    MAX_DIM = (1 << 24) // (127 * 127)
    """Past this many coordinates a byte score may be rounded in float32: no byte copy."""
    CHUNK = 1024
    """Rows encoded at a time when many are written (a whole pool): cache-sized steps."""

    def __init__(self, data: np.ndarray, n: int) -> None:
        largest = max(float(data[:n].max()), -float(data[:n].min())) if n else 0.0
        self.scale = 127.0 / (self.HEADROOM * largest) if largest > 0 else 127.0
        self.l1 = 0.0
        self.stale = False
        super().__init__(data, n)

    def put(self, rows: slice | np.ndarray | int, data: np.ndarray) -> None:
        if isinstance(rows, slice) and rows.stop - rows.start > self.CHUNK:
            for start in range(rows.start, rows.stop, self.CHUNK):
                super().put(slice(start, min(start + self.CHUNK, rows.stop)), data)
        else:
            super().put(rows, data)

    def encode(self, block: np.ndarray) -> np.ndarray:
        codes = block * np.float32(self.scale)
        np.rint(codes, out=codes)
        if not codes.size:
            return codes.astype(np.uint8)
        if float(codes.max()) > 127 or float(codes.min()) < -127:
            self.stale = True  # kept clipped until the next search makes the copy again
            np.clip(codes, -127, 127, out=codes)
        signed = codes.astype(np.int8)
        self.l1 = max(self.l1, int(np.abs(signed).sum(axis=-1, dtype=np.int32).max()))
        unsigned = signed.view(np.uint8)
        unsigned ^= 0x80  # c + 128: FAISS's byte for c
        return unsigned

    def remake(self, data: np.ndarray, n: int) -> None:
        """A new scale from the rows [0, n), and every row again."""
        kept = self.fallbacks, self.rest, self.span
        self.__init__(data, n)  # type: ignore[misc]
        self.fallbacks, self.rest, self.span = kept

    def scan(self, queries: np.ndarray, n: int, wide: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top = np.maximum(np.abs(queries).max(axis=1), np.float32(1e-30))
        t = (127.0 / top).astype(np.float64)
        found_scores, found = scan(self.index, np.rint(queries * t[:, None]).astype(np.float32), n, wide, threads)
        approx = found_scores / (self.scale * t[:, None])
        bound = np.abs(queries).sum(axis=1) * (0.5 / self.scale) + (self.l1 / self.scale) * (0.5 / t)
        return approx, found, bound * 1.001 + 1e-4 * np.linalg.norm(queries, axis=1)

    def search(self, queries: np.ndarray, data: np.ndarray, n: int, k: int,
               threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.stale:
            self.remake(data, n)
        return super().search(queries, data, n, k, threads)


def scan(index: faiss.Index, queries: np.ndarray, n: int, wide: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """FAISS's top `wide` of rows [0, n) of `index` per query (wide <= n). With `threads` 2
    and at least `SPLIT_ROWS` rows: each half's top `wide`, the later half on the helper
    thread, merged. Any row left out scored at most the last kept, as in one scan, which is
    all the bound of a copy needs (the candidates are scored again exactly)."""
    index.ntotal = n
    if threads < 2 or n < SPLIT_ROWS:
        return index.search(queries, wide)
    half = n // 2
    later = _helper().submit(_part, index, queries, half, n, wide)
    try:
        first = _part(index, queries, 0, half, wide)
    finally:
        second = later.result()
    scores, rows = np.concatenate([first[0], second[0]], axis=1), np.concatenate([first[1], second[1]], axis=1)
    best = np.argsort(-scores, axis=1, kind="stable")[:, :wide]
    return np.take_along_axis(scores, best, axis=1), np.take_along_axis(rows, best, axis=1)


def _part(index: faiss.Index, queries: np.ndarray, start: int, stop: int, wide: int) -> tuple[np.ndarray, np.ndarray]:
    """The top min(wide, stop - start) of rows [start, stop) (FAISS skips the others unread)."""
    chosen = faiss.IDSelectorRange(start, stop)
    params = faiss.SearchParameters(sel=chosen)
    return index.search(queries, min(wide, stop - start), params=params)


_helpers: dict[int, ThreadPoolExecutor] = {}


def _helper() -> ThreadPoolExecutor:
    """This process's scan thread (one OpenMP thread; made again in a forked child, whose
    copy of the parent's executor has no thread behind it)."""
    pid = os.getpid()
    if pid not in _helpers:
        _helpers.clear()
        _helpers[pid] = ThreadPoolExecutor(1, thread_name_prefix="vault-ray-scan",
                                           initializer=faiss.omp_set_num_threads, initargs=(1,))
    return _helpers[pid]


def copies_for(data: np.ndarray, n: int) -> tuple[_Copy, ...]:
    """The copies a pool of these rows scans, in order (no byte copy past `MAX_DIM`)."""
    half = HalfCopy(data, n)
    return (ByteCopy(data, n), half) if data.shape[1] <= ByteCopy.MAX_DIM else (half,)
