"""One Ray runtime for the whole integration session (ray.init costs ~3 s)."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.integration


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)
            if "ray_session" not in item.fixturenames:  # `make test` runs these in a pytest process of their own
                item.add_marker(pytest.mark.own_ray)
    # the modules that use the session's Serve (marked `serve`, for `-m serve`) run
    # last, whole and in their order: Serve's controller and proxy poll while they live (about 0.05 CPU-s a
    # second, on a 2-core machine beside the rest)
    serving = {item.fspath for item in items if "serve_port" in item.fixturenames}
    for item in items:
        if item.fspath in serving:
            item.add_marker(pytest.mark.serve)
    items.sort(key=lambda item: item.fspath in serving)


@pytest.fixture(scope="session")
def ray_session(tmp_path_factory):
    import ray

    tmp = tmp_path_factory.mktemp("ray")
    os.environ["RAY_TMPDIR"] = str(tmp)
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    ctx = ray.init(
        address="local",  # a runtime of its own, never another process's `ray start` cluster
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=256 * 1024 * 1024,
        _temp_dir=str(tmp),
        logging_level="WARNING",
        log_to_driver=False,
        namespace="vault-tests",
    )
    yield ctx
    ray.shutdown()


# -- cluster mode ------------------------------------------------------------
@pytest.fixture(scope="session")
def gcs_address(ray_session):
    """Where other processes (clients started by a test) join the session's Ray."""
    return ray_session.address_info["gcs_address"]


@pytest.fixture
def cluster(ray_session, tmp_path):
    """Factory: a cluster-mode store's actors started on a fresh store under tmp_path, in a fresh namespace
    (2 shards, 4 partitions, hashing embedder unless told); stops the actors after."""
    import contextlib
    import uuid

    from vault_ray import ClusterError, HashingEmbedder
    from vault_ray.actors import connect, shutdown

    namespaces = []

    def _make(name: str = "store", **kw):
        kw.setdefault("embedder", HashingEmbedder())
        kw.setdefault("shards", 2)
        kw.setdefault("partitions", 4)
        namespace = kw.pop("namespace", None) or f"test-{uuid.uuid4().hex[:10]}"
        vault = connect("auto", namespace=namespace, store=tmp_path / name, **kw)
        namespaces.append(namespace)
        return vault

    yield _make
    for namespace in dict.fromkeys(namespaces):
        with contextlib.suppress(ClusterError):  # the test stopped it itself
            shutdown(namespace=namespace)


# -- the HTTP service (issue 10) ---------------------------------------------------------
@pytest.fixture(scope="session")
def serve_port(ray_session):
    """Ray Serve's HTTP proxy on 127.0.0.1 at a free port, started once for the session
    (about 7 s); each test's app runs on it under a route prefix of its own."""
    from ray import serve

    from .served import free_port

    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    yield port
    serve.shutdown()
