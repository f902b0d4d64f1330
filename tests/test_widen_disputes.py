"""Widening an entity from `one` to `many` closes the open disputes whose sides are two items now,
keeping both (QA8 F9, engine/widen.py); those whose sides still contradict as items, and those
that wait for a person, stay open."""

from __future__ import annotations

import pytest

from vault_ray import Fact, RegistryEntry
from vault_ray.models import Outcome, Status


def say(vault, agent, entity, value):
    (decision,) = vault.agent(agent).add_facts(Fact(entity, f"{entity} {value}", value=value)).decisions
    return decision


def language_dispute(vault, entity="user.language"):
    vault.set_strategy(entity, "authority")
    vault.set_authority("crm", "*", 0.9)
    vault.set_cardinality(entity, "one")
    english = say(vault, "crm", entity, "English")
    french = say(vault, "assistant", entity, "French")
    assert french.outcome == Outcome.DISPUTED and vault.get(entity).contested
    return english, french


WAYS = {
    "set_cardinality": lambda v, e: v.set_cardinality(e, "many"),
    "patch_policy": lambda v, e: v.patch_policy({"cardinality": {e: "many"}}),
    "pattern": lambda v, e: v.patch_policy({"cardinality": {e: None, "user.*": "many"}}),
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_widening_closes_a_dispute_between_two_items_keeping_both(make_vault, way):
    vault = make_vault()
    english, french = language_dispute(vault)
    WAYS[way](vault, "user.language")
    view = vault.get("user.language")
    assert set(view.values) == {"English", "French"} and not view.contested and vault.disputes() == []
    closed = vault.dispute(french.dispute_id)
    assert closed.resolution.decided_by == "rule:cardinality" and closed.resolution.keep_both
    assert vault.claim(french.claim_id).status == Status.ACTIVE == vault.claim(english.claim_id).status
    assert [e.kind for e in vault.events(entity="user.language")][-1] == "dispute_resolved"
    assert "rule:cardinality" in str(vault.explain(french.claim_id))
    spanish = say(vault, "session", "user.language", "Spanish")
    assert spanish.outcome == Outcome.ACTIVE and not vault.get("user.language").contested


def test_widening_through_a_registry_entry_closes_it_too(make_vault):
    vault = make_vault()
    _, french = language_dispute(vault, "user.hobby")
    vault.patch_policy({"cardinality": {"user.hobby": None}})  # the registry decides it
    vault.register(RegistryEntry("user.hobby", "the user's hobbies", cardinality="one"))
    assert vault.dispute(french.dispute_id).status == "open"
    vault.register(RegistryEntry("user.hobby", "the user's hobbies", cardinality="many"))
    assert vault.dispute(french.dispute_id).resolution.decided_by == "rule:cardinality"


def test_a_value_and_its_denial_still_contradict_as_items(make_vault):
    vault = make_vault()
    entity = "user.allergies"
    vault.set_strategy(entity, "authority")
    vault.set_authority("doctor", "*", 0.9)
    vault.set_cardinality(entity, "one")
    say(vault, "doctor", entity, "peanuts")
    denial = say(vault, "chat", entity, "not:peanuts")
    assert denial.outcome == Outcome.DISPUTED
    vault.set_cardinality(entity, "many")
    assert vault.dispute(denial.dispute_id).status == "open" and vault.get(entity).contested


def test_a_dispute_that_waits_for_a_person_stays_open_when_widened(make_vault):
    vault = make_vault()
    entity = "user.payment.method"  # high stakes
    say(vault, "crm", entity, "Visa")
    paypal = say(vault, "assistant", entity, "PayPal")
    assert paypal.outcome == Outcome.DISPUTED
    vault.set_cardinality(entity, "many")
    d = vault.dispute(paypal.dispute_id)
    assert d.status == "open" and d.needs_user and vault.get(entity).contested


def test_narrowing_back_and_the_reopened_store_keep_the_closure(make_vault, tmp_path):
    vault = make_vault("w")
    _, french = language_dispute(vault)
    vault.set_cardinality("user.language", "many")
    vault.close()
    again = make_vault("w")
    assert again.dispute(french.dispute_id).resolution.decided_by == "rule:cardinality"
    assert set(again.get("user.language").values) == {"English", "French"}
