"""Storage for one partition: the claim log (DuckDB, Parquet export) and the
vector index over its active claims (FAISS)."""

from .claim_log import ChangeSet, ClaimLog, Event
from .vector_index import VectorIndex

__all__ = ["ChangeSet", "ClaimLog", "Event", "VectorIndex"]
