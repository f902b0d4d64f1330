"""A value a person rejected stays rejected by value, not only by claim id (QA99e H1).

A person resolved a dispute for one value; the others in it are values the person rejected on
the entity. No rule and no agent count installs such a value afterwards, even once the chosen
claim itself is gone (its own agent revised it) and another agent's claim of the chosen value
stands in its place: a challenge with a rejected value (in its words or others that agree)
waits for a person (`needs_user`); a retraction does not install it (`rule:incumbent_retracted`);
a consensus count does not settle for it. A person's newer decision still can."""

from __future__ import annotations

import dispute_steps
import pytest

from vault_ray import Policy, Status


@pytest.fixture
def vault(make_vault):
    """Writes within 30 s are near-simultaneous: under recency too, the first two values tie."""
    return make_vault(policy=Policy(near_simultaneous_s=30))


CASES = [  # entity, cardinality, rejected, chosen, the rejected value in other words
    ("user.timezone", "one", "EST", "PST", "America/New_York"),
    ("user.partner", "one", "Sarah", "Anna", "Sarah Lee"),
    ("user.family", "many", "wife:Sarah", "wife:Anna", "spouse:Sarah"),
]
IDS = ["timezone", "name", "role"]


def chosen_then_revised(vault, strategy, entity, card, rejected, chosen):
    """a says `rejected`, b `chosen` (a tie); a person chooses b's; d agrees; b, whose claim the
    person chose, revises to the rejected value. Returns (d's claim, b's revision)."""
    vault.set_cardinality(entity, card)
    vault.set_strategy(entity, strategy)
    dispute_steps.say(vault, "a", rejected, 0, entity)
    b = dispute_steps.say(vault, "b", chosen, 10, entity)
    assert b.dispute_id
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note="not that one")
    d = dispute_steps.say(vault, "d", chosen, 100, entity)
    assert d.outcome == "active"
    revised = dispute_steps.say(vault, "b", rejected, 200, entity)
    return d, revised


def values(vault, entity):
    return sorted(c.value for c in vault.get(entity).active)


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus"])
@pytest.mark.parametrize(("entity", "card", "rejected", "chosen", "other"), CASES, ids=IDS)
def test_a_revision_to_the_rejected_value_waits_for_a_person(vault, strategy, entity, card, rejected, chosen, other):
    d, revised = chosen_then_revised(vault, strategy, entity, card, rejected, chosen)
    assert revised.outcome == "disputed" and vault.dispute(revised.dispute_id).needs_user
    assert values(vault, entity) == [chosen]
    c = dispute_steps.say(vault, "c", other, 300, entity)  # more agents, in other words: counted, never settled
    e = dispute_steps.say(vault, "e", rejected, 400, entity)
    assert c.outcome == e.outcome == "disputed"
    assert values(vault, entity) == [chosen]
    assert not [x for x in vault.disputes("resolved") if x.resolution.decided_by != "user"]
    vault.retract(d.claim_id, decided_by="d")  # the chosen value's last claim goes: nothing installs a rejected one
    assert not any(at.value in (rejected, other) for at in vault.get(entity).active)
    assert vault.dispute(revised.dispute_id).status == "open"
    vault.resolve_dispute(revised.dispute_id, revised.claim_id, decided_by="user")  # a person may still choose it
    assert rejected in values(vault, entity)


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
def test_a_retraction_does_not_install_a_rejected_value_left_in_an_ordinary_dispute(vault, strategy):
    """QA99e r6c: a rejected value challenges another agent's claim of the chosen value; a person
    retracts that claim: the dispute waits for a person, the rejected value is not installed."""
    e = "user.timezone"
    vault.set_strategy(e, strategy)
    dispute_steps.say(vault, "a", "PST", 0, e)
    b = dispute_steps.say(vault, "b", "CST", 10, e)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note="not PST")
    c = dispute_steps.say(vault, "c", "CST", 100, e)
    dispute_steps.say(vault, "b", "MST", 200, e)  # the chosen claim's agent says another value
    pst = dispute_steps.say(vault, "a", "PST", 300, e)
    assert pst.outcome == "disputed" and vault.dispute(pst.dispute_id).needs_user
    vault.retract(c.claim_id, decided_by="user")
    assert vault.claim(pst.claim_id).status == Status.DISPUTED
    assert "PST" not in values(vault, e)


