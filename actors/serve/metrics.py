"""Prometheus metrics of one replica, in a registry of its own (several apps may
share a process).

- `vault_http_requests_total{route, method, status}` and
  `vault_http_request_duration_seconds{route, method}`: `route` is the route's
  template (`/v1/claims/{claim_id}`), or "unmatched", so random paths add no series;
- `vault_writes_total{outcome}`: one per decision (active, disputed, superseded,
  noop) and one per write request the store refused (rejected; a body the
  route's schema refuses is a 422 in `vault_http_requests_total` only);
- `vault_write_batch_size`: requests decided together;
- `vault_open_disputes` and `vault_store_up`: read from the store at scrape time,
  the same from every replica.

Counters are per replica: see docs/http.md for several replicas.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from vault_ray.errors import VaultError
from vault_ray.models import AddResult
from vault_ray.vault import Vault

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class StoreCollector(Collector):
    """Store-wide gauges, asked of the store when Prometheus scrapes."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("vault_store_up", "1 if the store answered this scrape")
        try:
            open_disputes = len(self.vault.disputes("open"))
        except VaultError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily("vault_open_disputes", "Open disputes in the store", value=open_disputes)


class Metrics:
    def __init__(self, vault: Vault) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("vault_http_requests", "HTTP requests by route template, method and status",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("vault_http_request_duration_seconds", "HTTP request latency by route template",
                                 ["route", "method"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.writes = Counter("vault_writes", "Write decisions by outcome; rejected write requests as 'rejected'",
                              ["outcome"], registry=self.registry)
        self.batch_size = Histogram("vault_write_batch_size", "Write requests decided together",
                                    buckets=BATCH_BUCKETS, registry=self.registry)
        self.registry.register(StoreCollector(vault))

    def observe_batch(self, results: Sequence[AddResult | VaultError]) -> None:
        self.batch_size.observe(len(results))
        for result in results:
            if isinstance(result, VaultError):
                self.writes.labels("rejected").inc()
            else:
                for decision in result.decisions:
                    self.writes.labels(str(decision.outcome)).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


class CountRequests:
    """ASGI middleware counting every HTTP request (those an error handler answered too)."""

    def __init__(self, app: Any, metrics: Metrics, templates: Callable[[], Iterable[str]] = tuple) -> None:
        self.app, self.metrics, self._templates = app, metrics, templates
        self._patterns: list[tuple[re.Pattern[str], str]] | None = None

    def _route(self, scope: dict[str, Any]) -> str:
        """The template of the route that answered, or of the one the path names when a
        middleware answered first (a 413 before routing), else "unmatched"."""
        route = getattr(scope.get("route"), "path", None)
        if route is not None:
            return route  # type: ignore[no-any-return]
        if self._patterns is None:  # the app's path templates, once: "/v1/claims/{claim_id}" -> ^/v1/claims/[^/]+$
            self._patterns = [(re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(t)) + "$"), t)
                              for t in dict.fromkeys(self._templates())]
        path = scope.get("path", "")
        return next((t for pattern, t in self._patterns if pattern.match(path)), "unmatched")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = [500]

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = self._route(scope)
            method = scope.get("method", "") if scope.get("method") in METHODS else "other"
            self.metrics.requests.labels(route, method, str(status[0])).inc()
            self.metrics.latency.labels(route, method).observe(time.perf_counter() - started)
