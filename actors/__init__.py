"""Cluster mode's actors on Ray (installed as `vault_ray.actors`): the shard actors
that own partitions, the control actor that holds policy, registry and assignment,
and the operations that start and run them (`connect` creates or joins a store's
actors; `vault-ray up` calls it). Joining a running store needs none of this:
`Vault.connect` reaches the actors by name."""

from .cluster import attach, check_shards, connect, rebalance, shutdown, status
from .control import ClusterConfig, ControlActor, ShardActor
from .shard import Shard

__all__ = ["ClusterConfig", "ControlActor", "Shard", "ShardActor", "attach", "check_shards", "connect", "rebalance", "shutdown",
           "status"]
