from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Every Ray the tests start (the session's, a CLI's, `ray start`'s) inherits these: Ray's log monitor
# lists its log directory every 0.1 s while it holds fewer than 1,000 files (about 4% of a core for a
# whole run on 2 cores, for logs no test reads: drivers run with log_to_driver=False); every 5 s will do.
os.environ.setdefault("RAY_LOG_MONITOR_MANY_FILES_THRESHOLD", "0")
os.environ.setdefault("LOG_NAME_UPDATE_INTERVAL_S", "5")
# Ray starts its workers (every actor: shards, controllers, Serve replicas; every task) at nice 15 on
# top of the niceness of the Ray that starts them (RAY_worker_niceness, default 15). `make test` runs
# the integration tests beside the in-process tests niced to 10: at 15 the integration tests' actors
# got the CPU after those (the session-Ray tests took 823 s beside them, 460 s alone); at 0 a Ray's
# workers have its own priority.
os.environ.setdefault("RAY_worker_niceness", "0")

# httpx waits 5 s for an answer unless told otherwise (one Timeout object, the default of every call and
# Client). `make test` runs the in-process tests niced to 10 beside the integration tests, and a request to
# an app served in such a process can wait longer than that for the CPU (run 144: a ReadTimeout on a test's
# first request). A test's bare httpx call waits 60 s; vault-ray's own clients pass their timeouts.
import httpx._config  # noqa: E402

_WAIT = httpx._config.DEFAULT_TIMEOUT_CONFIG
_WAIT.connect = _WAIT.read = _WAIT.write = _WAIT.pool = 60.0

from lanes import keep  # noqa: E402

from vault_ray import HashingEmbedder, LocalEmbedder, Policy, RuleReasoner, Vault  # noqa: E402


def pytest_collection_modifyitems(config, items):
    keep(items, config)  # VAULT_RAY_LANE: one lane's modules (lanes.py)


@pytest.fixture
def make_vault(tmp_path):
    """Open embedded vaults on fresh stores under tmp_path (hashing embedder); closes them."""
    opened = []

    def _make(name: str = "store", **kw):
        kw.setdefault("embedder", HashingEmbedder())
        vault = Vault.open(tmp_path / name, **kw)
        opened.append(vault)
        return vault

    yield _make
    for v in opened:
        v.close()


@pytest.fixture
def vault(make_vault):
    return make_vault()


@pytest.fixture
def family_vault(make_vault):
    """A vault whose `user.family` is many-valued: a person's relatives as `role:Name` items
    (mom:Ann, wife:Maria, child:Tom), each a value of its own."""
    vault = make_vault()
    vault.set_cardinality("user.family", "many")
    return vault


@pytest.fixture
def authority(make_vault):
    """A vault whose user.timezone is settled by authority: scheduler 0.9, chat 0.2."""
    vault = make_vault()
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    vault.set_authority("chat", "user.timezone", 0.2)
    return vault


@pytest.fixture
def policy():
    return Policy()


@pytest.fixture
def served_app(make_vault, tmp_path):
    """The HTTP app (REST and /mcp) on a real server on 127.0.0.1 (uvicorn, in a thread) over an
    embedded vault: `.url`, `.vault`, `.token(name, role)`. Stops the server after the test."""
    pytest.importorskip("fastapi")
    import socket
    import threading
    from types import SimpleNamespace

    import uvicorn

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault, tokens = make_vault(), TokenStore(tmp_path / "tokens.json")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(local_service(vault, tokens)), log_level="warning",
                                          timeout_graceful_shutdown=3))  # a stream a test left open is cut then
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        thread.join(0.02)
    assert server.started, "the app did not start"
    yield SimpleNamespace(url=f"http://127.0.0.1:{sock.getsockname()[1]}", vault=vault, tokens=tokens,
                          token=lambda name, role="agent": tokens.add(name, role)[0])
    server.should_exit = True
    thread.join(30)
    sock.close()


@pytest.fixture(scope="module")
def local_embedder() -> LocalEmbedder:
    """The local model, one per module (extraction tests that read with it only)."""
    return LocalEmbedder()


@pytest.fixture(scope="module")
def local_reasoner(local_embedder: LocalEmbedder) -> RuleReasoner:
    """The rule reader with the local model's vectors, one per module."""
    return RuleReasoner(local_embedder)


@pytest.fixture(scope="module", params=["local", "hashing", "patterns"])
def reasoner(request: pytest.FixtureRequest) -> RuleReasoner:
    """Every reader: the local model, the hashing embedder, patterns only (extraction tests; a file may define its own)."""
    if request.param == "local":
        return RuleReasoner(LocalEmbedder())
    return RuleReasoner(HashingEmbedder()) if request.param == "hashing" else RuleReasoner()
