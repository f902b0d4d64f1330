"""`EntityView.values` lists each current value once (QA qa8 F5): three agents saying "Google"
read `('Google',)`, not `('Google', 'Google', 'Google')`; values that say the same in other words
(the engine's canonical value) are one; while a dispute is open every competing value shows once.
Who says a value, and how often, stays in `active` / `candidates`."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import Fact, Policy, VaultClient


def say(vault, agent, entity, value, text=None):
    return vault.agent(agent).add_facts([Fact(entity, text or f"{entity} is {value}", value=value)]).decisions[0]


def test_one_value_from_three_agents_is_one_value(vault):
    for agent in ("crm", "chat", "calendar"):
        assert say(vault, agent, "user.employer", "Google").outcome == "active"
    view = vault.get("user.employer")
    assert view.values == ("Google",) and not view.contested
    assert sorted(c.agent for c in view.active) == ["calendar", "chat", "crm"]  # who says it


@pytest.mark.parametrize(("entity", "first", "other"), [
    ("user.timezone", "PST", "Pacific time"),
    ("user.location", "NYC", "New York"),
    ("user.employer", "Google", "google"),
    ("user.budget", "under $500", "at most 500 dollars"),  # an amount keeps its words, compares by amount (a ceiling)
    ("user.budget.trip", "$500", "under $500"),
])
def test_one_value_in_other_words_shows_once_in_the_first_words(vault, entity, first, other):
    assert say(vault, "a", entity, first).outcome == "active"
    assert say(vault, "b", entity, other).outcome == "active"  # the same canonical value: no conflict
    view = vault.get(entity)
    assert view.values == (first,) and len(view.active) == 2
    assert [c.value for c in view.active] == [first, other]  # each claim keeps what was said


def test_a_dispute_lists_each_competing_value_once(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority"))  # equal weights: a dispute
    say(vault, "a", "user.employer", "Google")
    say(vault, "b", "user.employer", "Google")
    assert say(vault, "c", "user.employer", "Meta").outcome == "disputed"
    view = vault.get("user.employer")
    assert view.contested and view.values == ("Google", "Meta")
    assert sorted(c.claim.agent for c in view.candidates if c.claim.value == "Google") == ["a", "b"]


def test_the_items_of_a_many_entity_show_once_each(make_vault):
    vault = make_vault(policy=Policy(cardinality={"user.pets": "many"}))
    say(vault, "a", "user.pets", "dog:Rex", "has a dog named Rex")
    say(vault, "b", "user.pets", "cat:Tom", "has a cat named Tom")
    say(vault, "c", "user.pets", "dog:Rex", "the user's dog is Rex")
    assert vault.get("user.pets").values == ("dog:Rex", "cat:Tom")
    assert len(vault.get("user.pets").active) == 3


def test_the_view_over_http_carries_the_values_once(served_app):
    vault = served_app.vault
    for agent in ("crm", "chat"):
        say(vault, agent, "user.employer", "Google")
    token = served_app.token("reader")
    with VaultClient(served_app.url, token) as client:
        assert client.get("user.employer").values == ("Google",)
    body = httpx.get(f"{served_app.url}/v1/entities/user.employer", headers={"Authorization": f"Bearer {token}"}).json()
    assert body["values"] == ["Google"] and len(body["active"]) == 2
