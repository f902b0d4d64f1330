"""Joining, starting and operating a cluster-mode store: `connect` (what
`Vault.connect` calls), `shutdown`, `rebalance` and `status` (what the CLI calls).

One store per Ray namespace: the namespace names the control actor
(`vault-control`) and the shard actors (`vault-shard-<i>`). The first `connect`
with `store=PATH` creates them; every later one, from any process, joins them.
"""

from __future__ import annotations

import logging
import socket
import uuid
from pathlib import Path
from typing import Any

import ray

from vault_ray.embedders import Embedder, LocalEmbedder
from vault_ray.errors import ClusterError, StoreMismatch
from vault_ray.policy import Policy
from vault_ray.reasoners.base import Reasoner
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.registry import EntityRegistry
from vault_ray.vault import Vault

from .backend import RETRY_TIMEOUT_S, RayBackend, _get, _Retry
from .control import CONTROL_NAME, ClusterConfig, ControlActor


def ensure_ray(address: str | None = "auto", namespace: str = "vault") -> None:
    """Connect this process to Ray unless it already is (then `address` is not
    looked at: a process talks to one Ray cluster). `address=None` or "local" starts
    a private Ray instance in this process (a notebook, a single machine)."""
    if ray.is_initialized():
        return
    options: dict[str, Any] = {"namespace": namespace, "logging_level": logging.WARNING, "log_to_driver": False}
    try:
        if address in (None, "local"):
            ray.init(include_dashboard=False, **options)
        else:
            _check_reachable(address)
            if _is_loopback(address):
                _use_local_token()
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach a Ray cluster at {address!r}: {exc}. Start one with `vault-ray up --store PATH` "
            "(or `ray start --head`), or pass its address"
        ) from exc


def _check_reachable(address: str) -> None:
    """Fail in a second, not after Ray's minute of reconnecting, when nothing listens."""
    host, _, port = address.rpartition(":")
    if address == "auto" or address.startswith("ray://") or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise ConnectionError(f"nothing answers at {address} ({exc.strerror or exc})") from exc


def _is_loopback(address: str) -> bool:
    host = address.removeprefix("ray://").rsplit(":", 1)[0]
    return host in ("127.0.0.1", "localhost", "::1", "[::1]")


