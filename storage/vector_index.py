"""Vector indexes over one partition's active claims.

`VectorIndex` is the protocol the engine uses: rows are claim rids, vectors are unit
length, so inner product is cosine. `FlatIndex` is exact FAISS search
(`IndexIDMap2(IndexFlatIP)`, which can remove ids as claims leave `active`).
"""

from __future__ import annotations

from typing import Protocol

import faiss
import numpy as np

# Batched searches go through BLAS from 20 queries up: about 10x faster than the default.
faiss.cvar.distance_compute_blas_threshold = 20


class VectorIndex(Protocol):
    dim: int

    def __len__(self) -> int: ...
    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray) -> None: ...
    def remove(self, rids: list[int]) -> None: ...
    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, rids), each (n, k'); k' = min(k, len(self)); rid -1 pads."""
        ...
    def ids(self) -> set[int]: ...
    def reset(self) -> None: ...
    def close(self) -> None: ...


class FlatIndex:
    """Exact inner-product search (FAISS flat)."""

    kind = "flat"

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, rids: np.ndarray | list[int], vectors: np.ndarray) -> None:
        if len(rids) == 0:
            return
        vecs = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(rids), self.dim)
        self._index.add_with_ids(vecs, np.asarray(rids, dtype=np.int64))

    def remove(self, rids: list[int]) -> None:
        if rids:
            self._index.remove_ids(np.asarray(rids, dtype=np.int64))

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        k = min(k, len(self))
        if k <= 0:
            return np.zeros((len(q), 0), np.float32), np.zeros((len(q), 0), np.int64)
        return self._index.search(q, k)

    def ids(self) -> set[int]:
        return set(faiss.vector_to_array(self._index.id_map).tolist())

    def reset(self) -> None:
        self._index.reset()

    def close(self) -> None:
        self._index = faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
