"""Storage: the claim log of a partition (a write-ahead journal in front of DuckDB;
Parquet export), the vector index over its active claims (FAISS flat or HNSW), the
store's directory layout, and a read-only reader of a store's logs. Imports only the
leaves of the core (models, errors)."""

from .claim_log import ChangeSet, ClaimLog, DuckDBClaimLog, PartitionImage
from .flat import FlatIndex
from .hnsw import HnswIndex
from .indexes import INDEX_KINDS, new_index, restore_index
from .reader import StoreReader
from .vector_index import VectorIndex

__all__ = ["INDEX_KINDS", "ChangeSet", "ClaimLog", "DuckDBClaimLog", "FlatIndex", "HnswIndex", "PartitionImage",
           "StoreReader", "VectorIndex", "new_index", "restore_index"]