def _use_local_token() -> None:
    """Send this machine's Ray token (~/.ray/auth_token) to a head on this machine.

    Ray does that by itself only for address "auto"; for an explicit address it
    never does (the token must not leak to a remote server), so a head that
    `vault-ray up` started on 127.0.0.1 would refuse us. RAY_AUTH_MODE, when set,
    decides as always."""
    try:
        from ray._private.authentication.authentication_token_setup import (  # noqa: PLC0415
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def _find_control(namespace: str) -> Any | None:
    try:
        return ray.get_actor(CONTROL_NAME, namespace=namespace)
    except ValueError:
        return None


def _info(handle: Any) -> dict[str, Any]:
    try:
        return _get(handle.info.remote(), timeout=RETRY_TIMEOUT_S + 60)  # type: ignore[no-any-return]
    except _Retry as exc:
        raise ClusterError(f"the vault-ray control actor is not available: {exc}") from None


def connect(
    address: str | None = "auto", *, namespace: str = "vault", store: str | Path | None = None,
    shards: int | None = None, partitions: int | None = None, embedder: Embedder | None = None,
    reasoner: Reasoner | None = None, policy: Policy | None = None, registry: EntityRegistry | None = None,
    actor_options: dict[str, Any] | None = None, retry_timeout: float = RETRY_TIMEOUT_S,
) -> Vault:
    """Join the store served in `namespace`, or create its actors if none serve it yet.

    Creating needs `store` (a path every node of the cluster can read and write);
    `shards` (2 by default) and `partitions` (16) apply then, as do `reasoner`,
    `policy` and `registry`. Joining checks that `store`, `partitions` and the
    embedder match; a `policy` or `registry` given on join replaces the cluster's
    (like `Vault.open`). The reasoner of passes 1 and 2 is the one the cluster was
    created with; this process's reasoner extracts facts and disambiguates labels.
    Embedding runs in this process. `actor_options` are Ray actor options for the
    store's actors, control and shards alike: they read and write the store, so on
    a multi-node cluster place them on nodes that mount it, e.g.
    `{"resources": {"vault_store": 1}}` (see cluster/)."""
    embedder = embedder if embedder is not None else LocalEmbedder()
    reasoner = reasoner if reasoner is not None else RuleReasoner(embedder)
    if shards is not None and (not isinstance(shards, int) or isinstance(shards, bool) or shards < 1):
        raise ClusterError(f"shards must be a positive integer, got {shards!r}")
    ensure_ray(address, namespace)
    handle = _find_control(namespace)
    nonce = uuid.uuid4().hex
    if handle is None:
        if store is None:
            raise ClusterError(f"no vault-ray cluster serves namespace {namespace!r}; start one with "
                               "`vault-ray up --store PATH`, or pass store=PATH to create it")
        config = ClusterConfig(
            store=str(Path(store).expanduser().resolve()), dim=embedder.dim, embedder=embedder.name,
            namespace=namespace, nonce=nonce, partitions=partitions, shards=shards, reasoner=reasoner,
            policy=policy, registry=registry, actor_options=dict(actor_options or {}),
        )
        handle = ControlActor.options(  # type: ignore[attr-defined]
            name=CONTROL_NAME, namespace=namespace, lifetime="detached", get_if_exists=True, **config.actor_options,
        ).remote(config)
    info = _info(handle)
    created = info["nonce"] == nonce
    if info["error"] is not None:
        if created:  # leave the namespace clean for the next attempt
            ray.kill(handle, no_restart=True)
        raise info["error"]
    _check_join(info, store=store, partitions=partitions, embedder=embedder, namespace=namespace)
    backend = RayBackend(handle, info, retry_timeout=retry_timeout)
    if not created and policy is not None:
        backend.set_policy(policy)
    if not created and registry is not None:
        backend.set_registry(registry)
    return Vault(backend, embedder, reasoner)


def _check_join(info: dict[str, Any], *, store: str | Path | None, partitions: int | None, embedder: Embedder,
                namespace: str) -> None:
    served = info["store"]
    if store is not None and str(Path(store).expanduser().resolve()) != served:
        raise ClusterError(f"namespace {namespace!r} already serves the store {served!r}, not {str(store)!r}; "
                           "use another namespace for another store")
    if partitions is not None and partitions != info["partitions"]:
        raise StoreMismatch(f"store {served!r} has {info['partitions']} partitions, not {partitions} "
                            "(the partition count is fixed when a store is created)", path=served)
    if embedder.dim != info["dim"] or embedder.name != info["embedder"]:
        raise StoreMismatch(f"store {served!r} was written with the {info['embedder']!r} embedder "
                            f"({info['dim']} dimensions), not {embedder.name!r} ({embedder.dim}); "
                            "vectors from different embedders are not comparable", path=served)


def attach(address: str | None = "auto", *, namespace: str = "vault") -> RayBackend:
    """The backend of the cluster in `namespace`, without an embedder (operations only)."""
    ensure_ray(address, namespace)
    handle = _find_control(namespace)
    if handle is None:
        raise ClusterError(f"no vault-ray cluster serves namespace {namespace!r}")
    info = _info(handle)
    if info["error"] is not None:
        raise info["error"]
    return RayBackend(handle, info)


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
    handle = _find_control(namespace)
    if handle is None:
        raise ClusterError(f"no vault-ray cluster serves namespace {namespace!r}")
    try:
        head: dict[str, Any] = _get(handle.shutdown.remote())
    except _Retry as exc:
        raise ClusterError(f"the vault-ray control actor is not available: {exc}") from None
    finally:
        ray.kill(handle, no_restart=True)
    return head
