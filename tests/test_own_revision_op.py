"""Pass 1 names what an agent's write does to its own earlier claim (QA2 F9): a denial or a
changed value is a `REPLACE` ("contradicts own earlier claim"), though all its words are the
old value's and more; only words that change nothing of the value make an `UPDATE`."""

from __future__ import annotations

import pytest

from vault_ray import Fact, Op, Policy


def say(vault, agent, entity, value):
    return vault.agent(agent).add_facts([Fact(entity, f"{entity} is {value}", value=value)]).decisions[0]


@pytest.mark.parametrize(("entity", "old", "new"), [
    ("user.diet", "vegan", "not:vegan"),
    ("user.timezone", "UTC+5", "not:UTC+5"),
    ("user.job", "engineer", "former engineer"),
    ("user.job", "engineer", "not:engineer"),
    ("user.payment.method", "Visa", "cancelled Visa"),
])
def test_an_own_denial_or_change_is_a_replace(make_vault, entity, old, new):
    vault = make_vault()
    first = say(vault, "a", entity, old)
    second = say(vault, "a", entity, new)
    assert second.op == Op.REPLACE and second.reason == "contradicts own earlier claim"
    assert second.superseded == (first.claim_id,) and vault.get(entity).values == (new,)


def test_with_another_agents_value_the_label_is_a_replace_and_the_dispute_still_opens(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"boss": {"*": 0.9}, "intern": {"*": 0.1}}))
    say(vault, "boss", "user.diet", "vegan")
    say(vault, "intern", "user.diet", "vegan")
    denial = say(vault, "intern", "user.diet", "not:vegan")
    assert denial.op == Op.REPLACE and denial.outcome == "disputed" and denial.strategy == "authority"
    assert vault.get("user.diet").contested


@pytest.mark.parametrize(("entity", "old", "new"), [
    ("user.name", "Maria", "Maria Gonzalez"),
    ("user.job", "product manager", "senior product manager"),
])
def test_saying_more_of_the_same_is_still_an_update(make_vault, entity, old, new):
    vault = make_vault()
    first = say(vault, "a", entity, old)
    second = say(vault, "a", entity, new)
    assert second.op == Op.UPDATE and second.reason == "refines own earlier claim"
    assert second.superseded == (first.claim_id,)
