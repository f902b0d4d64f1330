"""The Ray Data evaluation job end to end: known answers, a reliability gap, the
report, its charts and the results Parquet."""

from __future__ import annotations

import json
import math

import matplotlib.image as mpimg
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vault_ray.cli import app
from vault_ray.evals.config import EvalConfig, GeneratorConfig
from vault_ray.evals.handmade import scenarios_table, three_write_examples
from vault_ray.evals.job import run_eval
from vault_ray.evals.metrics import RESULTS_SCHEMA, SUMMARY_SCHEMA
from vault_ray.evals.policies import POLICY_NAMES
from vault_ray.evals.report import CHARTS, RECOMMENDATION_CHART, fmt, fmt_ci
from vault_ray.policy_file import read_policy_file

PNG = b"\x89PNG\r\n\x1a\n"
NAN = math.nan
# Summed over the three hand-built scenarios (9 writes, 3 entities, 2 reads); worked
# out in docs/evals.md, "Known answers".
KEEPS_INCUMBENT = {"final_accuracy": 1.0, "final_strict_accuracy": 0.0, "final_contested_rate": 1.0,
                   "read_accuracy": 1.0, "stale_read_rate": 0.0, "wrong_overwrite_rate": 0.0,
                   "disputes_per_1k": 3000 / 9, "escalation_recall": 1.0, "escalation_precision": 1.0,
                   "judge_calls_per_1k": 0.0}
EXPECTED = {
    "lww": {"final_accuracy": 1 / 3, "final_strict_accuracy": 1 / 3, "final_contested_rate": 0.0,
            "read_accuracy": 0.5, "stale_read_rate": 0.5, "wrong_overwrite_rate": 3 / 9, "disputes_per_1k": 0.0,
            "escalation_recall": 0.0, "escalation_precision": NAN, "judge_calls_per_1k": 0.0},
    "recency": {"final_accuracy": 2 / 3, "final_strict_accuracy": 1 / 3, "final_contested_rate": 1 / 3,
                "read_accuracy": 1.0, "stale_read_rate": 0.0, "wrong_overwrite_rate": 1 / 9,
                "disputes_per_1k": 1000 / 9, "escalation_recall": 1.0, "escalation_precision": 1.0,
                "judge_calls_per_1k": 0.0},
    "authority": KEEPS_INCUMBENT,
    "consensus": KEEPS_INCUMBENT,
    "judge": {"final_accuracy": 1.0, "final_strict_accuracy": 2 / 3, "final_contested_rate": 1 / 3,
              "read_accuracy": 1.0, "stale_read_rate": 0.0, "wrong_overwrite_rate": 0.0,
              "disputes_per_1k": 1000 / 9, "escalation_recall": 1.0, "escalation_precision": 1.0,
              "judge_calls_per_1k": 3000 / 9},
    "mixed": KEEPS_INCUMBENT,
}
GAP_WORLD = GeneratorConfig(
    seed=42, agents={"scheduler": {"*": 0.95}, "chat": {"*": 0.55}}, agent_mix={"scheduler": 0.5, "chat": 0.5},
    reliability_jitter=0.0, change_rate=0.0, p_late=0.0, p_simultaneous=0.0, p_drift=0.0, reports_min=2,
    report_rate=2.0, entities_max=2,
)


@pytest.fixture(autouse=True)
def quiet_ray_data(ray_session):
    import ray

    ray.data.DataContext.get_current().enable_progress_bars = False


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def test_three_write_examples_give_exactly_the_expected_metrics(tmp_path):
    pq.write_table(scenarios_table(three_write_examples()), tmp_path / "hand.parquet")
    run = run_eval(tmp_path / "hand.parquet", POLICY_NAMES, generator=GeneratorConfig(),
                   evaluation=EvalConfig(judge_accuracy=1.0), results_path=tmp_path / "results.parquet")
    assert run.scenarios == 3
    rows = {r["policy"]: r for r in run.summary.to_pylist()}
    assert set(rows) == set(POLICY_NAMES)
    for policy, expected in EXPECTED.items():
        assert rows[policy]["writes"] == 9 and rows[policy]["scenarios"] == 3
        wrong = {k: (rows[policy][k], v) for k, v in expected.items() if not same(rows[policy][k], v)}
        assert not wrong, (policy, wrong)
    results = pq.read_table(tmp_path / "results.parquet")
    assert results.schema.equals(RESULTS_SCHEMA) and results.num_rows == 3 * len(POLICY_NAMES)


