"""Precomputed text vectors in the replay, and the local-model embedding stage
(`EmbedWrites`, run here as a plain class; tests/integration runs it in a Ray Data
actor pool)."""

from __future__ import annotations

import numpy as np
import pytest

from vault_ray import HashingEmbedder, InvalidEmbedding
from vault_ray.evals.config import EvalConfig, GeneratorConfig
from vault_ray.evals.embedding import VECTORS, EmbedWrites, registry_texts, vectors_by_write
from vault_ray.evals.generator import generate_table
from vault_ray.evals.handmade import scenarios_table, three_write_examples
from vault_ray.evals.namespace import SALT_DIM, TableEmbedder, TenantEmbedder, tenant_vectors
from vault_ray.evals.policies import build_policies
from vault_ray.evals.replay import replay_block, text_vectors
from vault_ray.evals.scenario import scenarios_from_arrow

EV = EvalConfig(judge_accuracy=0.7)


def precomputed(scenarios, embedder):
    return [embedder.embed([w.text for w in s.writes]) for s in scenarios]


def test_tenants_stay_apart_at_any_text_dimension():
    text = HashingEmbedder(100).embed(["my time zone is pst"] * 3)
    vecs = tenant_vectors(text, [1, 1, 2])
    assert vecs.shape == (3, 100 + SALT_DIM)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-6)
    assert vecs[0] @ vecs[1] == pytest.approx(1.0, abs=1e-6)  # same text, same tenant
    assert vecs[0] @ vecs[2] < 0.75  # same text, other tenant: below the 0.85 ask band


def test_a_block_with_precomputed_vectors_decides_like_isolated_vaults():
    """Vectors of another model and dimension (a 100-dim hashing embedder standing in for
    the local model) go through the shared vault exactly as through one vault per scenario."""
    scenarios = scenarios_from_arrow(generate_table(8, GeneratorConfig(seed=5, p_drift=0.6, p_simultaneous=0.5)))
    model = HashingEmbedder(100)
    vectors = text_vectors(scenarios, precomputed(scenarios, model))
    table = dict(zip(registry_texts(), model.embed(registry_texts()), strict=True))
    embedder = TenantEmbedder(TableEmbedder(table, name="hashing-100"))
    assert embedder.dim == 100 + SALT_DIM
    for spec in build_policies(["recency", "judge"], GeneratorConfig(), EV):
        shared = replay_block(scenarios, spec, EV, vectors=vectors, embedder=embedder)
        alone = replay_block(scenarios, spec, EV, vectors=vectors, embedder=embedder, isolated=True)
        assert shared == alone, spec.name
    assert sum(c["drifted"] for c in shared) > 5 and sum(c["drift_resolved"] for c in shared) > 0


def test_precomputed_vectors_must_match_the_writes():
    scenarios = scenarios_from_arrow(scenarios_table(three_write_examples()))
    vecs = precomputed(scenarios, HashingEmbedder(32))
    with pytest.raises(ValueError, match="one row per write"):
        text_vectors(scenarios, vecs[:-1] + [vecs[-1][:1]])


def test_a_table_embedder_refuses_text_it_has_no_vector_for():
    embedder = TableEmbedder({"user timezone: the zone": [1.0, 0.0]}, name="t")
    assert embedder.embed(["user timezone: the zone"]).shape == (1, 2)
    with pytest.raises(InvalidEmbedding, match="no precomputed vector"):
        embedder.embed(["something else"])
    with pytest.raises(ValueError):
        TableEmbedder({}, name="empty")


def test_a_batch_without_vectors_is_hashed_by_the_replay():
    assert vectors_by_write(scenarios_table(three_write_examples())) is None


@pytest.mark.slow
def test_embed_writes_adds_the_local_models_vector_of_every_write_once_per_distinct_text():
    from vault_ray import LocalEmbedder

    table = scenarios_table(three_write_examples())
    stage = EmbedWrites()
    out = stage(table)
    assert out.column_names == [*table.column_names, VECTORS]
    texts = [[w["text"] for w in row] for row in table.column("writes").to_pylist()]
    distinct = {t for row in texts for t in row}
    assert stage.embedded == len(distinct) < sum(map(len, texts))  # repeats are embedded once
    per_write = vectors_by_write(out)
    assert [v.shape for v in per_write] == [(len(row), 384) for row in texts]
    reference = LocalEmbedder()
    for row, vecs in zip(texts, per_write, strict=True):
        assert np.allclose(vecs, reference.embed(row), atol=1e-5)
    again = stage(out)  # a second batch of known texts: served from the cache, column replaced
    assert stage.embedded == len(distinct) and again.column_names == out.column_names


def test_the_local_embedder_needs_a_cpu_for_the_replays_besides_its_actors():
    from vault_ray.evals.job import check_cpus

    check_cpus(EvalConfig(embedder="local"), 2)
    check_cpus(EvalConfig(embedder="hashing"), 1)
    with pytest.raises(ValueError, match="needs at least 2 Ray CPUs .* Ray has 1"):
        check_cpus(EvalConfig(embedder="local"), 1)
    with pytest.raises(ValueError, match="needs at least 3 Ray CPUs"):
        check_cpus(EvalConfig(embedder="local", embed_actors=2), 2)
    # counted by the free CPUs: those a Serve replica holds are not the job's (the message says what to do)
    with pytest.raises(ValueError, match="needs at least 2 Ray CPUs .* Ray has 1 .*1 of Ray's 2 free.*--replica-cpus"):
        check_cpus(EvalConfig(embedder="local"), 1, 2)
    with pytest.raises(ValueError, match="no Ray CPU is free .*--replica-cpus"):
        check_cpus(EvalConfig(embedder="hashing"), 0, 2)
