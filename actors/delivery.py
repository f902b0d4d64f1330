"""Webhook delivery in cluster mode: one `DeliveryActor` per store (named
`vault-webhooks` in the store's namespace, detached, restarted by Ray if it dies)
runs a `vault_ray.delivery.Dispatcher` over the store's event stream. The Serve app
makes sure it runs (`ensure_delivery`); `shutdown` stops it with the store's actors.

A restarted actor reads the delivery state back from the store directory and
resumes each webhook where it stood.
"""

from __future__ import annotations

import contextlib
from typing import Any

import ray

from vault_ray.backends.cluster import ClusterBackend
from vault_ray.backends.connect import backend_of
from vault_ray.delivery import DeliveryPolicy, Dispatcher
from vault_ray.events import DEFAULT_LIMIT, EventFilter, EventPage, read_events

DELIVERY_NAME = "vault-webhooks"


class BackendEvents:
    """The event stream of a backend (what `Vault.events(since=...)` reads), without a Vault."""

    def __init__(self, backend: ClusterBackend) -> None:
        self.backend = backend

    def events(self, *, since: str, limit: int = DEFAULT_LIMIT, kinds: Any = None, needs_user: bool | None = None,
               entity: str | None = None) -> EventPage:
        return read_events(self.backend, since, EventFilter.of(kinds, needs_user, entity), limit)


@ray.remote(max_restarts=-1, max_task_retries=0, num_cpus=0, max_concurrency=4)
class DeliveryActor:
    def __init__(self, namespace: str, policy: DeliveryPolicy | None = None) -> None:
        self.backend = backend_of(namespace)
        self.dispatcher = Dispatcher(BackendEvents(self.backend), self.backend.store, policy=policy).start()

    def status(self) -> list[dict[str, Any]]:
        return self.dispatcher.status()

    def stop(self) -> None:
        self.dispatcher.stop()
        self.backend.close()


def ensure_delivery(namespace: str, policy: DeliveryPolicy | None = None, actor_options: dict[str, Any] | None = None) -> Any:
    """The store's delivery actor, started if it is not running yet."""
    return DeliveryActor.options(  # type: ignore[attr-defined]
        name=DELIVERY_NAME, namespace=namespace, lifetime="detached", get_if_exists=True, **(actor_options or {}),
    ).remote(namespace, policy)


def stop_delivery(namespace: str) -> None:
    """Stop the store's delivery actor, if one runs."""
    try:
        handle = ray.get_actor(DELIVERY_NAME, namespace=namespace)
    except ValueError:
        return
    with contextlib.suppress(Exception):  # a dead actor has nothing left to stop
        ray.get(handle.stop.remote(), timeout=15)
    ray.kill(handle, no_restart=True)