def test_reliability_gap_lww_is_worse_than_authority_and_the_report_shows_it(tmp_path):
    """Through the CLI: a fixed seed, a chat agent far less reliable than the scheduler. The
    report adds the oracle and learned authority, intervals, and (--recommend) a proposal."""
    config = tmp_path / "gap.json"
    config.write_text(json.dumps({"generator": GAP_WORLD.to_dict()}))
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "--scenarios", "150", "--policies", "lww,authority",
                                      "--config", str(config), "--out", str(out), "--seed", "42", "--recommend"])
    assert result.exit_code == 0, result.output

    summary = pq.read_table(out / "summary.parquet")
    assert summary.schema.equals(SUMMARY_SCHEMA)
    rows = {r["policy"]: r for r in summary.to_pylist()}
    assert list(rows) == ["lww", "authority", "oracle", "learned"]
    lww, auth, oracle = rows["lww"], rows["authority"], rows["oracle"]
    assert auth["final_accuracy"] >= lww["final_accuracy"] + 0.1
    assert auth["wrong_overwrite_rate"] <= 0.75 * lww["wrong_overwrite_rate"]
    assert oracle["final_accuracy"] >= auth["final_accuracy"] and oracle["final_vs_oracle"] == 1.0
    assert auth["final_vs_oracle"] == pytest.approx(auth["final_accuracy"] / oracle["final_accuracy"])
    assert rows["learned"]["scenarios"] == 75  # the odd-numbered half
    for row in rows.values():
        assert row["final_accuracy_low"] <= row["final_accuracy"] <= row["final_accuracy_high"]

    text = (out / "report.md").read_text()
    assert "scenarios/s" in text and "vault-ray eval --scenarios 150 --policies lww,authority,oracle,learned" in text
    assert "Text vectors for entity resolution: the hashing embedder (256 dims)." in text
    for row in rows.values():
        line = next(x for x in text.splitlines() if x.startswith(f"| {row['policy']} |"))
        assert fmt_ci(row["final_accuracy"], row["final_accuracy_low"], row["final_accuracy_high"], "%") in line
        assert fmt(row["wrong_overwrite_rate"], "%") in line and fmt(row["final_vs_oracle"], "%") in line
    assert f"final-state accuracy {fmt(auth['final_accuracy'], '%')} vs {fmt(lww['final_accuracy'], '%')} (+" in text
    assert "outside the noise" in text and "## How close to the best possible" in text
    assert "## Recommendation" in text and "| entity pattern | current | proposed |" in text
    assert "`user.schedule.*`" in text and "proposal.json" in text
    for name in (*CHARTS, RECOMMENDATION_CHART):
        assert f"]({name})" in text
        data = (out / name).read_bytes()
        assert data[:8] == PNG and len(data) > 5_000
        image = mpimg.imread(out / name)
        assert image.shape[0] > 200 and image.shape[1] > 300

    proposal = read_policy_file(out / "proposal.json")
    assert proposal.weight("scheduler", "user.timezone") > proposal.weight("chat", "user.timezone")
    comparisons = pq.read_table(out / "comparisons.parquet").to_pylist()
    assert {(c["policy"], c["versus"]) for c in comparisons} >= {("lww", "authority"), ("authority", "oracle")}
    results = pq.read_table(out / "results.parquet")
    assert results.schema.equals(RESULTS_SCHEMA)
    assert results.num_rows == 150 * 3 + 75
    assert set(results.column("policy").to_pylist()) == {"lww", "authority", "oracle", "learned"}
    assert pq.read_table(out / "scenarios").num_rows == 150
    run = json.loads((out / "run.json").read_text())
    assert run["scenarios"] == 150 and run["generator"]["seed"] == 42


