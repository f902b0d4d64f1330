"""Storage: the claim log of a partition (DuckDB; Parquet export), the vector index
over its active claims (FAISS), the store's directory layout, and a read-only reader
of a store's logs. Imports only the leaves of the core (models, errors)."""

from .claim_log import ChangeSet, ClaimLog, DuckDBClaimLog
from .reader import StoreReader
from .vector_index import FlatIndex, VectorIndex

__all__ = ["ChangeSet", "ClaimLog", "DuckDBClaimLog", "FlatIndex", "StoreReader", "VectorIndex"]
