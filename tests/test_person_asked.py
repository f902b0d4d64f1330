"""While a person has been asked about an entity's value, no rule changes it under them (QA99e r6, r6b).

A dispute that waits for a person (`needs_user`) asks about an item of its entity: the value of a
`one` entity, one item of a `many` entity. Until a person decides, another challenge of that item
waits for a person too (whatever the strategy would have done), an ordinary dispute about it is
flagged to wait for a person as well, and a retraction of what stands installs nothing
(`rule:incumbent_retracted`), nor does a consensus count. Other items and other entities go on as
before."""

from __future__ import annotations

import dispute_steps
import pytest

from vault_ray import Policy, Status

TZ = "user.timezone"
STRATEGIES = ["recency", "authority", "consensus", "judge", "high_stakes"]


@pytest.fixture
def vault(make_vault):
    """Writes within 30 s are near-simultaneous: under recency the first values tie too."""
    return make_vault(policy=Policy(near_simultaneous_s=30))


def use(vault, strategy, entity=TZ):
    if strategy == "high_stakes":
        vault.set_policy(vault.policy.updated(high_stakes=(entity,)))
    else:
        vault.set_strategy(entity, strategy)


def say(vault, agent, value, seconds, entity=TZ):
    return dispute_steps.say(vault, agent, value, seconds, entity)


def values(vault, entity=TZ):
    return sorted(c.value for c in vault.get(entity).active)


def by_rule(vault):
    """The rules that closed a dispute for a value (`rule:joined` closes one for none: its values wait elsewhere)."""
    return [d.resolution.decided_by for d in vault.disputes("resolved")
            if d.resolution.decided_by.startswith("rule:") and d.resolution.winner is not None]


def one_question(vault, *claims):
    """After the retraction: one open dispute holds every pending value (`claims`), waiting for a person;
    the other was closed by `rule:joined`, for no value, naming it."""
    (left,) = vault.disputes("open")
    assert left.needs_user and {left.challenger, *left.incumbents, *left.supporters} == {c.claim_id for c in claims}
    joined = [d for d in vault.disputes("resolved") if d.resolution.decided_by == "rule:joined"]
    assert len(joined) == 1 and joined[0].resolution.winner is None and left.id in joined[0].resolution.note
    return left


def two_questions(vault, strategy, entity=TZ, chosen="CST", rejected="PST", other="EST"):
    """The person chose b's `chosen` over c's `rejected`; c says `chosen` too; b, whose claim the
    person chose, says `other` (a tie against c's claim); a says `rejected` (a person is asked).
    Returns (c's claim of the chosen value, b's challenge, a's challenge)."""
    use(vault, strategy, entity)
    say(vault, "c", rejected, 0, entity)
    b = say(vault, "b", chosen, 10, entity)
    assert b.dispute_id, b.reason
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note=f"not {rejected}")
    c = say(vault, "c", chosen, 15, entity)
    assert c.outcome == "active"
    est = say(vault, "b", other, 20, entity)
    assert est.outcome == "disputed", est.reason
    pst = say(vault, "a", rejected, 25, entity)
    assert pst.outcome == "disputed" and vault.dispute(pst.dispute_id).needs_user
    return c, est, pst


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_open_dispute_about_the_value_waits_once_a_person_is_asked(vault, strategy):
    c, est, pst = two_questions(vault, strategy)
    assert vault.dispute(est.dispute_id).needs_user  # flagged when a's challenge asked a person
    view = vault.get(TZ)
    assert view.contested and {d.needs_user for d in view.disputes} == {True}
    vault.retract(c.claim_id, decided_by="user")  # what stands goes: no rule installs a challenger
    assert values(vault, TZ) == [] and vault.get(TZ).contested
    assert vault.claim(est.claim_id).status == vault.claim(pst.claim_id).status == Status.DISPUTED
    assert by_rule(vault) == []
    left = one_question(vault, est, pst)  # one question for the person: EST or PST
    assert {x.claim.id for x in vault.get(TZ).candidates} == {est.claim_id, pst.claim_id}
    vault.resolve_dispute(left.id, est.claim_id, decided_by="user")  # the person decides
    assert values(vault, TZ) == ["EST"] and vault.disputes("open") == []
    assert vault.claim(pst.claim_id).status == Status.SUPERSEDED
    assert all(vault.check().values())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_new_challenge_while_a_person_is_asked_waits_for_the_person(vault, strategy):
    """r6b: a person is asked first; b's challenge, ordinary by its strategy, waits for a person too."""
    use(vault, strategy)
    say(vault, "c", "PST", 0)
    b = say(vault, "b", "CST", 10)
    vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user", note="not PST")
    c = say(vault, "c", "CST", 15)
    pst = say(vault, "a", "PST", 20)
    if strategy == "consensus":  # 1 : 2, a's PST lost; with a second agent's it ties
        assert pst.outcome == "superseded"
        pst = say(vault, "e", "PST", 21)
    assert vault.dispute(pst.dispute_id).needs_user
    est = say(vault, "b", "EST", 25)  # b's chosen CST is its own: revised, a tie against c's CST
    assert est.outcome == "disputed" and vault.dispute(est.dispute_id).needs_user
    vault.retract(c.claim_id, decided_by="user")
    assert values(vault, TZ) == [] and by_rule(vault) == []
    left = one_question(vault, pst, est)
    vault.resolve_dispute(left.id, pst.claim_id, decided_by="user", note="PST after all")  # a person may choose it
    assert set(values(vault, TZ)) == {"PST"} and vault.disputes("open") == []  # (consensus: a outvoted, back)


