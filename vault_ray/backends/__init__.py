"""Where partitions live. `EmbeddedBackend` hosts them in this process;
`vault_ray.backends.cluster.ClusterBackend` reaches them in Ray shard actors (Ray is
imported only by that module, which `Vault.connect` loads). `Vault` talks to
either through the `Backend` protocol."""

from .base import Backend, BulkBackend, StoreInfo
from .embedded import EmbeddedBackend

__all__ = ["Backend", "BulkBackend", "EmbeddedBackend", "StoreInfo"]
