"""A dispute that waits for a person with no standing value: the pending value said in other
words is support (QA99e H2).

A person chose a value, an agent challenged it (`needs_user`), then the person retracted their
choice: the dispute waits for a person with no incumbent. A later agent saying the pending value
again, in its words or in others that say the same (`rules.agrees`: "spouse:Tom" for
"husband:Tom", "mom:Carol Lee" for "mother:Carol", "Maria Gonzalez" for "Maria"), backs the
challenge: it does not take the empty place, nor stand against the pending value as the other side."""

from __future__ import annotations

import dispute_steps
import pytest

from vault_ray import Policy, Status

CASES = [  # entity, cardinality, chosen, rejected, pending, other words
    ("user.family", "many", "wife:Anna", "wife:Sarah", "husband:Tom", "spouse:Tom"),
    ("user.family", "many", "mother:Ann", "mother:Beth", "mother:Carol", "mom:Carol Lee"),
    ("user.partner", "one", "Anna", "Sarah", "Maria", "Maria Gonzalez"),
    ("user.partner", "one", "Anna", "Sarah", "Maria Gonzalez", "Maria"),  # the shorter name second
]
IDS = ["husband-spouse", "mother-mom", "name-fuller", "name-shorter"]


@pytest.fixture
def vault(make_vault):
    """Writes within 30 s are near-simultaneous: under recency too, the first two values tie."""
    return make_vault(policy=Policy(near_simultaneous_s=30))


def waiting(vault, strategy, entity, card, chosen, rejected, pending):
    """A person chose `chosen` over `rejected`; c challenged with `pending`; the person retracted
    `chosen`: the dispute waits for a person with no standing value."""
    vault.set_cardinality(entity, card)
    vault.set_strategy(entity, strategy)
    a = dispute_steps.say(vault, "a", chosen, 0, entity)
    b = dispute_steps.say(vault, "b", rejected, 10, entity)
    assert b.dispute_id, "the setup needs a dispute for the person to resolve"
    vault.resolve_dispute(b.dispute_id, a.claim_id, decided_by="user")
    c = dispute_steps.say(vault, "c", pending, 100, entity)
    assert c.outcome == "disputed" and vault.dispute(c.dispute_id).needs_user
    vault.retract(a.claim_id, decided_by="user", note="not that one either")
    d = vault.dispute(c.dispute_id)
    assert d.status == "open" and d.incumbents == ()
    return c


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus"])
@pytest.mark.parametrize(("entity", "card", "chosen", "rejected", "pending", "other"), CASES, ids=IDS)
def test_the_pending_value_in_other_words_backs_the_waiting_challenge(vault, strategy, entity, card, chosen,
                                                                       rejected, pending, other):
    c = waiting(vault, strategy, entity, card, chosen, rejected, pending)
    e = dispute_steps.say(vault, "e", other, 200, entity)
    assert e.outcome == "disputed" and e.dispute_id == c.dispute_id
    assert vault.claim(e.claim_id).status == Status.DISPUTED
    d = vault.dispute(c.dispute_id)
    assert d.challenger == c.claim_id and d.supporters == (e.claim_id,) and d.incumbents == ()
    assert [x.id for x in vault.disputes()] == [c.dispute_id]  # one question, one dispute
    view = vault.get(entity)
    assert view.active == () and view.contested  # the empty place stays empty: a person decides
    assert {x.claim.id for x in view.candidates} == {c.claim_id, e.claim_id}
    vault.resolve_dispute(c.dispute_id, c.claim_id, decided_by="user")
    assert sorted(x.value for x in vault.get(entity).active) == sorted([pending, other])


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
@pytest.mark.parametrize(("entity", "card", "chosen", "rejected", "pending", "other"), CASES[::2], ids=IDS[::2])
def test_the_challenger_restating_its_value_in_other_words_stays_the_challenge(vault, strategy, entity, card, chosen,
                                                                               rejected, pending, other):
    c = waiting(vault, strategy, entity, card, chosen, rejected, pending)
    again = dispute_steps.say(vault, "c", other, 200, entity)
    assert again.outcome == "disputed" and again.dispute_id == c.dispute_id
    d = vault.dispute(c.dispute_id)
    assert d.challenger == again.claim_id and d.incumbents == () and d.status == "open"
    assert vault.claim(c.claim_id).status == Status.SUPERSEDED  # its own earlier words, replaced
    assert vault.get(entity).active == ()


@pytest.mark.parametrize(("entity", "card", "chosen", "rejected", "pending", "other"), CASES[::2], ids=IDS[::2])
def test_another_value_is_still_the_other_side(vault, entity, card, chosen, rejected, pending, other):
    c = waiting(vault, "authority", entity, card, chosen, rejected, pending)
    rival = {"husband:Tom": "husband:Bob", "mother:Carol": "mom:Dora", "Maria": "Sarah"}[pending]
    r = dispute_steps.say(vault, "f", rival, 150, entity)
    assert r.outcome == "disputed" and r.dispute_id == c.dispute_id
    assert vault.dispute(c.dispute_id).incumbents == (r.claim_id,)
    e = dispute_steps.say(vault, "e", other, 250, entity)  # then the pending value in other words: support
    d = vault.dispute(c.dispute_id)
    assert e.dispute_id == c.dispute_id and d.supporters == (e.claim_id,) and d.incumbents == (r.claim_id,)
    assert vault.get(entity).active == ()