# -- the local model in a map_batches actor pool ---------------------------------------
def test_local_model_path_gives_the_known_answers(tmp_path):
    pq.write_table(scenarios_table(three_write_examples()), tmp_path / "hand.parquet")
    run = run_eval(tmp_path / "hand.parquet", POLICY_NAMES, generator=GeneratorConfig(),
                   evaluation=EvalConfig(judge_accuracy=1.0, embedder="local"))
    rows = {r["policy"]: r for r in run.summary.to_pylist()}
    for policy, expected in EXPECTED.items():
        wrong = {k: (rows[policy][k], v) for k, v in expected.items() if not same(rows[policy][k], v)}
        assert not wrong, (policy, wrong)


def test_local_model_vectors_are_what_the_job_replays(tmp_path):
    """The job's answer equals an in-process replay with the local model's vectors, and
    differs from the hashing embedder's on drifted labels (the vectors matter there)."""
    import numpy as np

    from vault_ray import LocalEmbedder
    from vault_ray.evals.embedding import registry_texts
    from vault_ray.evals.generator import generate_table
    from vault_ray.evals.namespace import TableEmbedder, TenantEmbedder
    from vault_ray.evals.policies import build_policy
    from vault_ray.evals.replay import replay_block, text_vectors
    from vault_ray.evals.scenario import scenarios_from_arrow

    world = GeneratorConfig(seed=9, p_drift=0.6, drift_mix={"novel": 1.0}, entities_max=3)
    table = generate_table(60, world)
    pq.write_table(table, tmp_path / "drift.parquet")
    ev = EvalConfig(judge_accuracy=1.0, embedder="local", block_size=30)
    run = run_eval(tmp_path / "drift.parquet", ["recency"], generator=world, evaluation=ev,
                   results_path=tmp_path / "results.parquet")

    scenarios = scenarios_from_arrow(table)
    model = LocalEmbedder()
    vectors = text_vectors(scenarios, [model.embed([w.text for w in s.writes]) for s in scenarios])
    embedder = TenantEmbedder(TableEmbedder(dict(zip(registry_texts(), model.embed(registry_texts()),
                                                     strict=True)), name="local"))
    spec = build_policy("recency", world, ev)
    by_id = {s.id: c for s, c in zip(scenarios, replay_block(scenarios, spec, ev, vectors=vectors, embedder=embedder),
                                     strict=True)}
    hashed = replay_block(scenarios, spec, ev)
    results = pq.read_table(tmp_path / "results.parquet").to_pylist()
    assert len(results) == 60
    for row in results:
        assert {k: row[k] for k in by_id[row["scenario_id"]]} == by_id[row["scenario_id"]]
    drift = sum(c["drifted"] for c in hashed)
    assert drift > 20
    local_resolved = sum(r["drift_resolved"] for r in results)
    assert local_resolved != sum(c["drift_resolved"] for c in hashed)
    assert run.summary.to_pylist()[0]["resolution_accuracy"] == local_resolved / drift
    assert np.isfinite(run.summary.to_pylist()[0]["final_accuracy"])


def test_a_smaller_run_into_the_same_directory_leaves_no_output_of_the_bigger_one(tmp_path):
    """QA 89: `-n 200 --recommend` then `-n 50 --policies lww` into one OUT left the first
    run's proposal.json and recommendation.png beside the second run's report."""
    from vault_ray.cli.eval import OUTPUTS, SYNTHETIC_OUTPUTS

    assert {*CHARTS, RECOMMENDATION_CHART} <= set(OUTPUTS) and set(CHARTS) <= set(SYNTHETIC_OUTPUTS)
    out, runner = tmp_path / "out", CliRunner()
    first = runner.invoke(app, ["eval", "-n", "40", "--recommend", "--policies", "lww,recency", "--out", str(out)])
    assert first.exit_code == 0 and (out / "proposal.json").exists() and (out / RECOMMENDATION_CHART).exists()
    (out / "notes.md").write_text("the user's")
    second = runner.invoke(app, ["eval", "-n", "10", "--policies", "lww", "--out", str(out)])
    assert second.exit_code == 0, second.output
    assert not (out / "proposal.json").exists() and not (out / RECOMMENDATION_CHART).exists()
    assert (out / "notes.md").exists() and all((out / name).exists() for name in SYNTHETIC_OUTPUTS)
    assert json.loads((out / "run.json").read_text())["scenarios"] == 10
