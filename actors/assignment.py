"""Which shard owns which partition: a stored assignment, not a formula.

The control actor keeps it in STORE/cluster.json (written atomically, before any
shard is told), so a restarted shard or control actor reads the assignment that
was last decided. Each change bumps `epoch`; shards and clients compare epochs to
notice that a route is stale.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from vault_ray.storage.layout import read_json, write_json

STATE_FILE = "cluster.json"


@dataclass(frozen=True)
class ClusterState:
    epoch: int
    shards: tuple[str, ...]
    assignment: dict[int, str]
    """partition -> name of the shard that owns it."""
    draining: tuple[str, ...] = ()
    """Shards being retired by a rebalance: they give up their partitions, then stop."""
    control_version: int = 0
    """Version of the policy and registry last pushed to the shards."""
    head: dict[str, Any] = field(default_factory=dict)
    """The Ray head `vault-ray up` started for this cluster (pid, host, address), if any."""

    def partitions_of(self, shard: str) -> list[int]:
        return sorted(p for p, s in self.assignment.items() if s == shard)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["assignment"] = {str(p): s for p, s in sorted(self.assignment.items())}
        data["shards"], data["draining"] = list(self.shards), list(self.draining)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClusterState:
        return cls(
            epoch=int(data["epoch"]), shards=tuple(data["shards"]),
            assignment={int(p): s for p, s in data["assignment"].items()},
            draining=tuple(data.get("draining", ())), control_version=int(data.get("control_version", 0)),
            head=dict(data.get("head") or {}),
        )

    def evolve(self, **changes: Any) -> ClusterState:
        return replace(self, **changes)


def load_state(root: str | Path) -> ClusterState | None:
    data = read_json(Path(root) / STATE_FILE)
    return ClusterState.from_dict(data) if data else None


def save_state(root: str | Path, state: ClusterState) -> None:
    write_json(Path(root) / STATE_FILE, state.to_dict())


def plan(current: dict[int, str] | None, shards: list[str], partitions: int) -> dict[int, str]:
    """Spread `partitions` over `shards` evenly, moving as few as possible.

    Every shard ends with P // N or P // N + 1 partitions; a shard keeps what it
    already owns up to that quota (the shards that own most get the larger quotas),
    and only the excess and the partitions of departing shards move."""
    if not shards:
        raise ValueError("need at least one shard")
    current = dict(current or {})
    base, extra = divmod(partitions, len(shards))
    held = {s: sorted(p for p, o in current.items() if o == s and p < partitions) for s in shards}
    by_load = sorted(shards, key=lambda s: (-len(held[s]), shards.index(s)))
    quota = {s: base + (1 if i < extra else 0) for i, s in enumerate(by_load)}
    out = {p: s for s in shards for p in held[s][: quota[s]]}
    free = iter(p for p in range(partitions) if p not in out)
    for s in shards:
        for _ in range(quota[s] - len(held[s][: quota[s]])):
            out[next(free)] = s
    return dict(sorted(out.items()))


def moves(before: dict[int, str], after: dict[int, str]) -> dict[int, tuple[str | None, str]]:
    """partition -> (old owner, new owner) for every partition that changes hands."""
    return {p: (before.get(p), s) for p, s in sorted(after.items()) if before.get(p) != s}
