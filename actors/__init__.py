"""Cluster mode: partition-owning shard actors on Ray (installed as `vault_ray.actors`).

`connect(...)` is what `Vault.connect` calls. Ray is imported when one of these
names is first used, so `import vault_ray.actors` works without Ray installed.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "ClusterConfig": "control",
    "ControlActor": "control",
    "NotOwner": "shard",
    "RayBackend": "backend",
    "Shard": "shard",
    "ShardActor": "control",
    "attach": "cluster",
    "connect": "cluster",
    "rebalance": "cluster",
    "shutdown": "cluster",
    "status": "cluster",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