def test_a_newer_decision_by_a_person_lifts_the_rejection(vault):
    e = "user.timezone"
    vault.set_strategy(e, "authority")
    _, revised = chosen_then_revised(vault, "authority", e, "one", "EST", "PST")
    vault.resolve_dispute(revised.dispute_id, revised.claim_id, decided_by="user", note="EST after all")
    assert values(vault, e) == ["EST"]
    again = dispute_steps.say(vault, "d", "EST", 300, e)  # the value a person now chose: plain support
    assert again.outcome == "active" and values(vault, e) == ["EST", "EST"]


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus"])
@pytest.mark.parametrize(("entity", "card", "rejected", "chosen", "other"), CASES, ids=IDS)
def test_the_chosen_claims_own_agent_alone_revising_to_the_rejected_value_waits(vault, strategy, entity, card,
                                                                                 rejected, chosen, other):
    """Nothing else stands: the chosen claim stays while a person decides on its agent's revision."""
    vault.set_cardinality(entity, card)
    vault.set_strategy(entity, strategy)
    dispute_steps.say(vault, "a", rejected, 0, entity)
    b = dispute_steps.say(vault, "b", chosen, 10, entity)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user")
    revised = dispute_steps.say(vault, "b", other, 200, entity)
    assert revised.outcome == "disputed" and vault.dispute(revised.dispute_id).needs_user
    assert values(vault, entity) == [chosen]
    assert vault.dispute(revised.dispute_id).incumbents == (b.claim_id,)
    moved = {"one": "Karin", "many": "wife:Karin"}[card] if entity != "user.timezone" else "CST"
    later = dispute_steps.say(vault, "b", moved, 300, entity)  # a value nobody rejected: its revision as before
    assert later.outcome == "active" and values(vault, entity) == [moved]
    assert vault.disputes() == [] and all(vault.check().values())


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus"])
def test_a_later_decision_that_does_not_mention_a_rejected_value_keeps_it_rejected(vault, strategy):
    """fuzz4 seed 5033: a person turned EST down for PST, later turned CST down for PST too; EST
    is still a value the person rejected, while CST, chosen in a third decision, no longer is."""
    e = "user.timezone"
    vault.set_strategy(e, strategy)
    dispute_steps.say(vault, "a", "EST", 0, e)
    b = dispute_steps.say(vault, "b", "PST", 10, e)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note="not EST")
    c = dispute_steps.say(vault, "c", "CST", 100, e)
    assert c.outcome == "disputed"
    vault.resolve_dispute(c.dispute_id, b.claim_id, decided_by="user", note="not CST either")
    assert values(vault, e) == ["PST"]
    d = dispute_steps.say(vault, "d", "PST", 150, e)  # another agent's PST; the chosen claim's agent withdraws it
    vault.retract(b.claim_id, decided_by="b")
    assert values(vault, e) == ["PST"]
    est = dispute_steps.say(vault, "e", "EST", 200, e)  # rejected in the first decision, not in the second
    assert est.outcome == "disputed" and vault.dispute(est.dispute_id).needs_user
    assert values(vault, e) == ["PST"]
    vault.retract(d.claim_id, decided_by="d")  # what stood against it goes: the dispute still waits for a person
    assert "EST" not in values(vault, e) and vault.dispute(est.dispute_id).status == "open"
    vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by="user", note="EST after all")
    assert values(vault, e) == ["EST"]
    cst = dispute_steps.say(vault, "f", "CST", 300, e)  # rejected in the second decision: still needs a person
    assert cst.outcome == "disputed" and vault.dispute(cst.dispute_id).needs_user



