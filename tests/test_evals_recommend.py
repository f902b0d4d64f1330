"""--recommend on synthetic scenarios (without Ray: the job's replay function in this
process): a world built for it, the choice rules, and applying the proposal."""

from __future__ import annotations

import pytest

from vault_ray import Policy
from vault_ray.evals.config import EvalConfig, GeneratorConfig
from vault_ray.evals.generator import generate_table
from vault_ray.evals.policies import custom_spec
from vault_ray.evals.recommend import PatternChoice, choose, local_replays, proposed_policy, recommend
from vault_ray.evals.replay import replay_block
from vault_ray.evals.scenario import scenarios_from_arrow
from vault_ray.evals.uncertainty import bootstrap
from vault_ray.evals.weights import LearnedWeights, agreement, entity_pattern
from vault_ray.policy_file import read_policy_file

# Agent a knows schedules, agent b knows diets; each is a coin flip elsewhere.
WORLD = GeneratorConfig(
    seed=4, agents={"a": {"schedule": 0.95, "*": 0.5}, "b": {"preferences": 0.95, "*": 0.5}},
    agent_mix={"a": 0.5, "b": 0.5}, reliability_jitter=0.03, change_rate=0.2, p_late=0.05, p_drift=0.0,
    reports_min=2, report_rate=1.0, entities_max=2,
)
EV = EvalConfig()


@pytest.fixture(scope="module")
def proposal(tmp_path_factory):
    table = generate_table(160, WORLD)
    weights = LearnedWeights.from_tables([agreement(table)])
    rec = recommend(local_replays(table, WORLD, EV), weights, Policy(), resamples=500)
    return rec, rec.write(tmp_path_factory.mktemp("rec") / "proposal.json")


def test_entity_patterns():
    assert entity_pattern("user.schedule.gym") == "user.schedule.*"
    assert entity_pattern("user.payment.method") == "user.payment.*"
    assert entity_pattern("user.diet") == "user.diet" and entity_pattern("user") == "user"


def test_the_proposal_trusts_each_agent_where_it_is_reliable(proposal):
    rec, path = proposal
    weights = read_policy_file(path).authority
    assert weights["a"]["user.schedule.*"] > weights["b"]["user.schedule.*"] + 0.2
    assert weights["a"]["user.timezone"] > weights["b"]["user.timezone"] + 0.2
    assert weights["b"]["user.diet"] > weights["a"]["user.diet"] + 0.2
    chosen = {c.pattern: c for c in rec.choices}
    assert chosen["user.payment.*"].high_stakes and "user.payment.*" not in rec.policy.strategies
    for pattern in ("user.schedule.*", "user.timezone", "user.diet"):  # recency cannot tell the agents apart
        assert chosen[pattern].chosen in ("authority", "consensus"), chosen[pattern]
        assert rec.policy.strategy_for(pattern.replace("*", "gym")) == chosen[pattern].chosen
    assert rec.gain("final_accuracy") is not None and rec.gain("final_accuracy").units == 80  # odd ids


def test_applying_the_proposal_improves_final_accuracy_on_fresh_scenarios(proposal):
    _, path = proposal
    fresh = scenarios_from_arrow(generate_table(160, GeneratorConfig(**{**WORLD.to_dict(), "seed": 99})))
    current = replay_block(fresh, custom_spec("current", Policy()), EV)
    applied = replay_block(fresh, custom_spec("proposed", read_policy_file(path)), EV)
    import numpy as np

    units = np.array([[c["final_correct"], c["entities"], a["final_correct"]] for c, a in
                      zip(current, applied, strict=True)], dtype=float)
    (before, after, gain), low, high = bootstrap(
        units, lambda s: np.column_stack([s[:, 0] / s[:, 1], s[:, 2] / s[:, 1], (s[:, 2] - s[:, 0]) / s[:, 1]]),
        resamples=500)
    print(f"fresh scenarios: final-state accuracy {before:.1%} -> {after:.1%}, gain {100 * gain:+.1f} points "
          f"[95% CI {100 * low[2]:+.1f}, {100 * high[2]:+.1f}]")
    assert after > before and low[2] > 0


