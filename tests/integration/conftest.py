"""One Ray runtime for the whole integration session (ray.init costs ~3 s)."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.integration


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def ray_session(tmp_path_factory):
    import ray

    tmp = tmp_path_factory.mktemp("ray")
    os.environ["RAY_TMPDIR"] = str(tmp)
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    ctx = ray.init(
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
