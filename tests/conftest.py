from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

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