@pytest.mark.parametrize("strategy", ["recency", "authority", "judge"])
def test_a_challenge_its_strategy_lets_win_waits_while_a_person_is_asked(vault, strategy):
    """A newer observation (recency), a heavier agent (authority, and the judge's clear authority gap)
    would supersede c's standing claim: while a person is asked about the value, it waits instead."""
    c, est, pst = two_questions(vault, strategy)
    vault.set_authority("heavy", "*", 0.9)
    mst = say(vault, "heavy", "MST", 500)
    assert mst.outcome == "disputed" and vault.dispute(mst.dispute_id).needs_user, mst.reason
    assert "a person has been asked" in mst.reason
    assert values(vault, TZ) == ["CST"] and vault.claim(c.claim_id).status == Status.ACTIVE
    backing = say(vault, "d", "CST", 510)  # the standing value again is support, as before
    assert backing.outcome == "active"


def test_a_consensus_count_does_not_settle_while_a_person_is_asked(vault):
    c, est, pst = two_questions(vault, "consensus")
    for n, agent in enumerate(("d", "e", "f")):  # EST by four agents against one CST: no count settles it
        repeat = say(vault, agent, "EST", 30 + n)
        assert repeat.outcome == "disputed" and repeat.dispute_id == est.dispute_id
    assert values(vault, TZ) == ["CST"] and by_rule(vault) == []
    assert not [d for d in vault.disputes("resolved") if d.resolution.decided_by.startswith("strategy:")]


def test_the_rule_holds_per_item_on_a_many_entity(vault):
    """On `user.family` a person asked about the spouse; a dispute about the children is another item,
    settled by its strategy as before, while another challenge about the spouse waits."""
    fam = "user.family"
    vault.set_cardinality(fam, "many")
    c, est, pst = two_questions(vault, "authority", fam, chosen="wife:Anna", rejected="wife:Sarah",
                                other="husband:Tom")
    assert vault.dispute(est.dispute_id).needs_user
    vault.set_authority("heavy", "*", 0.9)
    kids = say(vault, "x", "2 children", 40, fam)
    more = say(vault, "heavy", "3 children", 50, fam)  # another item: the heavier agent wins
    assert kids.outcome == "active" and more.outcome == "active", more.reason
    spouse = say(vault, "heavy", "spouse:Kim", 60, fam)  # the spouse again: it waits
    assert spouse.outcome == "disputed" and vault.dispute(spouse.dispute_id).needs_user
    vault.retract(c.claim_id, decided_by="user")
    assert values(vault, fam) == ["3 children"] and by_rule(vault) == []
    (left,) = vault.disputes("open")  # one question about the spouse, holding every pending value
    assert {left.challenger, *left.incumbents, *left.supporters} == {est.claim_id, pst.claim_id, spouse.claim_id}
    vault.resolve_dispute(left.id, spouse.claim_id, decided_by="user")
    assert values(vault, fam) == ["3 children", "spouse:Kim"] and vault.disputes("open") == []
