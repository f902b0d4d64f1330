"""`HalfCopy`: a float16 copy of a flat pool's rows, scanned first by a small exact search.

One query over 100,000 rows of 384 float32 reads 146 MB, and the scan runs at the
memory's speed (two threads are no faster than one on the project's 2-core machine). A
float16 copy is half the bytes: FAISS scans it (`IndexScalarQuantizer`, `QT_fp16`) for
the `wide` best rows, the float32 rows of those are scored again exactly (FAISS's own
kernel, so the scores are the full scan's to the bit), and the result is exact whenever
it can be proved so:

- a stored row is a unit vector; float16 keeps each coordinate to a relative 2^-11 (an
  absolute 2^-25 below its normal range), so a float16 score is within 2^-11 * |q| (plus
  that and float32 rounding, both far smaller) of the true one. `BOUND` = 2^-10 * |q|
  allows twice that.
- every row left out of the `wide` scored at most the last of them in float16, so truly
  at most that plus the bound. When the k-th exact score of the candidates reaches it, no
  row left out can beat the result; when it does not (a query with more than `wide` rows
  within the bound of its k-th: near-identical rows), the query is scanned in float32
  after all (`fallbacks` counts them).
"""

from __future__ import annotations

import faiss
import numpy as np

BOUND = 2.0**-10
"""Twice the largest difference between a float16 and a float32 score of unit vectors."""
WIDEN = 4
MIN_CANDIDATES = 32
"""The float16 scan keeps max(WIDEN * k, MIN_CANDIDATES) rows per query."""


GROWTH = 1.25
"""Room made ahead when the copy grows (FAISS's buffer is a std::vector, zero-filled and so
resident as soon as it is made: the copy holds about the live rows, not the pool's room)."""


class HalfCopy:
    """Rows [0, capacity) of a pool's float32 matrix in float16, in FAISS's own buffer (the
    pool writes each changed row here as it writes it there)."""

    def __init__(self, data: np.ndarray, n: int) -> None:
        self.dim = data.shape[1]
        self.index = faiss.IndexScalarQuantizer(self.dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
        self.index.is_trained = True
        self.rows = np.zeros((0, self.dim), np.float16)
        self.fallbacks = 0
        self.resize(n)
        self.rows[:n] = data[:n]

    def resize(self, capacity: int) -> None:
        """Room for `capacity` rows (the rows kept keep their values)."""
        size = capacity * self.index.code_size
        self.index.codes.resize(size)  # may move the buffer: the view is taken again
        raw = faiss.rev_swig_ptr(self.index.codes.data(), size) if size else np.zeros(0, np.uint8)
        self.rows = raw.view(np.float16).reshape(capacity, self.dim)

    def put(self, rows: slice | np.ndarray | int, data: np.ndarray) -> None:
        end = rows.stop if isinstance(rows, slice) else int(np.max(rows)) + 1
        if end > len(self.rows):
            self.resize(max(end, int(GROWTH * len(self.rows))))
        self.rows[rows] = data[rows]

    def shrink(self, n: int) -> None:
        """Give back the room past `GROWTH` times the pool's `n` rows."""
        if len(self.rows) > GROWTH * n + 1024:
            self.resize(int(GROWTH * n))

    def search(self, queries: np.ndarray, data: np.ndarray, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The exact top k (scores, rows) of data[:n] per query; 0 < k <= n."""
        wide = min(n, max(WIDEN * k, MIN_CANDIDATES))
        self.index.ntotal = n
        approx, found = self.index.search(queries, wide)
        scores, rows = np.empty((len(queries), k), np.float32), np.empty((len(queries), k), np.int64)
        for i, query in enumerate(queries):
            q = query[None, :]
            candidates = found[i][found[i] >= 0]
            s, r = faiss.knn(q, data[candidates], k, faiss.METRIC_INNER_PRODUCT)
            if wide < n and s[0, -1] < approx[i, wide - 1] + BOUND * float(np.linalg.norm(query)):
                self.fallbacks += 1
                scores[i], rows[i] = (a[0] for a in faiss.knn(q, data[:n], k, faiss.METRIC_INNER_PRODUCT))
            else:
                scores[i], rows[i] = s[0], candidates[r[0]]
        return scores, rows
