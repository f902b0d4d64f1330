"""The Ray actors of cluster mode.

`ShardActor` is `Shard` as a threaded actor: calls from many clients run side by
side, and the writes among them are decided one after the other and committed
together (group commit, in `Shard`), so every write to one of its partitions still
serializes through it; across callers the shard's order is the order of the log.
`ControlActor` owns the policy, the entity registry and the partition -> shard
assignment; it persists them in the store before telling the
shards, and pushes versioned updates to them. Both are named, detached actors in
the store's namespace with `max_restarts=-1`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import ActorDiedError, RayActorError

from vault_ray.backends.routing import CONTROL_NAME, shard_name
from vault_ray.backends.unfinished import RestoreGuard, refuses_writes, target_of
from vault_ray.engine.control import ControlFile, check_narrowing
from vault_ray.engine.erase import waiting_erasures
from vault_ray.errors import ClusterError, InvalidInput, StoreMismatch, VaultError
from vault_ray.policy import Policy, check_version
from vault_ray.reasoners.base import Reasoner
from vault_ray.registry import EntityRegistry
from vault_ray.storage.layout import StoreLock, init_store, read_meta, set_embedder
from vault_ray.storage.restoring import mark_restoring, read_restoring

from .assignment import ClusterState, load_state, moves, plan, save_state
from .erasures import finish_waiting
from .narrowing import ShardReads
from .shard import Shard

log = logging.getLogger("vault_ray")

SETTLE_TIMEOUT_S = 60.0
SHARD_CALLS = 64
"""Calls a shard actor runs at once (its threads): concurrent writes form one commit group."""


@ray.remote(max_restarts=-1, max_task_retries=0, num_cpus=0, max_concurrency=SHARD_CALLS)  # type: ignore[call-overload]
class ShardActor(Shard):
    """`Shard` in a Ray worker. Thin on purpose: the logic is in `Shard` and `Partition`."""

    def __init__(self, store: str, name: str, reasoner: Reasoner | None = None, namespace: str | None = None) -> None:
        super().__init__(store, name, reasoner, namespace)
        # Restarted alone by Ray with erasures whose other shards' part is left (actors/erasures.py):
        # ask the control actor of its namespace to finish them, without waiting (it calls this shard back).
        if namespace is not None and _reconstructed() and waiting_erasures(self.host):
            with contextlib.suppress(Exception):  # no control actor now: its next start finishes them
                ray.get_actor(CONTROL_NAME, namespace=namespace).finish_erasures.remote()


def _reconstructed() -> bool:
    """Whether Ray restarted this actor (its property uses a deprecated API inside)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


@dataclass(frozen=True)
class ClusterConfig:
    """What the first `connect` (or `vault-ray up`) creates a cluster with."""

    store: str
    dim: int
    embedder: str
    namespace: str
    nonce: str
    partitions: int | None = None
    shards: int | None = None
    reasoner: Reasoner | None = None
    policy: Policy | None = None
    registry: EntityRegistry | None = None
    actor_options: dict[str, Any] = field(default_factory=dict)
    index: str | None = None


