"""A new user's walk through every `vault-ray` command (helper "cli", 2026-12-06): bad input is refused
with one line and changes nothing, before any Ray work starts."""

from __future__ import annotations

import os
import time

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app

CPUS = os.cpu_count() or 1


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "my store ü"  # a space and a non-ASCII letter, as users name folders
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "I am vegan", value="vegan")])
    return path


def refused(args: list[str]):
    started = time.perf_counter()
    result = CliRunner().invoke(app, args)
    assert time.perf_counter() - started < 10, "refused only after Ray started"
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert not result.stdout.strip(), result.stdout  # no bar, no summary
    return lines[0]


@pytest.mark.parametrize("command", ["reindex", "normalize"])
def test_a_pool_larger_than_the_machine_is_refused_before_ray_with_what_to_give(store, command):
    import ray

    before = (store / "vault.json").read_text()
    plan = store.parent / "plan"
    extra = ["--embedder", "hashing", "--dim", "64"] if command == "reindex" else ["-e", "hashing", "--out", str(plan)]
    line = refused([command, "--store", str(store), *extra, "--cpus-per-actor", str(CPUS + 1)])
    assert f"need {CPUS + 1} Ray CPUs and this machine has {CPUS}" in line, line
    assert f"give --cpus-per-actor {CPUS} or less, or leave it out" in line, line
    line = refused([command, "--store", str(store), *extra, "--actors", str(CPUS + 1)])
    assert f"give --actors {CPUS} or fewer" in line, line
    line = refused([command, "--store", str(store), *extra, "--actors", "2", "--cpus-per-actor", str(CPUS)])
    assert f"need {2 * CPUS} Ray CPUs" in line and f"give --cpus-per-actor {CPUS // 2} or less" in line, line
    assert not ray.is_initialized()
    assert (store / "vault.json").read_text() == before  # the store is as it was
    assert not plan.exists()


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_pool_of_no_cpu_is_a_usage_error(store, value):
    result = CliRunner().invoke(app, ["reindex", "--store", str(store), "-e", "hashing", "--cpus-per-actor", value])
    assert result.exit_code == 2 and "--cpus-per-actor" in result.output, result.output
