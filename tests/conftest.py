from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# pytest-xdist's workers start with COLUMNS=80 in their environment; the CLI's rich console,
# made at import, would keep that width for good (the CLI tests give COLUMNS per call)
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

from vault_ray import HashingEmbedder, Policy, Vault  # noqa: E402


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
def policy():
    return Policy()


def pytest_collection_modifyitems(items):
    """`make test` runs the suite on two workers (pytest-xdist, `--dist loadgroup`). Every
    test of tests/integration goes to one of them, in one group, so one Ray runtime and one
    Serve proxy serve them all (session fixtures); every other file is a group of its own,
    so a module's fixtures (a wheel built once, a store filled once) are made once, by one
    worker."""
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group("ray" if path.startswith("tests/integration/") else path))
