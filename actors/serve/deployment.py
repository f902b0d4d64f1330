"""The Ray Serve deployment: `VaultIngress`, a FastAPI ingress in front of cluster mode.

Each replica is stateless: it joins the cluster-mode store served in its namespace
(`Vault.connect`), embeds and extracts itself (torch lives here, never in the shard
actors), reads the token file, and answers with the app of `app.create_app`. Writes
that arrive together are decided together: `@serve.batch` hands the batch to one
`Vault.write_batch` call (one embedding call, one call per owning shard, one commit
per partition), each request keeping its own decisions or its own error.

Three ways to run it: `vault-ray serve` (the CLI calls `start`), a Serve config
(`import_path: vault_ray.actors.serve.deployment:app_builder`, see cluster/), or
`build(...)` and `serve.run` in Python.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from ray import serve
from ray.serve import Application

from vault_ray.delivery import DeliveryPolicy
from vault_ray.embedders import Embedder, HashingEmbedder, LocalEmbedder
from vault_ray.errors import ClusterError, InvalidInput
from vault_ray.models import WriteRequest
from vault_ray.reasoners.base import Reasoner
from vault_ray.tokens import TokenStore
from vault_ray.vault import Vault

from ..cluster import connect
from ..delivery import ensure_delivery
from .app import create_app
from .metrics import Metrics
from .running import APP_NAME, NAMESPACE_KEY
from .service import DEFAULT_MAX_BODY_BYTES, AppSettings, BatchWriter, Service, Written
from .starting import quiet_reconnect_line


@dataclass(frozen=True)
class ServeConfig:
    """What every replica is built from (pickled to the replicas)."""

    namespace: str = "vault"
    embedder: Embedder | str = "local"
    """The store's embedder: "local" (the sentence-transformers model, loaded in each
    replica), "hashing", or an Embedder that pickles."""
    reasoner: Reasoner | None = None
    """Extraction and disambiguation in the replicas (default: RuleReasoner)."""
    tokens: str | None = None
    """The token file; default STORE/tokens.json of the store the namespace serves."""
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_batch_size: int = 32
    batch_wait_timeout_s: float = 0.02
    """How long the first write of a batch waits for others (the batch goes at once when full)."""
    retry_timeout: float | None = None
    """How long a replica retries a shard that restarts or moved (cluster mode's default: 60 s)."""
    event_poll_s: float = 0.5
    """How often an event stream (SSE, the inbox page) looks for new events."""
    webhooks: bool = True
    """Run the store's webhook delivery actor (one per namespace, however many replicas)."""
    delivery: DeliveryPolicy | None = None
    """Timeouts, backoff and attempts of webhook deliveries (default: `DeliveryPolicy()`)."""


PRIVATE_OPTIONS = {"func_or_class", "_internal", "_init_args", "_init_kwargs"}


@dataclass(frozen=True)
class Scaling:
    """How many replicas, and how many requests each takes at once."""

    replicas: int = 1
    autoscaling: dict[str, Any] | None = None
    """A Serve autoscaling_config (min_replicas, max_replicas, target_ongoing_requests, ...); replaces `replicas`."""
    max_ongoing_requests: int = 64
    ray_actor_options: dict[str, Any] = field(default_factory=lambda: {"num_cpus": 1})
    graceful_shutdown_s: float = 5.0
    """How long a replica that is stopping waits for its requests in flight. A write takes
    milliseconds; an open event stream never ends by itself, so it is cut then and its
    client resumes from its Last-Event-ID on another replica (Serve's own default, 20 s,
    holds every redeploy and `serve.delete` that long behind one open stream)."""
    deployment_options: dict[str, Any] = field(default_factory=dict)
    """Any other Serve deployment option (`health_check_period_s`, `graceful_shutdown_wait_loop_s`,
    ...), passed as given; they override the fields above."""

    def options(self) -> dict[str, Any]:
        if isinstance(self.graceful_shutdown_s, bool) or not isinstance(self.graceful_shutdown_s, int | float) \
                or not self.graceful_shutdown_s >= 0:
            raise InvalidInput(f"Scaling.graceful_shutdown_s must be a number of seconds >= 0, got {self.graceful_shutdown_s!r}")
        found: dict[str, Any] = {"max_ongoing_requests": self.max_ongoing_requests,
                                 "ray_actor_options": dict(self.ray_actor_options),
                                 "graceful_shutdown_timeout_s": self.graceful_shutdown_s}
        if self.autoscaling:
            found["autoscaling_config"] = dict(self.autoscaling)
        else:
            found["num_replicas"] = self.replicas
        allowed = set(inspect.signature(VaultIngress.options).parameters) - PRIVATE_OPTIONS
        unknown = sorted(set(self.deployment_options) - allowed)
        if unknown:
            raise InvalidInput(f"Scaling.deployment_options: {', '.join(unknown)} is not an option of a Serve deployment")
        return found | self.deployment_options


@serve.deployment(name="VaultIngress")
@serve.ingress()
class VaultIngress:
    def __init__(self, config: ServeConfig) -> None:
        options = {} if config.retry_timeout is None else {"retry_timeout": config.retry_timeout}
        embedder = make_embedder(config.embedder)
        self.vault = Vault.connect("auto", namespace=config.namespace, embedder=embedder, reasoner=config.reasoner,
                                   **options)
        self.vault.embedder.embed(["warm-up"])  # load the model now: a ready replica answers at once
        tokens = TokenStore(config.tokens) if config.tokens else TokenStore.for_store(self.vault.info().store)
        metrics = Metrics(self.vault)
        self.writer = BatchWriter(self.vault, metrics)
        self._decide.set_max_batch_size(config.max_batch_size)
        self._decide.set_batch_wait_timeout_s(config.batch_wait_timeout_s)
        settings = AppSettings(max_body_bytes=config.max_body_bytes, event_poll_s=config.event_poll_s)
        self.service = Service(self.vault, tokens, metrics, self.write, settings)
        if config.webhooks:  # off the write path: its own actor, reading the event stream
            ensure_delivery(config.namespace, config.delivery)

    @serve.batch(max_batch_size=32, batch_wait_timeout_s=0.02)
    async def _decide(self, requests: list[WriteRequest]) -> list[Written]:
        return await self.writer.decide(requests)

    async def write(self, request: WriteRequest) -> Written:
        return await self._decide(request)  # type: ignore[no-any-return]

    def reconfigure(self, user_config: dict[str, Any]) -> None:
        """Serve's user_config holds the namespace served (`served_as`), for `vault-ray down` to
        find the apps that use a store's actors (running.py); nothing to change here."""

    def __serve_build_asgi_app__(self) -> Any:
        return create_app(self.service)

    def __del__(self) -> None:
        vault = getattr(self, "vault", None)
        if vault is not None:
            vault.close()


def make_embedder(spec: Embedder | str) -> Embedder:
    if spec == "local":
        return LocalEmbedder()
    if spec == "hashing":
        return HashingEmbedder()
    if isinstance(spec, str):
        raise ClusterError(f"embedder must be 'local', 'hashing' or an Embedder, got {spec!r}")
    return spec


def build(config: ServeConfig, scaling: Scaling | None = None) -> Application:
    """The Serve application: bind it with `serve.run(app, name=..., route_prefix=...)`."""
    options = (scaling or Scaling()).options()
    options.setdefault("user_config", served_as(config.namespace))
    return VaultIngress.options(**options).bind(config)  # type: ignore[attr-defined]


def served_as(namespace: str) -> dict[str, str]:
    """The deployment's user_config: the namespace whose store the app serves (running.py reads it)."""
    return {NAMESPACE_KEY: namespace}


def start(config: ServeConfig, scaling: Scaling | None = None, *, host: str = "127.0.0.1", port: int = 8000,
          name: str = APP_NAME, route_prefix: str = "/") -> str:
    """Start Serve on `host:port` (in the Ray this process is connected to) and run the
    app; returns its base URL once every replica is ready."""
    app = build(config, scaling)  # bad options are the caller's InvalidInput, before anything starts
    try:
        serve.start(http_options={"host": host, "port": port})
        with quiet_reconnect_line():  # serve.run finds the Serve just started, and says so at INFO
            serve.run(app, name=name, route_prefix=route_prefix)
    except ClusterError:
        raise
    except Exception as exc:  # Serve's own errors (a port in use, a replica that failed to start)
        raise ClusterError(f"could not start the HTTP service on {host}:{port}: {exc}") from exc
    return f"http://{host}:{port}{route_prefix.rstrip('/')}"


class ServeArgs(BaseModel):
    """The `args` of the application in a Serve config file (see cluster/serve-config.yaml)."""

    model_config = ConfigDict(extra="forbid")

    namespace: str = "vault"
    store: str | None = None
    """Create the store's actors (if no cluster serves the namespace yet) on this path."""
    shards: int | None = None
    partitions: int | None = None
    embedder: Literal["local", "hashing"] = "local"
    actor_options: dict[str, Any] | None = None
    """Ray actor options of the store's actors, e.g. {"resources": {"vault_store": 1}}."""
    tokens: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_batch_size: int = 32
    batch_wait_timeout_s: float = 0.02


def app_builder(args: dict[str, Any]) -> Application:
    """The application of a Serve config: `import_path: vault_ray.actors.serve.deployment:app_builder`.
    Replica count, autoscaling and max_ongoing_requests come from the config's
    `deployments:` section (deployment name VaultIngress)."""
    found = ServeArgs(**args)
    embedder = make_embedder(found.embedder)
    if found.store is not None:  # create the store's actors, unless a cluster serves the namespace already
        connect("auto", namespace=found.namespace, store=found.store, shards=found.shards,
                partitions=found.partitions, embedder=embedder, actor_options=found.actor_options).close()
    config = ServeConfig(namespace=found.namespace, embedder=found.embedder, tokens=found.tokens,
                         max_body_bytes=found.max_body_bytes, max_batch_size=found.max_batch_size,
                         batch_wait_timeout_s=found.batch_wait_timeout_s)
    return VaultIngress.options(user_config=served_as(found.namespace)).bind(config)  # type: ignore[attr-defined]
