"""What the routes of one replica share: the vault (a cluster handle, or any `Vault`),
the token store, the metrics, the settings, and how a write is sent (batched by
Ray Serve in a deployment, alone otherwise)."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from vault_ray.errors import VaultError
from vault_ray.models import AddResult, WriteRequest
from vault_ray.tokens import TokenStore
from vault_ray.vault import Vault

from .metrics import Metrics

DEFAULT_MAX_BODY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class AppSettings:
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """A request body over this size gets 413 before it is read further."""
    title: str = "vault-ray"
    event_poll_s: float = 0.5
    """How often an event stream (SSE) looks for new events."""
    heartbeat_s: float = 15.0
    """A comment line on a quiet stream this often (proxies close idle connections)."""
    stream_max_s: float = 300.0
    """A stream ends after this long; the client reconnects where it stood."""


@dataclass(frozen=True)
class Written:
    """One write's outcome, and the batch it was decided in (position in arrival order)."""

    result: AddResult | VaultError
    batch: int
    position: int
    size: int


Writer = Callable[[WriteRequest], Awaitable[Written]]


class BatchWriter:
    """Decides a batch of write requests with one `Vault.write_batch` call (in a
    thread: it blocks on the cluster) and numbers the batches in the order they run."""

    def __init__(self, vault: Vault, metrics: Metrics) -> None:
        self.vault, self.metrics = vault, metrics
        self._numbers = itertools.count(1)

    async def decide(self, requests: Sequence[WriteRequest]) -> list[Written]:
        number = next(self._numbers)
        results = await run_in_threadpool(self.vault.write_batch, list(requests))
        self.metrics.observe_batch(results)
        return [Written(r, number, i, len(results)) for i, r in enumerate(results)]

    async def one(self, request: WriteRequest) -> Written:
        """A write alone (no Serve batching: a plain ASGI server)."""
        (written,) = await self.decide([request])
        return written


@dataclass
class Service:
    vault: Vault
    tokens: TokenStore
    metrics: Metrics
    write: Writer
    settings: AppSettings = field(default_factory=AppSettings)

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A blocking vault call off the event loop."""
        return await run_in_threadpool(fn, *args, **kwargs)


def local_service(vault: Vault, tokens: TokenStore, settings: AppSettings | None = None) -> Service:
    """A service writing each request alone: for a plain ASGI server (uvicorn) and tests."""
    metrics = Metrics(vault)
    writer = BatchWriter(vault, metrics)
    return Service(vault, tokens, metrics, writer.one, settings or AppSettings())
