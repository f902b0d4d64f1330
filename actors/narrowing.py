"""A policy or registry given to a cluster started on a store that has its own (`vault-ray up --store
PATH --policy FILE`, `connect(store=..., policy=...)`) is a change of it, checked as `set_policy` and
`Vault.open(policy=...)` check one: a cardinality narrowed from `many` to `one` for an entity whose
values are at odds is refused (engine/cardinality.py), nothing changed. The control actor starts the
shards on the saved policy, checks the change against their claims, and stores it only then."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ray

from vault_ray.models import Claim, EntityView
from vault_ray.storage.layout import partition_of

from .assignment import ClusterState


class ShardReads:
    """The shards' reads `check_narrowing` needs (views, every claim), from the control actor."""

    def __init__(self, shards: dict[str, Any], state: ClusterState, partitions: int) -> None:
        self.shards, self.state, self.partitions = shards, state, partitions

    def views(self, entities: Iterable[str]) -> dict[str, EntityView]:
        by_shard: dict[str, list[str]] = {}
        for e in dict.fromkeys(entities):
            by_shard.setdefault(self.state.assignment[partition_of(e, self.partitions)], []).append(e)
        out: dict[str, EntityView] = {}
        for found in ray.get([self.shards[name].views.remote(keys) for name, keys in by_shard.items()]):
            out.update(found)
        return out

    def all_claims(self) -> list[Claim]:
        names = list(self.state.shards)
        parts = ray.get([self.shards[n].all_claims.remote(self.state.partitions_of(n)) for n in names])
        return [c for part in parts for c in part]
