"""A cluster-mode client (`Vault` over `ClusterBackend`) reaching real `Shard`s in this
process: no Ray is started. An actor call runs at once, and `ray.get` answers it as Ray does
(an error the actor raised comes back as a `RayTaskError` whose cause it is), so the client's
own logic is tested at its boundary with the actors (`backends/ray_calls.py`). The control
actor is a small stand-in holding what a client asks of it: the routes, the policy and registry,
the store's record of an unfinished restore (written, and told to the shards, as
`ControlActor.mark_restoring` does) and the policy and registry changes, refused as the actor
refuses them while that record is there. tests/integration runs the real cluster."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ray.exceptions import RayTaskError

from vault_ray import Vault
from vault_ray.actors.assignment import ClusterState, load_state, plan, save_state
from vault_ray.actors.shard import Shard
from vault_ray.backends import cluster, cluster_bulk, ray_calls
from vault_ray.backends.cluster import ClusterBackend
from vault_ray.backends.routing import shard_name
from vault_ray.backends.unfinished import RestoreGuard, refuses_writes, target_of
from vault_ray.engine.control import ControlFile
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.storage.layout import read_meta
from vault_ray.storage.restoring import mark_restoring, read_restoring

NAMESPACE = "in-process"


class _Answer:
    """What an actor call returned, or raised."""

    def __init__(self, call: Any) -> None:
        self.value, self.error = None, None
        try:
            self.value = call()
        except Exception as exc:  # noqa: BLE001  (handed back as Ray would)
            self.error = exc


class Handle:
    """An actor handle: `handle.method.remote(...)` runs `method` of the object now (counted in `calls`)."""

    def __init__(self, actor: object, calls: Counter[str]) -> None:
        self.actor, self.calls = actor, calls

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.actor, name)

        def remote(*args: Any, **kwargs: Any) -> _Answer:
            self.calls[name] += 1
            return _Answer(lambda: method(*args, **kwargs))

        return SimpleNamespace(remote=remote)


@refuses_writes  # as ControlActor: set_policy and set_registry refused while the restore is unfinished
class Control(RestoreGuard):
    def __init__(self, store: Path, shards: dict[str, Shard]) -> None:
        self.store, self.shards = str(store), shards
        self.unfinished = read_restoring(store)
        self.restore_where = (self.store, target_of("cluster", self.store, NAMESPACE))
        self.policy, self.registry = ControlFile(store).load()
        self.version = itertools.count(2)
        self.current = 1

    def assignment(self) -> tuple[int, dict[int, str]]:
        state = load_state(self.store)
        return state.epoch, dict(state.assignment)

    def control(self, known: int = -1, embedder: str | None = None) -> tuple[int, Any, Any]:
        return (self.current, None, None) if known == self.current else (self.current, self.policy, self.registry)

    def restoring(self) -> dict[str, Any] | None:
        return read_restoring(self.store)

    def mark_restoring(self, marker: dict[str, Any] | None) -> None:
        mark_restoring(self.store, marker)
        self.unfinished = marker
        for shard in self.shards.values():
            shard.set_restoring(marker)

    def set_policy(self, policy: Any, if_version: int | None = None) -> int:
        return self._set(policy, self.registry)

    def set_registry(self, registry: Any) -> int:
        return self._set(self.policy, registry)

    def _set(self, policy: Any, registry: Any) -> int:
        ControlFile(self.store).save(policy, registry)
        self.policy, self.registry, self.current = policy, registry, next(self.version)
        for shard in self.shards.values():
            shard.set_control(self.current, policy, registry)
        return self.current


class InProcessCluster:
    """The shards of `store` (`shards` of them over its partitions) and the control stand-in."""

    def __init__(self, store: Path, shards: int = 2) -> None:
        self.store = store
        self.meta = read_meta(store)
        names = [shard_name(i) for i in range(shards)]
        save_state(store, ClusterState(epoch=1, shards=tuple(names), assignment=plan(None, names, self.meta.partitions),
                                       control_version=1))
        self.shards = {n: Shard(str(store), n, namespace=NAMESPACE) for n in names}
        self.control = Control(store, self.shards)
        self.calls: Counter[str] = Counter()
        """The control actor's calls, by method (the shards' are not counted)."""
        self.ray = SimpleNamespace(get=self._get, get_actor=lambda name, namespace=None: Handle(self.shards[name], Counter()),
                                   put=lambda value: value)

    @staticmethod
    def _get(answer: _Answer, timeout: float | None = None) -> Any:
        if answer.error is not None:
            raise RayTaskError("call", "", answer.error)
        return answer.value

    def patch(self, monkeypatch: Any) -> None:
        """The client's modules reach this cluster's `ray` (for the test's while)."""
        for module in (ray_calls, cluster, cluster_bulk):
            monkeypatch.setattr(module, "ray", self.ray)

    def vault(self, embedder: Any) -> Vault:
        """A client joining the cluster, as `Vault.connect` makes one."""
        info = {"namespace": NAMESPACE, "store": str(self.store), "partitions": self.meta.partitions,
                "dim": self.meta.dim, "embedder": self.meta.embedder, "index": self.meta.index}
        return Vault(ClusterBackend(Handle(self.control, self.calls), info), embedder, RuleReasoner(embedder))

    def close(self) -> None:
        for shard in self.shards.values():
            shard.close_all()
