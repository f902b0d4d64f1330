"""Where partitions live. `LocalBackend` holds them in this process (embedded
mode); `vault_ray.actors.RayBackend` reaches them in Ray shard actors (cluster
mode). `Vault` talks to either through the same methods."""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Protocol

import numpy as np

from vault_ray.storage import Event

from .errors import ClaimNotFound, DisputeNotFound
from .layout import StoreLock, StoreMeta, init_store, partition_of, partition_path, read_json, write_json
from .models import Claim, Decision, Dispute, EntityView
from .partition import Partition
from .policy import Policy
from .reasoners.base import Reasoner
from .registry import EntityRegistry
from .txn import WriteItem

Scored = list[tuple[float, Claim]]


class Backend(Protocol):
    partitions: int
    dim: int

    def control(self) -> tuple[Policy, EntityRegistry]: ...
    def set_policy(self, policy: Policy) -> None: ...
    def set_registry(self, registry: EntityRegistry) -> None: ...
    def write(self, groups: dict[int, list[tuple[int, WriteItem]]], now: datetime) -> dict[int, list[Decision]]: ...
    def search(self, vectors: np.ndarray, k: int) -> list[Scored]: ...
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
    def close(self) -> None: ...


def merge_top(per_part: Sequence[list[Scored]], n_queries: int, k: int) -> list[Scored]:
    """Merge per-partition top-k lists into one top-k per query."""
    return [
        heapq.nlargest(k, (hit for part in per_part for hit in part[q]), key=lambda h: h[0]) for q in range(n_queries)
    ]


def dispute_partition(dispute_id: str) -> int | None:
    parts = dispute_id.split("-", 2)
    if len(parts) == 3 and parts[0] == "dsp" and parts[1].isdigit():
        return int(parts[1])
    return None


class ControlFile:
    """Policy and registry persisted as STORE/control.json."""

    def __init__(self, root: str | Path) -> None:
        self.path = Path(root) / "control.json"

    def load(self) -> tuple[Policy | None, EntityRegistry | None]:
        data = read_json(self.path)
        if not data:
            return None, None
        return Policy.from_dict(data["policy"]), EntityRegistry.from_list(data["registry"])

    def save(self, policy: Policy, registry: EntityRegistry) -> None:
        write_json(self.path, {"policy": policy.to_dict(), "registry": registry.to_list()})


