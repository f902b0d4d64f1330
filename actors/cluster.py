"""Starting and operating a cluster-mode store: `connect` (join the store served in
a namespace, or create its actors), `shutdown`, `rebalance` and `status` (what the
CLI calls).

One store per Ray namespace: the namespace names the control actor
(`vault-control`) and the shard actors (`vault-shard-<i>`). The first `connect`
with `store=PATH` creates them; every later one, from any process, joins them, as
`Vault.connect` does.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import ray

from vault_ray.backends.cluster import RETRY_TIMEOUT_S, ClusterBackend
from vault_ray.backends.connect import (
    backend_of,
    check_join,
    control_info,
    ensure_ray,
    find_control,
    finish_erasures_soon,
    no_store_here,
)
from vault_ray.backends.ray_calls import _get, _Retry
from vault_ray.backends.routing import CONTROL_NAME
from vault_ray.embedders import Embedder, LocalEmbedder
from vault_ray.engine.control import a_policy, change_policy, changed_policy, check_narrowing
from vault_ray.errors import ClusterError, InvalidInput
from vault_ray.policy import Policy
from vault_ray.reasoners.base import Reasoner
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.registry import EntityRegistry
from vault_ray.storage.layout import check_index, read_meta
from vault_ray.vault import Vault

from .control import ClusterConfig, ControlActor
from .delivery import stop_delivery


def connect(
    address: str | None = "auto", *, namespace: str = "vault", store: str | Path | None = None,
    shards: int | None = None, partitions: int | None = None, embedder: Embedder | None = None,
    reasoner: Reasoner | None = None, policy: Policy | None = None, registry: EntityRegistry | None = None,
    actor_options: dict[str, Any] | None = None, retry_timeout: float = RETRY_TIMEOUT_S, index: str | None = None,
) -> Vault:
    """Join the store served in `namespace`, or create its actors if none serve it yet.

    Creating needs `store` (a path every node of the cluster can read and write);
    `shards` (2 by default) and `partitions` (16) apply then, as do `reasoner`,
    `policy` and `registry`. Joining checks that `store`, `partitions` and the
    embedder match; a `policy` given on join is a change of the cluster's (checked and
    numbered after it, as `set_policy`), and a `registry` given on join replaces the cluster's
    (like `Vault.open`). The reasoner of passes 1 and 2 is the one the cluster was
    created with; this process's reasoner extracts facts and disambiguates labels.
    Embedding runs in this process. `index` ("flat" or "hnsw") is the store's vector
    index, kept in its settings; on join it must match the running cluster's.
    `actor_options` are Ray actor options for the
    store's actors, control and shards alike: they read and write the store, so on
    a multi-node cluster place them on nodes that mount it, e.g.
    `{"resources": {"vault_store": 1}}` (see cluster/)."""
    embedder = embedder if embedder is not None else LocalEmbedder()
    reasoner = reasoner if reasoner is not None else RuleReasoner(embedder)
    check_shards(shards, store, partitions)
    if index is not None:
        check_index(index)
    ensure_ray(address, namespace, store)
    handle = find_control(namespace)
    nonce = uuid.uuid4().hex
    if handle is None:
        if store is None:
            raise no_store_here(namespace, address=address, create=", or pass store=PATH to create it")
        config = ClusterConfig(
            store=str(Path(store).expanduser().resolve()), dim=embedder.dim, embedder=embedder.name,
            namespace=namespace, nonce=nonce, partitions=partitions, shards=shards, reasoner=reasoner,
            policy=policy, registry=registry, actor_options=dict(actor_options or {}), index=index,
        )
        handle = ControlActor.options(  # type: ignore[attr-defined]
            name=CONTROL_NAME, namespace=namespace, lifetime="detached", get_if_exists=True, **config.actor_options,
        ).remote(config)
    info = control_info(handle)
    created = info["nonce"] == nonce
    if info["error"] is not None:
        if created:  # leave the namespace clean for the next attempt
            ray.kill(handle, no_restart=True)
        raise info["error"]
    check_join(info, store=store, partitions=partitions, embedder=embedder, namespace=namespace)
    if index is not None and index != info.get("index", "flat"):
        raise ClusterError(f"namespace {namespace!r} serves its store with the {info.get('index')!r} index, not "
                           f"{index!r}; restart it (`vault-ray down`, then `vault-ray up --index {index}`) to switch")
    backend = ClusterBackend(handle, info, retry_timeout=retry_timeout)
    if not created and registry is not None:  # with the policy given, checked before either changes (cardinality.py)
        if not isinstance(registry, EntityRegistry):
            raise InvalidInput(f"registry must be an EntityRegistry, got {type(registry).__name__}")
        now = backend.control()
        check_narrowing(backend, now, (now[0] if policy is None else changed_policy(now[0], a_policy(policy), registry),
                                       registry))
    if not created and policy is not None:  # a change of the running store's policy, checked and numbered after it
        registry_now = registry if registry is not None else backend.control()[1]
        change_policy(backend, lambda current: changed_policy(current, a_policy(policy), registry_now))
    if not created and registry is not None:
        backend.set_registry(registry)
    if not created:
        finish_erasures_soon(handle)
    return Vault(backend, embedder, reasoner)


def attach(address: str | None = "auto", *, namespace: str = "vault") -> ClusterBackend:
    """The backend of the cluster in `namespace`, without an embedder (operations only)."""
    ensure_ray(address, namespace)
    return backend_of(namespace, address)


def check_shards(shards: object, store: str | Path | None = None, partitions: int | None = None) -> None:
    """A shard count `connect` (and `vault-ray up`) can start: 1 up to the store's partition count
    (its settings', else `partitions`, else 16), or None for the default. InvalidInput otherwise,
    before anything starts."""
    if shards is None:
        return
    meta = read_meta(store) if store is not None else None
    most = meta.partitions if meta is not None else partitions if isinstance(partitions, int) and partitions > 0 else 16
    if not isinstance(shards, int) or isinstance(shards, bool) or not 1 <= shards <= most:
        raise InvalidInput(f"shards must be an integer in [1, {most}] (the partition count), got {shards!r}")


def rebalance(address: str | None = "auto", *, namespace: str = "vault", shards: int) -> dict[str, Any]:
    return attach(address, namespace=namespace).rebalance(shards)


def status(address: str | None = "auto", *, namespace: str = "vault") -> dict[str, Any]:
    backend = attach(address, namespace=namespace)
    epoch, assignment = backend.routes()
    return {"namespace": namespace, "store": backend.store, "partitions": backend.partitions, "epoch": epoch,
            "assignment": assignment, "shards": backend.shard_infos()}


def shutdown(address: str | None = "auto", *, namespace: str = "vault") -> dict[str, Any]:
    """Stop the store's actors (closing every log) and release the store. Returns the
    Ray head `vault-ray up` recorded for it, if any (the caller may stop it)."""
    ensure_ray(address, namespace)
    handle = find_control(namespace)
    if handle is None:
        raise no_store_here(namespace, address=address)
    stop_delivery(namespace)  # it reads the logs: stop it before they close
    try:
        head: dict[str, Any] = _get(handle.shutdown.remote())
    except _Retry as exc:
        raise ClusterError(f"the vault-ray control actor is not available: {exc}") from None
    finally:
        ray.kill(handle, no_restart=True)
    return head