@ray.remote(max_restarts=-1, max_task_retries=0, num_cpus=0, max_concurrency=8)  # type: ignore[call-overload]
@refuses_writes  # policy, registry and embedder changes, while the store's restore is unfinished
class ControlActor(RestoreGuard):
    """Policy, registry and assignment of one store. Threaded so clients can read
    routes while a rebalance runs; every change takes `_lock`."""

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self._lock = threading.RLock()
        self._store_lock: StoreLock | None = None
        self._error: VaultError | None = None
        self.shards: dict[str, Any] = {}
        try:
            self._setup(restarted=_reconstructed())
        except Exception as exc:  # kept and raised by every call: a failed creation must not loop restarts
            self._error = exc if isinstance(exc, VaultError) else ClusterError(f"cluster setup failed: {exc!r}")
            if not _reconstructed():
                self._retire(list(self.shards))  # a cluster that never started leaves no shards behind
            self._release()

    # -- setup and recovery ---------------------------------------------------------
    def _setup(self, *, restarted: bool) -> None:
        cfg = self.config
        # The store lock makes embedded mode and a cluster exclusive: Vault.open takes the same lock.
        self._store_lock = StoreLock(cfg.store)
        # a restarted actor takes the store's embedder (a reindex may have switched it since
        # creation) and keeps its index setting (a switch happens only on `vault-ray up`)
        stored = read_meta(cfg.store) if restarted else None
        dim, embedder = (stored.dim, stored.embedder) if stored else (cfg.dim, cfg.embedder)
        self.meta = init_store(cfg.store, partitions=cfg.partitions, dim=dim, embedder=embedder,
                               index=None if restarted else cfg.index)
        control = ControlFile(cfg.store)
        # a restarted actor takes what the store says, not what it was first created with
        saved = control.load()
        wanted = saved if restarted else control.load(cfg.policy, cfg.registry)
        # one given for a store that has its own is a change of it: the shards start on the saved one,
        # and the change is stored once checked against their claims (actors/narrowing.py)
        changing = not restarted and control.path.exists() and wanted != saved
        self.unfinished = read_restoring(cfg.store)  # the shards read it as they start
        self.restore_where = (cfg.store, target_of("cluster", cfg.store, cfg.namespace))
        if changing:
            self.refuse_while_restoring("starting the store with another policy or registry")
        self.policy, self.registry = saved if changing else wanted
        control.save(self.policy, self.registry)
        state = load_state(cfg.store)
        if state is None or state.assignment and max(state.assignment) >= self.meta.partitions:
            state = None
        if not restarted or state is None:
            # A new cluster on the store: spread the partitions afresh over the shards asked for.
            count = cfg.shards or (len(state.shards) if state else 2)
            names = [shard_name(i) for i in range(count)]
            state = ClusterState(
                epoch=(state.epoch + 1) if state else 1, shards=tuple(names),
                assignment=plan(None, names, self.meta.partitions),
                control_version=(state.control_version + 1) if state else 1,
            )
        save_state(cfg.store, state)
        self.state = state
        # Reconcile: shards still running keep serving; any that missed the last
        # assignment or policy (the control actor died mid-change) catch up here.
        for name in (*state.shards, *state.draining):
            self.shards[name] = self._spawn(name)
        self._push_assignment(state)
        self._retire(state.draining)
        if state.draining:
            self.state = state.evolve(draining=())
            save_state(cfg.store, self.state)
        if changing:  # many -> one over values at odds: InvalidPolicy, and the cluster does not start
            try:
                check_narrowing(ShardReads(self.shards, self.state, self.meta.partitions), saved, wanted)
            except VaultError:  # the shards let go of their logs before the refusal is answered
                self._each(list(self.shards), lambda s, n: s.close_all.remote())
                raise
            self.policy, self.registry = wanted
            control.save(self.policy, self.registry)
        self._push_control()
        self.finish_erasures()  # those a crash cut short between the owner's part and the others'

    def _spawn(self, name: str) -> Any:
        return ShardActor.options(  # type: ignore[attr-defined]
            name=name, namespace=self.config.namespace, lifetime="detached", get_if_exists=True,
            **self.config.actor_options,
        ).remote(self.config.store, name, self.config.reasoner, self.config.namespace)

    def _push_assignment(self, state: ClusterState) -> None:
        """Two phases: every shard first gives up what it no longer owns (closing
        the logs), then the new owners open theirs; so no log is open twice."""
        names = [*state.shards, *state.draining]
        self._each(names, lambda s, n: s.assign.remote(state.epoch, state.partitions_of(n)))
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        waiting = list(state.shards)
        while waiting:
            still = self._each(waiting, lambda s, n: s.open_pending.remote())
            waiting = [n for n in waiting if still[n]]
            if waiting and time.monotonic() > deadline:
                raise ClusterError(f"shards {waiting} could not open their partitions: "
                                   f"{ {n: still[n] for n in waiting} }")
            if waiting:
                time.sleep(0.05)

    def _push_control(self) -> None:
        v, policy, registry = self.state.control_version, self.policy, self.registry
        self._each(list(self.state.shards), lambda s, n: s.set_control.remote(v, policy, registry))

    def _each(self, names: list[str], call: Any) -> dict[str, Any]:
        """`call(handle, name)` on every named shard, retrying shards that are restarting."""
        out: dict[str, Any] = {}
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        todo = list(names)
        while todo:
            refs = {n: call(self.shards[n], n) for n in todo}
            todo = []
            for n, ref in refs.items():
                try:
                    out[n] = ray.get(ref)
                except ActorDiedError:
                    raise  # killed for good: retrying cannot help
                except RayActorError:  # restarting
                    if time.monotonic() > deadline:
                        raise
                    todo.append(n)
            if todo:
                time.sleep(0.1)
        return out

    def _retire(self, names: tuple[str, ...] | list[str]) -> None:
        for name in names:
            handle = self.shards.pop(name, None)
            if handle is not None:
                ray.kill(handle, no_restart=True)

    def _release(self) -> None:
        if self._store_lock is not None:
            self._store_lock.release()
            self._store_lock = None

    def _check(self) -> None:
        if self._error is not None:
            raise self._error

    # -- what clients call --------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """The cluster's settings, or the error that stopped its creation (as a value,
        so the client can tell whether it created the broken actor)."""
        if self._error is not None:
            return {"nonce": self.config.nonce, "error": self._error}
        return {
            "nonce": self.config.nonce, "error": None, "store": self.config.store, "namespace": self.config.namespace,
            "partitions": self.meta.partitions, "dim": self.meta.dim, "embedder": self.meta.embedder,
            "index": self.meta.index,
            "epoch": self.state.epoch, "shards": list(self.state.shards), "head": dict(self.state.head),
            "pid": os.getpid(),
        }

    def control(self, known_version: int = -1,
                embedder: str | None = None) -> tuple[int, Policy | None, EntityRegistry | None]:
        """The policy and registry, or (version, None, None) when the caller's are current.
        A caller naming another embedder than the store's (reindexed since it joined) is refused."""
        self._check()
        if embedder is not None and embedder != self.meta.embedder:
            raise StoreMismatch(f"store {self.config.store!r} was reindexed to the {self.meta.embedder!r} embedder "
                                f"({self.meta.dim} dimensions); this client embeds with {embedder!r}: reconnect with "
                                "that embedder", path=self.config.store)
        v = self.state.control_version
        return (v, None, None) if v == known_version else (v, self.policy, self.registry)

    def set_policy(self, policy: Policy, if_version: int | None = None) -> int:
        with self._lock:  # the version checked is the one replaced (the lock is reentrant)
            check_version(self.policy, if_version)
            return self._set_control(policy, self.registry)

    def set_registry(self, registry: EntityRegistry) -> int:
        return self._set_control(self.policy, registry)

    def _set_control(self, policy: Policy, registry: EntityRegistry) -> int:
        self._check()
        with self._lock:
            # Persist first: a shard that restarts meanwhile reads the new version from the store.
            ControlFile(self.config.store).save(policy, registry)
            self.policy, self.registry = policy, registry
            self.state = self.state.evolve(control_version=self.state.control_version + 1)
            save_state(self.config.store, self.state)
            self._push_control()
            return self.state.control_version

    def restoring(self) -> dict[str, Any] | None:
        """The unfinished restore recorded in the store (transfer_restore.py), None if none."""
        self._check()
        return read_restoring(self.config.store)

    def mark_restoring(self, marker: dict[str, Any] | None) -> None:
        """Record a restore under way, or that it is done: the shards refuse writes until then."""
        self._check()
        with self._lock:
            mark_restoring(self.config.store, marker)
            self.unfinished = marker
            self._each(list(self.state.shards), lambda s, n: s.set_restoring.remote(marker))

    def restore_control(self, policy: Policy, registry: EntityRegistry) -> int:
        """A restore's policy and registry, the export's (not a write: taken while the restore is unfinished)."""
        return self._set_control(policy, registry)

    def assignment(self) -> tuple[int, dict[int, str]]:
        self._check()
        return self.state.epoch, dict(self.state.assignment)

    def rebalance(self, shards: int) -> dict[str, Any]:
        """Spread the partitions over `shards` shard actors, moving as few as possible."""
        self._check()
        if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= self.meta.partitions:
            raise InvalidInput(f"shards must be an integer in [1, {self.meta.partitions}] (the partition count), "
                               f"got {shards!r}")
        with self._lock:
            old = self.state
            names = [shard_name(i) for i in range(shards)]
            new_assignment = plan(old.assignment, names, self.meta.partitions)
            draining = tuple(n for n in old.shards if n not in names)
            state = old.evolve(epoch=old.epoch + 1, shards=tuple(names), assignment=new_assignment, draining=draining)
            save_state(self.config.store, state)  # the store knows the new owners before any shard does
            self.state = state
            for name in names:
                if name not in self.shards:
                    self.shards[name] = self._spawn(name)
            self._push_control()
            self._push_assignment(state)
            self._retire(draining)
            self.state = state.evolve(draining=())
            save_state(self.config.store, self.state)
            moved = moves(old.assignment, new_assignment)
            return {"epoch": self.state.epoch, "shards": names, "moved": moved, "retired": list(draining)}

    def commit_embedder(self, embedder: str, dim: int, lease_s: float = SETTLE_TIMEOUT_S,
                        hold: bool = False) -> dict[int, int]:
        """Commit a reindex (docs/jobs.md): freeze writes on every shard (a lease, should
        this actor die), check that every claim has a vector staged for `embedder`, name
        it in vault.json (the commit point), then have every shard reopen its partitions,
        adopting the staged vectors (which thaws it). Returns the claims still without a
        staged vector per partition, {} once committed. `hold`: with gaps, writes stay frozen
        (until the next call, or the lease ends) while the caller embeds them: under steady
        writes, each round would otherwise find new ones."""
        self._check()
        gaps: dict[int, int] = {}
        with self._lock:
            names = list(self.state.shards)
            self._each(names, lambda s, n: s.freeze.remote(lease_s))
            try:
                for found in self._each(names, lambda s, n: s.staging_gaps.remote(embedder, dim)).values():
                    gaps.update({p: c for p, c in found.items() if c})
                if gaps:
                    return gaps
                self.meta = set_embedder(self.config.store, embedder, dim)
                self.state = self.state.evolve(control_version=self.state.control_version + 1)
                save_state(self.config.store, self.state)
                self._each(names, lambda s, n: s.reload.remote())
                self._push_control()
                return {}
            finally:
                if not (hold and gaps):
                    self._each(names, lambda s, n: s.thaw.remote())

    def finish_erasures(self) -> list[str]:
        """Erasures whose owner shard's part is done but whose source messages the other shards may
        still keep (a client or a shard died in between): every shard drops them, then the owners
        remove their records (actors/erasures.py). Never raises: a shard that cannot be reached
        leaves them recorded, to be finished at the next start, shard restart or client join."""
        if self._error is not None:
            return []
        with self._lock:
            state = self.state
            owned = {n: state.partitions_of(n) for n in state.shards}
            try:
                return finish_waiting(owned, lambda names, method, args_of: self._each(
                    list(names), lambda s, n: getattr(s, method).remote(*args_of(n))))
            except Exception as exc:  # kept for the next try
                log.warning("vault-ray: could not finish the erasures waiting for the other shards: %r", exc)
                return []

    def shard_infos(self) -> list[dict[str, Any]]:
        self._check()
        names = list(self.state.shards)
        infos = self._each(names, lambda s, n: s.info.remote())
        return [infos[n] for n in names]

    def set_head(self, head: dict[str, Any]) -> None:
        """Remember where `vault-ray up` serves the store (address, namespace) and the Ray head it
        started (its pid and host), so `vault-ray down` can stop that head."""
        self._check()
        with self._lock:
            self.state = self.state.evolve(head=dict(head))
            save_state(self.config.store, self.state)

    def shutdown(self) -> dict[str, Any]:
        """Close every shard's logs, stop the shards and release the store (embedded
        mode may open it afterwards). Returns the recorded head, if any."""
        with self._lock:
            head = dict(self.state.head) if self._error is None else {}
            try:
                self._each(list(self.shards), lambda s, n: s.close_all.remote())
            except RayActorError:
                pass  # a shard that is gone holds no log open; stop the others all the same
            finally:
                self._retire(list(self.shards))
                if self._error is None:
                    self.state = self.state.evolve(head={})
                    save_state(self.config.store, self.state)
                self._release()
                self._error = ClusterError(f"the cluster on {self.config.store!r} was shut down")
            return head
