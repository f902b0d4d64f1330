"""Replaying scenarios through real vaults (DuckDB under tmp, FAISS), without Ray."""

from __future__ import annotations

import pytest

from vault_ray import Policy
from vault_ray.evals.config import EvalConfig, GeneratorConfig
from vault_ray.evals.generator import generate_table
from vault_ray.evals.handmade import HandWrite, scenario_row, scenarios_table, three_write_examples
from vault_ray.evals.namespace import Namespace, NamespacedRegistry, split_tenant
from vault_ray.evals.policies import POLICY_NAMES, OracleJudge, build_policies, build_policy
from vault_ray.evals.replay import replay_block, text_vectors
from vault_ray.evals.scenario import scenarios_from_arrow

EV = EvalConfig(judge_accuracy=1.0)
GEN = GeneratorConfig()

# Worked out by hand in docs/evals.md ("Known answers"): nonzero counts per scenario.
CONTESTED_KEEPS_INCUMBENT = [
    {"final_correct": 1, "final_contested": 1, "reads": 2, "reads_correct": 2, "overwrites": 1, "disputes": 1},
    {"final_correct": 1, "final_contested": 1, "disputes": 1},
]
HIGH_STAKES = {"final_correct": 1, "final_contested": 1, "disputes": 1, "escalated": 1, "must_escalate": 1,
               "escalated_tp": 1}
EXPECTED = {
    "lww": [{"reads": 2, "reads_correct": 1, "reads_stale": 1, "overwrites": 2, "wrong_overwrites": 1},
            {"overwrites": 1, "wrong_overwrites": 1},
            {"final_correct": 1, "final_strict": 1, "overwrites": 2, "wrong_overwrites": 1, "must_escalate": 1}],
    "recency": [{"final_correct": 1, "final_strict": 1, "reads": 2, "reads_correct": 2, "overwrites": 1},
                {"overwrites": 1, "wrong_overwrites": 1}, HIGH_STAKES],
    "authority": [*CONTESTED_KEEPS_INCUMBENT, HIGH_STAKES],
    "consensus": [*CONTESTED_KEEPS_INCUMBENT, HIGH_STAKES],
    "judge": [{"final_correct": 1, "final_strict": 1, "reads": 2, "reads_correct": 2, "overwrites": 1,
               "judge_calls": 1},
              {"final_correct": 1, "final_strict": 1, "judge_calls": 2}, HIGH_STAKES],
    "mixed": [*CONTESTED_KEEPS_INCUMBENT, HIGH_STAKES],
}


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    """Every count but the ones each example has alike (3 writes on 1 entity, its first write new)."""
    return {k: v for k, v in counts.items() if v and k not in ("writes", "entities", "new_entity_writes")}


@pytest.fixture(scope="module")
def examples():
    return scenarios_from_arrow(scenarios_table(three_write_examples()))


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_three_write_examples_end_as_worked_out(policy, examples):
    counts = replay_block(examples, build_policy(policy, GEN, EV), EV)
    assert [(c["writes"], c["new_entity_writes"], c["false_alignments"]) for c in counts] == [(3, 1, 0)] * 3
    assert [nonzero(c) for c in counts] == EXPECTED[policy]


def test_one_vault_per_block_decides_like_one_vault_per_scenario():
    scenarios = scenarios_from_arrow(generate_table(8, GeneratorConfig(seed=11, p_drift=0.5, p_simultaneous=0.5)))
    vectors = text_vectors(scenarios)
    assert sum(len(s.writes) for s in scenarios) > 40
    for spec in build_policies(["recency", "mixed"], GEN, EvalConfig(judge_accuracy=0.7)):
        shared = replay_block(scenarios, spec, EvalConfig(judge_accuracy=0.7), vectors=vectors)
        alone = replay_block(scenarios, spec, EvalConfig(judge_accuracy=0.7), vectors=vectors, isolated=True)
        assert shared == alone, spec.name
    assert sum(c["drifted"] for c in shared) > 5 and sum(c["drift_resolved"] for c in shared) > 0
    assert sum(c["judge_calls"] for c in shared) > 0


def test_drifted_labels_resolve_within_their_own_scenario():
    rows = [scenario_row(i, truth={"user.timezone": [(0, "pst")]}, writes=[
        HandWrite("scheduler", "user.timezone", "pst", observed=10),
        HandWrite("chat", "user.timezone", "pst", observed=20, label="user.tz", drift="alias"),
        HandWrite("chat", "user.timezone", "pst", observed=30, label="user.zone", drift="novel"),
    ]) for i in range(3)]
    counts = replay_block(scenarios_from_arrow(scenarios_table(rows)), build_policy("recency", GEN, EV), EV)
    assert [(c["drifted"], c["drift_resolved"], c["final_strict"]) for c in counts] == [(2, 2, 1)] * 3


def test_namespacing_keeps_policy_patterns_and_registry_aliases():
    ns = Namespace()
    policy = ns.policy(Policy(strategies={"user.timezone": "authority"}, authority={"a": {"user.diet": 0.9}}))
    assert policy.strategy_for("user.timezone.sc4") == "authority"
    assert policy.weight("a", "user.diet.sc4") == 0.9
    assert policy.is_high_stakes("user.payment.method.sc4")
    reg = NamespacedRegistry.builtin()
    assert reg.canonical("user.tz.sc4") == "user.timezone.sc4"
    assert "user.schedule.gym.sc4" in reg and "user.zone.sc4" not in reg
    assert split_tenant("user.timezone.sc12") == ("user.timezone", ".sc12")
    assert Namespace.isolated().key("user.tz", 4) == "user.tz"


def test_judge_accuracy_is_a_probability_of_naming_the_true_claim():
    from vault_ray import Claim, JudgeCase, Kind, Status
    from vault_ray.models import utcnow

    def claim(cid, value):
        now = utcnow()
        return Claim(cid, "user.diet", value, value, Kind.SEMANTIC, "a", None, now, now, Status.ACTIVE)

    right = 0
    for i in range(400):
        judge = OracleJudge(0.8, seed=1, truth=lambda case: (0, "vegan"))
        answer = judge(JudgeCase(claim(f"in{i}", "keto"), (claim(f"old{i}", "vegan"),)))
        right += answer.winner == f"old{i}"
    assert 0.74 < right / 400 < 0.86
    assert OracleJudge(1.0, 1, lambda case: (0, "paleo"))(JudgeCase(claim("x", "keto"), (claim("y", "vegan"),))).winner is None
