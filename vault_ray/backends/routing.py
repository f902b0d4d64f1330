"""Names and the one signal shared by cluster mode's client (`ClusterBackend`) and
its actors (`vault_ray.actors`). No Ray import: the shard is unit-tested without it."""

from __future__ import annotations

CONTROL_NAME = "vault-control"


def shard_name(index: int) -> str:
    return f"vault-shard-{index}"


class NotOwner(Exception):
    """A shard does not serve `partition` (not, or not yet, or no longer its own).

    Not a user-facing error: the client refreshes its routes and retries."""

    def __init__(self, shard: str, partition: int, epoch: int, opening: str = "") -> None:
        super().__init__(shard, partition, epoch, opening)
        self.shard, self.partition, self.epoch, self.opening = shard, partition, epoch, opening

    def __str__(self) -> str:
        why = f"its log is not open yet ({self.opening})" if self.opening else "it is not assigned to this shard"
        return f"shard {self.shard} (epoch {self.epoch}) does not serve partition {self.partition}: {why}"
