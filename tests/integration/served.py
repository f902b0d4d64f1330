"""The HTTP service under test: a cluster-mode store with the Serve app in front of it
(one app per store, under its own route prefix, on the session's Serve instance),
tokens made in the store's token file, and `VaultClient`s for them."""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_ray import ClusterError, HashingEmbedder, Vault, VaultClient
from vault_ray.tokens import TokenStore

REPLICA = {"num_cpus": 0}  # the session's Ray has 2 CPUs; the replica must not wait for one
# a replica being deleted checks for requests in flight every 0.2 s, not Serve's 2 s
SCALING = {"ray_actor_options": REPLICA, "deployment_options": {"graceful_shutdown_wait_loop_s": 0.2}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class HttpStore:
    """One served store: its base URL, an in-process handle on the same store (for
    checks the client does not make) and its token file."""

    url: str
    vault: Vault
    tokens: TokenStore
    app_name: str
    _clients: list[VaultClient] = field(default_factory=list)

    def token(self, agent: str, *, admin: bool = False, role: str | None = None) -> str:
        return self.tokens.add(agent, role or ("admin" if admin else "agent"))[0]

    def client(self, agent: str, *, admin: bool = False, role: str | None = None, **kw: Any) -> VaultClient:
        client = VaultClient(self.url, self.token(agent, admin=admin, role=role), **kw)
        self._clients.append(client)
        return client

    def close(self) -> None:
        for c in self._clients:
            c.close()


def serve_store(vault: Vault, port: int, *, reasoner: Any = None, **config: Any) -> HttpStore:
    """Deploy the app for the cluster-mode store `vault` serves (its namespace)."""
    from vault_ray.actors.serve.deployment import Scaling, ServeConfig, start

    info = vault.info()
    name = f"vr-{uuid.uuid4().hex[:8]}"
    cfg = ServeConfig(namespace=info.namespace, embedder=vault.embedder, reasoner=reasoner, **config)
    url = start(cfg, Scaling(**SCALING), port=port, name=name, route_prefix=f"/{name}")
    return HttpStore(url, vault, TokenStore.for_store(info.store), name)


def undeploy(store: HttpStore) -> None:
    from ray import serve

    store.close()
    serve.delete(store.app_name)


@contextlib.contextmanager
def served(root: Path, port: int, *, reasoner: Any = None, policy: Any = None, shards: int = 2, partitions: int = 4,
           **config: Any) -> Iterator[HttpStore]:
    """A fresh cluster-mode store under `root` (its own namespace, hashing embedder) and
    the app in front of it; both stopped after."""
    from vault_ray.actors import connect, shutdown

    namespace = f"http-{uuid.uuid4().hex[:8]}"
    vault = connect("auto", namespace=namespace, store=root / "store", shards=shards, partitions=partitions,
                    embedder=HashingEmbedder(), reasoner=reasoner, policy=policy)
    store = serve_store(vault, port, reasoner=reasoner, **config)
    try:
        yield store
    finally:
        undeploy(store)
        with contextlib.suppress(ClusterError):  # a test may have stopped it itself
            shutdown(namespace=namespace)
        vault.close()


class Fleet:
    """A `Vault`-shaped face over HTTP for the shared scenarios: `agent(name)` is that
    agent's client (its own token); every other call goes through an admin client."""

    def __init__(self, store: HttpStore, admin: str = "ops") -> None:
        self.store = store
        self.admin = store.client(admin, admin=True)
        self._agents: dict[str, VaultClient] = {}

    def agent(self, name: str) -> VaultClient:
        if name not in self._agents:
            self._agents[name] = self.store.client(name)
        return self._agents[name]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.admin, name)
