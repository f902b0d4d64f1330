"""The synthetic scenario generator: seeded, documented schema, ground truth that
holds up when recomputed one write at a time."""

from __future__ import annotations

import json
import time
from collections import Counter

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from vault_ray.evals.catalog import BY_KEY, CATALOG
from vault_ray.evals.config import EvalConfig, GeneratorConfig, load_config
from vault_ray.evals.generator import SCENARIO_SCHEMA, generate_table, read_config, write_scenarios
from vault_ray.evals.handmade import ground_truth
from vault_ray.evals.scenario import scenarios_from_arrow
from vault_ray.models import validate_entity
from vault_ray.registry import EntityRegistry

DRIFTY = GeneratorConfig(seed=7, p_drift=0.4, p_late=0.3, p_simultaneous=0.5, p_repeat=0.4)


@pytest.fixture(scope="module")
def table():
    return generate_table(400, DRIFTY)


@pytest.fixture(scope="module")
def scenarios(table):
    return scenarios_from_arrow(table)


def test_same_seed_same_data_other_seed_other_data():
    a = generate_table(50, GeneratorConfig(seed=3))
    b = generate_table(50, GeneratorConfig(seed=3))
    c = generate_table(50, GeneratorConfig(seed=4))
    assert a.equals(b)
    assert not a.equals(c)


def test_schema_and_ids(table):
    assert table.schema.equals(SCENARIO_SCHEMA, check_metadata=False)
    assert table.column("scenario_id").to_pylist() == list(range(400))
    ids = pc.struct_field(pc.list_flatten(table["writes"]), "write_id").to_pylist()
    assert len(ids) == len(set(ids))


def test_chunks_number_scenarios_consecutively():
    t = generate_table(25, GeneratorConfig(seed=1), chunk_size=10)
    assert t.column("scenario_id").to_pylist() == list(range(25))


def test_every_write_is_graded_against_the_truth(scenarios):
    for s in scenarios:
        assert s.entities and len(s.entities) == len(set(s.entities))
        delivered = [w.delivered_at for w in s.writes]
        assert delivered == sorted(delivered)  # writes are stored in delivery order
        for w in s.writes:
            assert w.entity in s.entities
            assert w.correct == (w.value == s.truth_at(w.entity, w.observed_at))
            assert w.value in BY_KEY[w.entity].values
            assert w.delivered_at >= w.observed_at
        for q in s.queries:
            assert q.value == s.truth_at(q.entity, q.at)


def test_truth_changes_to_a_different_value(table):
    for row in table.select(["truth"]).to_pylist():
        by_entity: dict[str, list[str]] = {}
        for seg in sorted(row["truth"], key=lambda x: (x["entity"], x["valid_from"])):
            by_entity.setdefault(seg["entity"], []).append(seg["value"])
        for values in by_entity.values():
            assert all(a != b for a, b in zip(values, values[1:], strict=False))


def test_conflict_flags_match_the_one_write_at_a_time_reference(table):
    for row in table.to_pylist():
        high = {e["entity"] for e in row["entities"] if e["high_stakes"]}
        expected = ground_truth(row["writes"], high)
        got = [{k: w[k] for k in ("conflict", "genuine", "must_escalate")} for w in row["writes"]]
        assert got == expected, row["scenario_id"]


def test_only_high_stakes_entities_must_escalate(scenarios):
    must = [w for s in scenarios for w in s.writes if w.must_escalate]
    assert must
    assert {w.entity for w in must} == {s.key for s in CATALOG if s.high_stakes}
    assert all(w.genuine and w.conflict for w in must)


def test_label_drift_kinds(scenarios):
    registry = EntityRegistry.builtin()
    kinds = Counter()
    for w in (w for s in scenarios for w in s.writes):
        validate_entity(w.label)
        kinds[w.drift] += 1
        if w.drift == "":
            assert w.label == w.entity
        elif w.drift == "alias":
            assert registry.canonical(w.label) == w.entity != w.label
        elif w.drift == "novel":
            assert w.label in BY_KEY[w.entity].novel and w.label not in registry
        else:
            assert w.drift == "mislabel" and w.label in BY_KEY and w.label != w.entity
    assert set(kinds) == {"", "alias", "novel", "mislabel"}
    assert 0.3 < 1 - kinds[""] / sum(kinds.values()) < 0.5  # p_drift = 0.4


def test_late_simultaneous_and_repeated_writes(scenarios):
    writes = [w for s in scenarios for w in s.writes]
    late = [w for w in writes if w.late]
    assert late and all(w.delivered_at - w.observed_at >= DRIFTY.late_lag_s[0] for w in late)
    assert all(w.delivered_at - w.observed_at <= DRIFTY.normal_lag_s for w in writes if not w.late)
    assert any(w.repeat for w in writes)
    for s in scenarios:  # each pair: two sessions, within the gap, different values
        pair = [w for w in s.writes if w.simultaneous]
        for e in {w.entity for w in pair}:
            a, b = sorted((w for w in pair if w.entity == e), key=lambda w: w.session[-1])
            assert a.session.endswith("-1") and b.session.endswith("-2")
            assert 0 <= b.observed_at - a.observed_at < DRIFTY.simultaneous_gap_s
            assert a.value != b.value


def test_reliability_shapes_correctness(scenarios):
    rate = {}
    for agent in ("scheduler", "chat"):
        graded = [w.correct for s in scenarios for w in s.writes
                  if w.agent == agent and BY_KEY[w.entity].domain == "schedule" and not w.repeat]
        rate[agent] = sum(graded) / len(graded)
    assert rate["scheduler"] > 0.85 > 0.7 > rate["chat"] > 0.45


def test_write_read_back_with_config(tmp_path):
    cfg = GeneratorConfig(seed=9, entities_max=2)
    paths = write_scenarios(30, tmp_path / "sc", cfg, chunk_size=20)
    assert len(paths) == 2
    assert read_config(paths[0]) == cfg
    back = pq.read_table(tmp_path / "sc")
    assert back.num_rows == 30
    assert back.schema.equals(SCENARIO_SCHEMA, check_metadata=False)


def test_config_from_toml_and_json(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text('[generator]\nseed = 5\np_late = 0.2\nlate_lag_s = [60.0, 120.0]\n'
                    '[generator.agents.a]\n"*" = 0.9\n[generator.agents.b]\n"*" = 0.5\n'
                    '[generator.agent_mix]\na = 0.5\nb = 0.5\n[eval]\njudge_accuracy = 0.7\n')
    gen, ev = load_config(toml)
    assert gen.seed == 5 and gen.late_lag_s == (60.0, 120.0) and gen.reliability("a", "payment") == 0.9
    assert ev == EvalConfig(judge_accuracy=0.7)
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"generator": gen.to_dict(), "eval": ev.to_dict()}))
    assert load_config(js) == (gen, ev)


@pytest.mark.parametrize("bad", [{"p_late": 1.5}, {"agent_mix": {"nobody": 1.0}}, {"entities_max": 9},
                                 {"agents": {"a": {"cooking": 0.5}}, "agent_mix": {"a": 1.0}}, {"typo": 1}])
def test_bad_config_is_refused(bad):
    with pytest.raises(ValueError):
        GeneratorConfig.from_dict(bad)


def test_generation_is_vectorized_fast():
    start = time.perf_counter()
    t = generate_table(20_000, GeneratorConfig(seed=2))
    assert t.num_rows == 20_000
    assert time.perf_counter() - start < 10  # ~0.5 s on 2 cores; a Python loop per write takes minutes
