"""A person's resolution sticks (QA round 91): once a person chose a value in a dispute,
an agent's contradicting write does not supersede it by policy; it opens a dispute that
waits for a person. The same value from an agent is support, not a conflict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import AutoResolveRules, Fact, Policy

T0 = datetime(2026, 5, 1, 12, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.timezone"):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def chosen_est(vault):
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 10)
    assert est.outcome == "disputed"
    vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by="user", note="moved to NY")
    return est


def test_an_agent_does_not_overturn_what_a_person_chose(vault):
    est = chosen_est(vault)
    again = say(vault, "scheduler", "PST", 20)  # outweighs chat by authority, but a person chose EST
    assert again.outcome == "disputed" and "person" in again.reason
    assert [c.value for c in vault.get("user.timezone").active] == ["EST"]
    (d,) = vault.disputes()
    assert d.needs_user and d.incumbents == (est.claim_id,)
    # the person may still change their mind: resolving for PST supersedes EST
    vault.resolve_dispute(d.id, again.claim_id, decided_by="user")
    assert [c.value for c in vault.get("user.timezone").active] == ["PST"]


def test_the_same_value_is_support_and_repeats_do_not_settle_it(make_vault):
    vault = make_vault(policy=Policy().updated(rules=AutoResolveRules(reasserted_by=2)))
    chosen_est(vault)
    same = say(vault, "scheduler", "EST", 20)
    assert same.outcome == "active" and not vault.disputes()
    say(vault, "scheduler", "PST", 30)
    repeat = say(vault, "other", "PST", 40)  # two agents now: the rule would settle it, but not against a person
    assert repeat.outcome == "disputed"
    assert [c.value for c in vault.get("user.timezone").active] == ["EST"]  # scheduler took its own EST back


def test_the_decision_survives_a_reopen(make_vault):
    vault = make_vault("sticky")
    chosen_est(vault)
    vault.close()
    vault = make_vault("sticky")
    assert say(vault, "scheduler", "PST", 20).outcome == "disputed"


def test_recency_and_rule_resolutions_are_not_sticky(vault):
    say(vault, "a", "PST")
    say(vault, "b", "EST", 10)  # recency: b wins; no person decided anything
    assert say(vault, "a", "CST", 20).outcome == "active"
