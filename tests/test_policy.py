"""Patterns (`x.*` matches `x` and its subtree, the same everywhere) and the high-stakes
defaults of seed 001: budget, consent and payment changes always wait for the user."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import (
    AutoResolveRules,
    EntityRegistry,
    Fact,
    InvalidPolicy,
    Judgement,
    Policy,
    RateLimit,
    RegistryEntry,
    ScriptedReasoner,
)
from vault_ray.policy import best_match, specificity

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
EVERY_RULE = AutoResolveRules(reasserted_by=2, stale_after_s=60.0)
EXTRACTOR_KEYS = ["user.budget", "user.budget.trip", "user.payment.method", "user.consent", "user.consent.email_marketing",
                  "user.consent.data_sharing"]
SEED_KEYS = ["budget_authority", "legal_consent", "payment_method", "user.budget_authority", "user.legal_consent",
             "user.payment_method", "budget_authority.travel"]


def test_a_wildcard_matches_its_root_and_subtree_but_not_a_longer_word():
    assert specificity("user.budget.*", "user.budget") is not None
    assert specificity("user.budget.*", "user.budget.trip") is not None
    assert specificity("user.budget.*", "user.budgeting") is None
    assert specificity("user.budget", "user.budget") > specificity("user.budget.*", "user.budget") > specificity(
        "user.*", "user.budget") > specificity("*", "user.budget")
    table = {"user.*": "authority", "user.budget.*": "consensus", "user.budget.trip": "judge"}
    assert [best_match(table, k) for k in ("user.budget", "user.budget.trip", "user.budget.car", "user.name")] == [
        "consensus", "judge", "consensus", "authority"]


def test_every_pattern_lookup_agrees():
    policy = Policy(strategies={"user.schedule.*": "authority"}, cardinality={"user.schedule.*": "many"},
                    high_stakes=("user.schedule.*",)).with_authority("a", "user.schedule.*", 0.9)
    registry = EntityRegistry({"user.schedule.*": RegistryEntry("user.schedule.*", "recurring events")})
    for key in ("user.schedule", "user.schedule.gym"):
        assert policy.strategy_for(key) == "authority" and policy.cardinality_for(key) == "many"
        assert policy.weight("a", key) == 0.9 and policy.is_high_stakes(key)
        assert registry.lookup(key) is not None
    assert registry.lookup("user.schedules") is None and not policy.is_high_stakes("user.schedules")


@pytest.mark.parametrize("key", EXTRACTOR_KEYS + SEED_KEYS)
def test_the_defaults_cover_every_payment_budget_and_consent_key(key):
    assert Policy().is_high_stakes(key)


def test_the_defaults_do_not_escalate_everyday_keys():
    assert not any(Policy().is_high_stakes(k) for k in ("user.timezone", "user.diet", "user.location", "user.budgeting"))


def _still_waiting(vault, dispute_id: str) -> None:
    vault.apply_rules(now=T0 + timedelta(days=30))
    dispute = vault.dispute(dispute_id)
    assert dispute.status == "open" and dispute.needs_user


@pytest.mark.parametrize(("first", "second"), [
    ("My budget is 5000 dollars", "My budget is 9000 dollars"),
    ("I can spend up to $5k", "Keep it under two thousand euros"),
    ("I consent to marketing emails", "I withdraw my consent for marketing emails"),
    ("Stop sending me the newsletter", "Sign me up for the newsletter"),
    ("I pay with PayPal", "Charge it to my Visa"),
    ("My payment method is bank transfer", "I no longer use bank transfer"),
])
def test_seed_001_changes_from_text_wait_for_the_user(make_vault, first, second):
    vault = make_vault(policy=Policy(rules=EVERY_RULE))
    (old,) = vault.agent("planner").add(first, observed_at=T0).decisions
    (new,) = vault.agent("chat").add(second, observed_at=T0 + timedelta(hours=1)).decisions
    assert new.entity == old.entity and new.outcome == "disputed"
    # a third agent repeating the challenge would settle it by `reasserted_by=2`, were it not high stakes
    (again,) = vault.agent("mobile").add(second, observed_at=T0 + timedelta(hours=2)).decisions
    assert again.dispute_id == new.dispute_id and again.outcome == "disputed"
    _still_waiting(vault, new.dispute_id)
    assert vault.get(new.entity).contested


@pytest.mark.parametrize("key", SEED_KEYS)
def test_seed_001_category_names_wait_for_the_user(make_vault, key):
    vault = make_vault(policy=Policy(rules=EVERY_RULE, default_strategy="authority").with_authority("admin", "*", 1.0))
    vault.agent("clerk").add_facts(Fact(key, f"{key} is A", value="A", observed_at=T0))
    (new,) = vault.agent("admin").add_facts(Fact(key, f"{key} is B", value="B", observed_at=T0 + timedelta(hours=1))).decisions
    # the registry may align a name to a key it means (payment_method -> user.payment.method,
    # budget_authority -> user.budget by the label's words): high stakes either way
    assert new.outcome == "disputed" and new.entity in (key, "user.payment.method", "user.budget")  # authority 1.0 does not help
    _still_waiting(vault, new.dispute_id)


def test_the_near_simultaneous_window_does_not_bypass_the_user(make_vault):
    judge_calls = []
    reasoner = ScriptedReasoner(judge=lambda case: judge_calls.append(case) or Judgement(case.incoming.id, "newer"))
    policy = Policy(near_simultaneous_s=60, default_on_ambiguous="judge", rules=EVERY_RULE)
    vault = make_vault(policy=policy, reasoner=reasoner)
    vault.agent("web").add("My budget is 5000 dollars", observed_at=T0)
    (new,) = vault.agent("mobile").add("My budget is 9000 dollars", observed_at=T0 + timedelta(seconds=2)).decisions
    assert new.outcome == "disputed" and vault.dispute(new.dispute_id).needs_user and judge_calls == []
    # the provenance says what decided: no strategy ran (it said "recency", the entity's strategy)
    assert new.strategy == "high_stakes" and vault.explain(new.claim_id).steps[-1].strategy == "high_stakes"
    _still_waiting(vault, new.dispute_id)


def test_a_repeated_challenge_escalates_once_the_entity_is_high_stakes(make_vault):
    vault = make_vault(policy=Policy(high_stakes=(), default_strategy="authority"))
    vault.agent("a").add_facts(Fact("user.plan", "plan is basic", value="basic", observed_at=T0))
    (first,) = vault.agent("b").add_facts(Fact("user.plan", "plan is pro", value="pro", observed_at=T0)).decisions
    assert not vault.dispute(first.dispute_id).needs_user
    vault.set_policy(vault.policy.updated(high_stakes=("user.plan.*",), rules=EVERY_RULE))
    (again,) = vault.agent("c").add_facts(Fact("user.plan", "plan is pro", value="pro", observed_at=T0)).decisions
    assert again.dispute_id == first.dispute_id
    _still_waiting(vault, first.dispute_id)


@pytest.mark.parametrize(("build", "says"), [
    (lambda: AutoResolveRules(reasserted_by=1), "rules.reasserted_by must be an integer of at least 2"),
    (lambda: AutoResolveRules(reasserted_by=2.5), "rules.reasserted_by"),
    (lambda: AutoResolveRules(stale_after_s=0), "rules.stale_after_s must be a positive number"),
    (lambda: RateLimit(rate=float("nan"), burst=1), "rate_limit.rate must be a positive number"),
    (lambda: RateLimit(rate=1, burst=0), "rate_limit.burst must be an integer of at least 1"),
    (lambda: RateLimit(rate="1", burst=1), "rate_limit.rate"),
])
def test_a_bad_policy_part_is_refused_when_built(build, says):
    """AutoResolveRules(reasserted_by=1) or RateLimit(rate=nan, burst=1) was built, and failed only in set_policy."""
    with pytest.raises(InvalidPolicy, match=says):
        build()
    assert RateLimit(rate=0.5, burst=1).burst == 1 and AutoResolveRules(reasserted_by=2).reasserted_by == 2
