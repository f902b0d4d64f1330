"""The `Backend` protocol: what `Vault` needs from where the partitions live."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from ..engine.partitions import Groups
from ..engine.views import Scored
from ..errors import VaultError
from ..models import Claim, Decision, Dispute, EntityView, Event
from ..policy import Policy
from ..registry import EntityRegistry


@dataclass(frozen=True)
class StoreInfo:
    """What a vault is connected to."""

    mode: str
    """"embedded" or "cluster"."""
    store: str
    partitions: int
    dim: int
    embedder: str
    namespace: str | None = None
    """The Ray namespace of a cluster-mode store."""
    index: str = "flat"
    """The vector index kind: "flat" (exact) or "hnsw" (approximate)."""


class Backend(Protocol):
    partitions: int
    dim: int

    def info(self) -> StoreInfo: ...
    def control(self, fresh: bool = True) -> tuple[Policy, EntityRegistry]:
        """The policy and registry. `fresh=False` (the write path) may answer from a cache
        that a write's reply invalidates: see ClusterBackend.control."""
        ...
    def set_policy(self, policy: Policy) -> None: ...
    def set_registry(self, registry: EntityRegistry) -> None: ...
    def write_many(self, calls: Sequence[Groups], now: datetime) -> list[dict[int, list[Decision]] | VaultError]:
        """Decide the calls in order (each alone on failure), one commit per partition."""
        ...
    def search(self, vectors: np.ndarray, k: int, *, agent: str | None = None,
               entity: str | None = None) -> list[Scored]:
        """Top-k active claims per query (of `agent`, on `entity`: filters answered exactly when selective)."""
        ...
    def nearest_entities(self, vectors: np.ndarray, k: int) -> list[list[tuple[float, str]]]:
        """Entity resolution: per query, the k entities whose representative claim is most similar."""
        ...
    def search_as_of(self, vectors: np.ndarray, k: int, at: datetime) -> list[Scored]: ...
    def entities_present(self, entities: Iterable[str]) -> set[str]: ...
    def views(self, entities: Iterable[str]) -> dict[str, EntityView]: ...
    def history(self, entity: str) -> list[Claim]: ...
    def claim(self, claim_id: str) -> Claim: ...
    def disputes(self, status: str | None) -> list[Dispute]: ...
    def dispute(self, dispute_id: str) -> Dispute: ...
    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute: ...
    def expire_disputes(self, now: datetime) -> list[Dispute]: ...
    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]: ...
    def all_claims(self) -> list[Claim]: ...
    def export_parquet(self, directory: str) -> list[str]: ...
    def check(self) -> dict[int, bool]: ...
    def close(self) -> None: ...