TAKEN_BACK = [  # entity, cardinality, rejected then chosen again, chosen first, a value nobody rejected, the first in other words
    ("user.timezone", "one", "EST", "PST", "CST", "America/New_York"),
    ("user.family", "many", "wife:Sarah", "wife:Anna", "wife:Karin", "spouse:Sarah"),
]


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus", "high_stakes"])
@pytest.mark.parametrize(("entity", "card", "back", "first", "free", "words"), TAKEN_BACK, ids=["timezone", "role"])
def test_a_retraction_installs_a_value_chosen_again_but_not_one_turned_down_later(
        vault, strategy, entity, card, back, first, free, words):
    """fuzz4 seed 0: a person turned `back` down for `first`, then chose `back` after all, which takes
    that rejection back and turns `first` down. The chosen claim's agent revises to a value nobody
    rejected; another agent says `back` (in other words) against it; the revision is withdrawn: the
    rule installs `back` as any value (a high-stakes entity asks a person, as always). `first`, turned
    down by the later decision, is not installed by the same kind of retraction."""
    vault.set_cardinality(entity, card)
    if strategy == "high_stakes":
        vault.add_high_stakes(entity)
    else:
        vault.set_strategy(entity, strategy)
    dispute_steps.say(vault, "a", back, 0, entity)
    b = dispute_steps.say(vault, "b", first, 10, entity)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note=f"not {back}")
    c = dispute_steps.say(vault, "c", back, 20, entity)
    assert c.outcome == "disputed" and vault.dispute(c.dispute_id).needs_user
    vault.resolve_dispute(c.dispute_id, c.claim_id, decided_by="user", note=f"{back} after all")
    revised = dispute_steps.say(vault, "c", free, 100, entity)  # the chosen claim's own agent, a value nobody rejected
    assert revised.outcome == "active" and values(vault, entity) == [free]
    d = dispute_steps.say(vault, "d", words, 110, entity)
    assert d.outcome == "disputed"
    vault.retract(revised.claim_id, decided_by="c")
    if strategy == "high_stakes":
        assert vault.dispute(d.dispute_id).status == "open" and vault.dispute(d.dispute_id).needs_user
        assert values(vault, entity) == [] and vault.get(entity).contested
        vault.resolve_dispute(d.dispute_id, d.claim_id, decided_by="user")
    else:
        assert vault.dispute(d.dispute_id).resolution.decided_by == "rule:incumbent_retracted"
    assert values(vault, entity) == [words] and not vault.get(entity).contested
    e = dispute_steps.say(vault, "e", first, 120, entity)  # turned down by the later decision: a person is asked
    assert e.outcome == "disputed" and vault.dispute(e.dispute_id).needs_user
    vault.retract(d.claim_id, decided_by="d")
    assert values(vault, entity) == [] and vault.dispute(e.dispute_id).status == "open"
    assert vault.claim(e.claim_id).status == Status.DISPUTED and vault.get(entity).contested
    assert all(vault.check().values())


@pytest.mark.parametrize("how", ["retract", "forget"])
@pytest.mark.parametrize(("entity", "card", "rejected", "chosen", "other"), CASES, ids=IDS)
def test_a_rejected_value_said_again_on_the_emptied_entity_waits_for_a_person(vault, how, entity, card, rejected,
                                                                               chosen, other):
    """A person chose `chosen` over `rejected`, then took `chosen` back (or forgot the entity): nothing
    stands. An agent saying the rejected value (in other words too) does not become the entity's answer:
    it is held in a dispute with no incumbent that waits for a person, and `get` shows it contested."""
    vault.set_cardinality(entity, card)
    vault.set_strategy(entity, "authority")
    dispute_steps.say(vault, "a", rejected, 0, entity)
    b = dispute_steps.say(vault, "b", chosen, 10, entity)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user")
    if how == "retract":
        vault.retract(b.claim_id, decided_by="user")
    else:
        vault.forget(entity, decided_by="user")
    assert vault.get(entity).active == ()
    held = dispute_steps.say(vault, "c", other, 100, entity)
    assert held.outcome == "disputed" and "a person rejected" in held.reason
    assert vault.dispute(held.dispute_id).needs_user and vault.dispute(held.dispute_id).incumbents == ()
    view = vault.get(entity)
    assert view.active == () and view.contested and [c.claim.id for c in view.candidates] == [held.claim_id]
    again = dispute_steps.say(vault, "a", rejected, 200, entity)  # support for it: counted, still a person's call
    assert again.outcome == "disputed" and vault.get(entity).active == ()
    vault.resolve_dispute(held.dispute_id, held.claim_id, decided_by="user")  # a person may install it
    assert held.claim_id in [c.id for c in vault.get(entity).active] and not vault.get(entity).contested
    assert all(vault.check().values())


def test_a_value_nobody_rejected_still_installs_on_the_emptied_entity(vault):
    e = "user.timezone"
    vault.set_strategy(e, "authority")
    dispute_steps.say(vault, "a", "EST", 0, e)
    b = dispute_steps.say(vault, "b", "PST", 10, e)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user")
    vault.retract(b.claim_id, decided_by="user")
    free = dispute_steps.say(vault, "c", "CST", 100, e)
    assert free.outcome == "active" and values(vault, e) == ["CST"] and vault.disputes() == []
