"""A parked challenger that nothing contradicts any more (docs/policies.md, "Nothing stands against
the challenger"): its incumbents are all gone and no active claim contradicts it, so it is decided as
a fresh write of its value would be (it stands), and the dispute closes saying why. A person's
decision stays sticky, and a dispute that waits for a person keeps waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, Policy
from vault_ray.models import Outcome, Status

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.diet"):
    fact = Fact(entity, f"{entity}: {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def opened(strategy, make_vault, name="store"):
    vault = make_vault(name, policy=Policy(near_simultaneous_s=120))
    vault.set_strategy("*", strategy)
    vault.set_authority("crm", "*", 0.9)
    return vault


@pytest.mark.parametrize("strategy", ["authority", "recency", "consensus"])
def test_the_incumbent_replaced_by_its_denial_leaves_the_challenger_standing(make_vault, strategy):
    vault = opened(strategy, make_vault)
    vegan = say(vault, "crm", "vegan")
    veg = say(vault, "bot", "vegetarian", 60)
    assert veg.outcome == Outcome.DISPUTED
    denial = say(vault, "crm", "not:vegan", 3000)
    assert denial.outcome == Outcome.ACTIVE and denial.dispute_id == veg.dispute_id
    assert "settles open dispute" in denial.reason
    view = vault.get("user.diet")
    assert set(view.values) == {"vegetarian", "not:vegan"} and not view.contested and vault.disputes() == []
    assert vault.claim(veg.claim_id).status == Status.ACTIVE
    assert vault.claim(vegan.claim_id).status == Status.SUPERSEDED
    closed = vault.dispute(veg.dispute_id)
    assert closed.resolution.decided_by == "rule:incumbents_withdrawn"
    assert closed.resolution.winner == veg.claim_id
    note = closed.resolution.note
    assert "'vegan' (crm)" in note and "not:vegan" in note and "no active claim contradicts 'vegetarian'" in note
    assert "rule:incumbents_withdrawn" in str(vault.explain(veg.claim_id))
    settled = [e for e in vault.events(entity="user.diet") if e.kind == "dispute_resolved"]
    assert [e.claim_id for e in settled] == [veg.claim_id]
    assert [h.contested for h in vault.search("what does the user eat", k=3)] == [False, False]


def test_another_agents_newer_denial_and_a_supported_challenge(make_vault):
    vault = opened("recency", make_vault)
    say(vault, "crm", "vegan")
    veg = say(vault, "bot", "vegetarian", 60)
    backer = say(vault, "app", "vegetarian", 70)  # a supporter: both stand once nothing opposes them
    assert backer.dispute_id == veg.dispute_id
    say(vault, "coach", "not:vegan", 3000)  # newer: it wins over vegan by recency
    assert vault.disputes() == []
    view = vault.get("user.diet")
    assert {c.agent for c in view.active if c.value == "vegetarian"} == {"bot", "app"}


def test_on_a_many_entity_per_item(make_vault):
    vault = opened("authority", make_vault)
    vault.set_cardinality("user.family", "many")
    say(vault, "crm", "wife:Maria", entity="user.family")
    anna = say(vault, "bot", "wife:Anna", 60, entity="user.family")
    say(vault, "crm", "child:Tom", 70, entity="user.family")  # another item: changes nothing
    assert vault.dispute(anna.dispute_id).status == "open"
    say(vault, "crm", "not:wife:Maria", 3000, entity="user.family")
    assert vault.disputes() == []
    assert set(vault.get("user.family").values) == {"wife:Anna", "child:Tom", "not:wife:Maria"}


def test_something_else_still_contradicting_is_decided_by_the_strategy(make_vault):
    vault = opened("authority", make_vault)
    say(vault, "crm", "vegan")
    veg = say(vault, "bot", "vegetarian", 60)
    say(vault, "crm", "pescatarian", 3000)  # what stands now contradicts it: the strategy, asked again
    d = vault.dispute(veg.dispute_id)
    assert d.status == "open" and "crm (0.90)" in d.reason
    assert vault.get("user.diet").contested


def test_high_stakes_and_a_persons_decision_keep_waiting(make_vault):
    vault = opened("recency", make_vault)
    vault.add_high_stakes("user.diet")
    say(vault, "crm", "vegan")
    veg = say(vault, "bot", "vegetarian", 60)
    say(vault, "crm", "not:vegan", 3000)
    d = vault.dispute(veg.dispute_id)
    assert d.status == "open" and d.needs_user and "'not:vegan' (crm) took the place of 'vegan' (crm)" in d.reason
    # a person's decision is never overridden: vegan was chosen, vegetarian is held for a person
    vault = opened("recency", make_vault, "decided")
    say(vault, "crm", "PST", entity="user.timezone")
    est = say(vault, "bot", "EST", 60, entity="user.timezone")
    pst_id = vault.dispute(est.dispute_id).incumbents[0]
    vault.resolve_dispute(est.dispute_id, winner=pst_id, decided_by="user")
    again = say(vault, "bot2", "EST", 4000, entity="user.timezone")
    assert again.outcome == Outcome.DISPUTED
    say(vault, "crm", "not:PST", 5000, entity="user.timezone")
    d = vault.dispute(again.dispute_id)
    assert d.status == "open" and d.needs_user
    assert vault.dispute(est.dispute_id).resolution.winner == pst_id  # sticky: never reopened
