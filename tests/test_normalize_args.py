"""`vault-ray normalize` checks its `--embedder` before it starts Ray, as reindex does: an
unknown name, `openai:MODEL` without a key, are one error line (exit 2), no plan, no Ray;
`normalize(...)` in Python raises the same `InvalidInput` before anything runs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidInput, Vault
from vault_ray.cli import app
from vault_ray.evals.normalize import normalize

runner = CliRunner()


@pytest.fixture
def store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("a").add_facts([Fact("user.workplace", "The user works at Acme", value="Acme")], resolve=False)
        vault.agent("b").add_facts([Fact("user.employer", "The user works for Globex", value="Globex")], resolve=False)
    return str(tmp_path / "s")


def ray_started() -> bool:
    ray = pytest.importorskip("ray")
    return bool(ray.is_initialized())


@pytest.mark.parametrize(("embedder", "why"), [
    ("foo", "unknown embedder 'foo'"),
    ("openai:text-embedding-3-small", "needs an API key: set OPENAI_API_KEY"),
    ("openai:my-model", "give --dim"),
    ("openai:", "name the model"),
])
def test_a_bad_embedder_is_one_line_before_ray_starts(store, tmp_path, monkeypatch, embedder, why):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "plan"
    result = runner.invoke(app, ["normalize", "--store", store, "--hashing", "--embedder", embedder, "--out", str(out)])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and said.startswith("error:") and why in said, said
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2
    assert not out.exists() and not ray_started()


def test_the_library_refuses_an_openai_embedder_without_a_key_before_anything_runs(store, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytest.importorskip("openai")
    with pytest.raises(InvalidInput, match="OPENAI_API_KEY"):
        normalize(store=store, out=tmp_path / "plan", embedder="openai:text-embedding-3-large")
    assert not (tmp_path / "plan").exists() and not ray_started()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:  # the store is as it was
        assert vault.get("user.workplace").values == ("Acme",) and vault.get("user.employer").values == ("Globex",)


def test_the_help_names_every_embedder_it_takes():
    said = " ".join(runner.invoke(app, ["normalize", "--help"], env={"COLUMNS": "200"}).output.split())
    assert "local (the default), hashing or openai:MODEL" in said, said
