"""The vector index kinds a store can use, by name (the store's `index` setting)."""

from __future__ import annotations

import numpy as np

from .flat import FlatIndex
from .hnsw import HnswIndex
from .vector_index import VectorIndex

INDEX_KINDS: dict[str, type[FlatIndex] | type[HnswIndex]] = {"flat": FlatIndex, "hnsw": HnswIndex}


def new_index(kind: str, dim: int) -> VectorIndex:
    return INDEX_KINDS[kind](dim)


def restore_index(kind: str, dim: int, arrays: dict[str, np.ndarray]) -> VectorIndex:
    return INDEX_KINDS[kind].restore(dim, arrays)
