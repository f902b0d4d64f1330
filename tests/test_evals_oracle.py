"""The reliability oracle: exact decisions on hand-built scenarios, and the ceiling it
sets on the generator's default world (replayed without Ray, by the job's own function)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow.compute as pc
import pytest

from vault_ray.evals.catalog import BY_KEY
from vault_ray.evals.config import EvalConfig, GeneratorConfig
from vault_ray.evals.generator import generate_table
from vault_ray.evals.handmade import HandWrite, scenario_row, scenarios_table
from vault_ray.evals.job import replay_batch
from vault_ray.evals.metrics import summarize
from vault_ray.evals.oracle import Belief, World, posterior, reliability_of
from vault_ray.evals.oracle import oracle_replay as replay
from vault_ray.evals.policies import POLICY_NAMES, build_policy
from vault_ray.evals.scenario import scenarios_from_arrow
from vault_ray.evals.uncertainty import UnitCounts, comparisons
from vault_ray.evals.weights import HELD, LearnedWeights, agreement, learned_policy

H, D = 3600.0, 86400.0
TZ = "user.timezone"
RELIABILITY = {"scheduler": {TZ: 0.95}, "chat": {TZ: 0.6}, "billing": {TZ: 0.7}}


def decisions(writes, gen: GeneratorConfig | None = None) -> list[str | None]:
    """The oracle's answer on user.timezone (truth: cet throughout) after each write."""
    row = scenario_row(1, truth={TZ: [(0, "cet")]}, writes=writes, reliability=RELIABILITY)
    (s,) = scenarios_from_arrow(scenarios_table([row]))
    return [answer for _, answer in replay(s, gen or GeneratorConfig())[1]]


def w(agent: str, value: str, observed: float, **kw) -> HandWrite:
    return HandWrite(agent, TZ, value, observed, **kw)


def test_an_unreliable_agent_needs_three_independent_reports_against_a_reliable_one():
    # Minutes apart no change is plausible: P(reports | truth) is a product over reports.
    # cet: 0.95 * (0.4/7)^k, pst: (0.05/7) * 0.6^k (8 timezones; a wrong report is one of 7).
    # k = 2: 3.1e-3 vs 2.6e-3, cet stays; k = 3: 1.8e-4 vs 1.5e-3, pst wins.
    writes = [w("scheduler", "cet", 100), w("chat", "pst", 200), w("chat", "pst", 300), w("chat", "pst", 400)]
    assert decisions(writes) == ["cet", "cet", "cet", "pst"]


def test_two_weaker_agents_agreeing_outweigh_one_reliable_agent():
    # cet: 0.95 * (0.4/7) * (0.3/7) = 2.3e-3 < pst: (0.05/7) * 0.6 * 0.7 = 3.0e-3
    assert decisions([w("scheduler", "cet", 100), w("chat", "pst", 200), w("billing", "pst", 300)]) == \
        ["cet", "cet", "pst"]


def test_an_agent_repeating_itself_within_a_day_is_mostly_copying_itself():
    writes = [w("scheduler", "cet", 100), w("chat", "pst", 200), w("chat", "pst", 200 + 2 * H),
              w("chat", "pst", 200 + 4 * H)]
    assert decisions(writes) == ["cet", "cet", "cet", "cet"]  # the world repeats reports (p_repeat 0.15)
    assert decisions(writes, replace(GeneratorConfig(), p_repeat=0.0)) == ["cet", "cet", "cet", "pst"]


def test_time_between_reports_makes_a_change_plausible():
    # Ten days apart the truth changes with probability ~0.19 (0.5 changes in 24 days):
    # the scheduler's new value is a change; the chat agent's is still more likely an error.
    assert decisions([w("scheduler", "cet", 100), w("scheduler", "pst", 10 * D)]) == ["cet", "pst"]
    assert decisions([w("scheduler", "cet", 100), w("chat", "pst", 10 * D)]) == ["cet", "cet"]


def test_a_late_report_of_the_old_value_does_not_undo_a_change():
    writes = [w("scheduler", "cet", 100), w("scheduler", "pst", 10 * D),
              w("chat", "cet", 10 * D - 600, delivered=12 * D)]
    assert decisions(writes) == ["cet", "pst", "pst"]