def totals(**accuracy: float) -> dict:
    out = {}
    for key, acc in accuracy.items():
        strategy, pattern = key.split("__")
        out[(strategy, pattern.replace("_", "."))] = {
            "final_correct": acc * 100, "entities": 100, "reads_correct": 0, "reads": 0, "disputes": 0, "writes": 100}
    return out


def test_choose_takes_the_most_accurate_and_keeps_the_current_strategy_on_a_tie():
    current = Policy(strategies={"user.diet": "consensus"})
    choices, default = choose(totals(recency__user_diet=0.6, authority__user_diet=0.7, consensus__user_diet=0.7,
                                     recency__user_location=0.8, authority__user_location=0.5), current)
    assert [(c.pattern, c.chosen, c.current) for c in choices] == [
        ("user.diet", "consensus", "consensus"), ("user.location", "recency", "recency")]
    assert default == "recency"  # pooled: recency 70%, authority 60%, consensus 70% on fewer entities


def test_the_proposal_replaces_what_its_patterns_cover_and_leaves_high_stakes_alone():
    current = Policy(strategies={"user.schedule.gym": "recency", "user.payment.*": "judge", "user.other": "judge"},
                     authority={"a": {"user.schedule.gym": 0.1}, "z": {"*": 0.7}})
    choices = [PatternChoice("user.schedule.*", 10, {}, "authority", "recency"),
               PatternChoice("user.payment.*", 10, {}, "consensus", "judge", high_stakes=True)]
    policy = proposed_policy(current, choices, "recency", {"a": {"user.schedule.*": 0.9, "*": 0.6}})
    assert policy.strategies == {"user.schedule.*": "authority", "user.payment.*": "judge", "user.other": "judge"}
    assert policy.strategy_for("user.schedule.gym") == "authority"
    assert policy.weight("a", "user.schedule.gym") == 0.9  # the learned table replaces the agent's own
    assert policy.authority["z"] == {"*": 0.7} and policy.version == current.version + 1


def test_a_learned_star_leaves_the_users_entries_the_data_never_labelled():
    current = Policy(authority={"chat": {"user.timezone": 0.2, "user.payment.card": 0.9, "*": 0.4}})
    policy = proposed_policy(current, [], "recency", {"chat": {"user.payment.*": 0.3, "*": 0.333}})
    assert policy.weight("chat", "user.timezone") == 0.2  # no label there: the user's distrust stands
    assert policy.weight("chat", "user.payment.card") == 0.3  # the learned pattern covers it
    assert policy.weight("chat", "user.diet") == 0.333  # the learned `*` replaces the current one


def test_the_proposal_leaves_out_entries_that_change_nothing():
    current = Policy(strategies={"user.diet": "recency"}, authority={"a": {"user.diet": 0.5}})
    choices = [PatternChoice(f"user.pet_{i}", 1, {}, "recency", "recency") for i in range(3)]
    choices += [PatternChoice("user.diet", 5, {}, "recency", "recency"),
                PatternChoice("user.zone", 5, {}, "authority", "recency")]
    learned = {"a": {"user.pet_0": 0.6, "user.pet_1": 0.7, "user.diet": 0.5, "*": 0.6},
               "b": {"user.pet_0": 0.5, "*": 0.5}}
    policy = proposed_policy(current, choices, "recency", learned)
    assert policy.strategies == {"user.diet": "recency", "user.zone": "authority"}  # the user's entry stays
    assert policy.authority == {"a": {"user.pet_1": 0.7, "user.diet": 0.5, "*": 0.6}}  # b: the default weight
    assert all(policy.strategy_for(c.pattern) == c.chosen for c in choices)
    assert all(policy.weight(a, p) == w for a, t in learned.items() for p, w in t.items() if p != "*")