class LocalBackend:
    def __init__(self, root: str | Path, *, partitions: int | None, dim: int, embedder_name: str,
                 reasoner: Reasoner, policy: Policy | None, registry: EntityRegistry | None) -> None:
        self.root = str(root)
        self._lock = StoreLock(root)
        try:
            self.meta: StoreMeta = init_store(root, partitions=partitions, dim=dim, embedder=embedder_name)
            self.partitions = self.meta.partitions
            self.dim = dim
            self.reasoner = reasoner
            self._control = ControlFile(root)
            saved_policy, saved_registry = self._control.load()
            self.policy = policy or saved_policy or Policy()
            self.registry = registry or saved_registry or EntityRegistry.builtin()
            self._control.save(self.policy, self.registry)
            self._opening = threading.Lock()
            # Partitions open lazily: a new store creates a DuckDB file only for partitions it writes.
            self._parts: dict[int, Partition] = {
                i: Partition(partition_path(root, i), number=i, dim=dim)
                for i in range(self.partitions)
                if partition_path(root, i).exists()
            }
        except BaseException:
            self._lock.release()
            raise

    @property
    def parts(self) -> list[Partition]:
        """The partitions opened so far (every partition that holds data)."""
        return [self._parts[i] for i in sorted(self._parts)]

    def part(self, number: int) -> Partition:
        found = self._parts.get(number)
        if found is None:
            with self._opening:  # two threads must not create one partition's file at once
                found = self._parts.get(number)
                if found is None:
                    found = Partition(partition_path(self.root, number), number=number, dim=self.dim)
                    self._parts[number] = found
        return found

    def _owner(self, entity: str) -> Partition | None:
        return self._parts.get(partition_of(entity, self.partitions))

    # -- control --------------------------------------------------------------------
    def control(self) -> tuple[Policy, EntityRegistry]:
        return self.policy, self.registry

    def set_policy(self, policy: Policy) -> None:
        self._control.save(policy, self.registry)
        self.policy = policy

    def set_registry(self, registry: EntityRegistry) -> None:
        self._control.save(self.policy, registry)
        self.registry = registry

    # -- writes -----------------------------------------------------------------------
    def write(self, groups: dict[int, list[tuple[int, WriteItem]]], now: datetime) -> dict[int, list[Decision]]:
        """Decide every partition's share first, then commit: an error while deciding
        (a dispute cap, a reasoner failure) leaves every partition unchanged."""
        order = sorted(groups)
        with ExitStack() as stack:
            for p in order:
                stack.enter_context(self.part(p).lock)
            prepared = {
                p: self.part(p).prepare([item for _, item in groups[p]], self.policy, self.reasoner, now)
                for p in order
            }
            for p in order:
                self.part(p).commit(prepared[p][0])
        return {p: prepared[p][1] for p in order}

    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute:
        part = self._dispute_owner(dispute_id)
        entity = part.get_dispute(dispute_id).entity  # type: ignore[union-attr]
        cardinality = self.policy.cardinality_for(entity, self.registry.cardinality(entity))
        return part.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both,
                                    cardinality=cardinality, now=now)

    def expire_disputes(self, now: datetime) -> list[Dispute]:
        return [d for part in self.parts for d in part.expire_disputes(self.policy, now)]

    # -- reads ---------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int) -> list[Scored]:
        per_part = [part.search(vectors, k) for part in self.parts if part.active_count()]
        return merge_top(per_part, len(vectors), k)

    def entities_present(self, entities: Iterable[str]) -> set[str]:
        return {e for e in entities if (part := self._owner(e)) is not None and part.has_entity(e)}

    def views(self, entities: Iterable[str]) -> dict[str, EntityView]:
        empty = {"active": (), "contested": False, "candidates": (), "disputes": ()}
        return {
            e: part.view(e, self.policy) if (part := self._owner(e)) is not None else EntityView(e, **empty)
            for e in entities
        }

    def history(self, entity: str) -> list[Claim]:
        part = self._owner(entity)
        return part.history(entity) if part is not None else []

    def claim(self, claim_id: str) -> Claim:
        for part in self.parts:
            try:
                return part.get_claim(claim_id)
            except ClaimNotFound:
                continue
        raise ClaimNotFound(claim_id)

    def disputes(self, status: str | None) -> list[Dispute]:
        found = [d for part in self.parts for d in part.disputes(status)]
        return sorted(found, key=lambda d: d.opened_at)

    def dispute(self, dispute_id: str) -> Dispute:
        found = self._dispute_owner(dispute_id).get_dispute(dispute_id)
        if found is None:
            raise DisputeNotFound(dispute_id)
        return found

    def _dispute_owner(self, dispute_id: str) -> Partition:
        p = dispute_partition(dispute_id) if isinstance(dispute_id, str) else None
        part = self._parts.get(p) if p is not None else None
        if part is None or part.get_dispute(dispute_id) is None:
            raise DisputeNotFound(dispute_id)
        return part

    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]:
        if entity is not None:
            part = self._owner(entity)
            return part.events(entity=entity) if part is not None else []
        found = [e for part in self.parts for e in part.events(claim_id=claim_id)]
        return sorted(found, key=lambda e: e.ts)

    def all_claims(self) -> list[Claim]:
        return [c for part in self.parts for c in part.log.all_claims()]

    def export_parquet(self, directory: str) -> list[str]:
        paths: list[str] = []
        for part in self.parts:
            with part.lock:
                paths += part.log.export_parquet(Path(directory) / f"p{part.number:04d}").values()
        return paths

    def close(self) -> None:
        try:
            for part in self.parts:
                part.close()
        finally:
            self._lock.release()