def test_counts_follow_the_decisions():
    row = scenario_row(1, truth={TZ: [(0, "cet")]}, reliability=RELIABILITY, queries=[(TZ, 250), (TZ, 500)], writes=[
        w("scheduler", "cet", 100), w("chat", "pst", 200), w("chat", "pst", 300), w("chat", "pst", 400)])
    (s,) = scenarios_from_arrow(scenarios_table([row]))
    counts = replay(s, GeneratorConfig())[0][TZ]
    nonzero = {k: v for k, v in counts.items() if v}
    assert nonzero == {"writes": 4, "entities": 1, "reads": 2, "reads_correct": 1, "overwrites": 1,
                       "wrong_overwrites": 1, "new_entity_writes": 1}  # pst replaced the true cet; the read at 500 sees pst


def test_the_posterior_is_a_distribution_and_without_reports_uniform():
    world = World.of(GeneratorConfig())
    assert posterior([], 5, world) == pytest.approx(np.full(5, 0.2))
    row = scenario_row(1, truth={TZ: [(0, "cet")]}, writes=[w("chat", "pst", 100)], reliability=RELIABILITY)
    (s,) = scenarios_from_arrow(scenarios_table([row]))
    assert replay(s, GeneratorConfig())[1] == [("s1w0", "pst")]  # one report: its value


@pytest.fixture(scope="module")
def default_world():
    """The policies that see no ground truth (all but those consulting the scripted judge),
    and the oracle, on the generator's default world at a fixed seed, through the job's replay
    function (no Ray); `learned` on the held half with weights from the other."""
    gen, ev = GeneratorConfig(seed=7), EvalConfig()
    blind = ["learned"] + [p for p in POLICY_NAMES if not build_policy(p, gen, ev).uses_judge]
    assert set(blind) == {"learned", "lww", "recency", "authority", "consensus"}  # judge, mixed: the judge
    table = generate_table(240, gen)
    weights = LearnedWeights.from_tables([agreement(table)]).weights
    rows = replay_batch(table, policies=[*blind, "oracle"], generator=gen.to_dict(), evaluation=ev.to_dict(), seed=7,
                        custom={"learned": learned_policy(weights, ev).to_dict()}, scopes={"learned": HELD})
    return blind, rows


def test_the_oracle_is_at_least_as_accurate_as_every_policy_that_sees_no_ground_truth(default_world):
    blind, rows = default_world
    units = UnitCounts(240, (0.0, 1.01))
    units.add(rows)
    diffs = comparisons(units, ["oracle", *blind], metrics=["final_accuracy"], resamples=500, seed=7)
    summary = {r["policy"]: r for r in summarize(rows).to_pylist()}
    for r in diffs.to_pylist():
        assert r["policy"] == "oracle" or r["versus"] != "oracle"
        if r["policy"] != "oracle":
            continue
        print(f"oracle - {r['versus']}: {100 * r['difference']:+.1f} points [95% CI {100 * r['low']:+.1f}, "
              f"{100 * r['high']:+.1f}] on {r['scenarios']} scenarios")
        assert r["difference"] >= 0, r
        assert r["low"] <= r["difference"] <= r["high"]
    oracle = summary["oracle"]["final_accuracy"]
    assert all(oracle >= summary[p]["final_accuracy"] for p in blind)


def test_the_oracle_never_disputes_and_reads_drifted_labels_on_their_entity(default_world):
    _, rows = default_world
    oracle = rows.filter(pc.equal(rows.column("policy"), "oracle"))
    for column in ("disputes", "final_contested", "escalated", "judge_calls", "rejected"):
        assert pc.sum(oracle.column(column)).as_py() == 0
    assert pc.sum(oracle.column("drifted")).as_py() > 0
    assert oracle.column("drift_resolved").equals(oracle.column("drifted"))
    assert pc.all(pc.equal(oracle.column("final_strict"), oracle.column("final_correct"))).as_py()


def test_the_incremental_filter_equals_filtering_every_report_again():
    """Late deliveries re-filter from where they belong; the result is the posterior of all
    reports delivered so far, computed from scratch."""
    gen = GeneratorConfig(seed=3, report_rate=6.0, p_late=0.5, p_repeat=0.4, p_simultaneous=0.5)
    world = World.of(gen)
    late = 0
    for s in scenarios_from_arrow(generate_table(30, gen)):
        for entity in s.entities:
            belief = Belief(list(BY_KEY[entity].values), world)
            for w in (w for w in s.writes if w.entity == entity):  # delivery order
                late += bool(belief.ordered) and w.observed_at < belief.ordered[-1].observed_at
                belief.add(w.observed_at, w.value, reliability_of(s, gen, w.agent, entity), w.agent)
                full = posterior(belief.reports, len(belief.values), world)
                assert belief.states[-1].sum(axis=1) == pytest.approx(full, rel=1e-9, abs=1e-12)
    assert late > 20
