"""An open dispute whose sides came to agree closes (`rule:sides_agree`, docs/policies.md, "The sides
agree"): the claim that took the incumbent's place says the challenger's value, so nothing is left to
decide, also on a high-stakes entity or against a person's decision (the value is already current: the
rule changes nothing under the person). While the sides still differ, the dispute waits as before."""

from __future__ import annotations

from datetime import UTC, datetime

import dispute_steps
import pytest

from vault_ray import HashingEmbedder, Status, Vault


def say(vault, agent, value, seconds=0.0, entity="user.budget"):
    return dispute_steps.say(vault, agent, value, seconds, entity)


def active_values(vault, entity="user.budget"):
    return sorted(c.value for c in vault.get(entity).active)


def test_the_incumbents_agent_saying_the_challengers_value_closes_a_high_stakes_dispute(tmp_path):
    store = tmp_path / "s"
    with Vault.open(store, embedder=HashingEmbedder(64)) as vault:
        b1 = say(vault, "b", "$1")
        a2 = say(vault, "a", "$2", 1)
        assert a2.outcome == "disputed" and vault.dispute(a2.dispute_id).needs_user
        before = datetime.now(UTC)
        b2 = say(vault, "b", "$2", 2)
        assert b2.outcome == "active" and b2.dispute_id == a2.dispute_id and "settles open dispute" in b2.reason
        d = vault.dispute(a2.dispute_id)
        assert d.status == "resolved" and d.resolution.decided_by == "rule:sides_agree"
        assert d.resolution.winner == a2.claim_id and "'$2' (b) took the place of '$1' (b)" in d.resolution.note
        assert vault.claim(a2.claim_id).status == Status.ACTIVE  # the challenger stands with b's $2
        assert vault.claim(b1.claim_id).status == Status.SUPERSEDED
        view = vault.get("user.budget")
        assert active_values(vault) == ["$2", "$2"] and not view.contested and vault.disputes() == []
        (ev,) = vault.events(since="start", kinds=["dispute_resolved"]).events
        assert ev.decided_by == "rule:sides_agree" and ev.detail["settling"] == [b2.claim_id]
        assert "rule:sides_agree" in str(vault.explain(a2.claim_id))
        then = vault.get("user.budget", as_of=before)  # the past reads as it was answered then
        assert then.contested and [c.value for c in then.active] == ["$1"]
        assert [x.id for x in then.disputes] == [a2.dispute_id] and then.disputes[0].status == "open"
        again = say(vault, "a", "$2", 3)  # a repeats its value: support, nothing disputed any more
        assert again.outcome in ("noop", "active")
        vault.retract(b2.claim_id, decided_by="dana")  # a's $2 still stands, no dispute waits
        assert active_values(vault) == ["$2"] and vault.disputes() == [] and not vault.get("user.budget").contested
        assert all(vault.check().values())
    with Vault.open(store, embedder=HashingEmbedder(64)) as vault:  # a reopen reads the same
        assert vault.dispute(a2.dispute_id).resolution.decided_by == "rule:sides_agree"
        assert active_values(vault) == ["$2"]


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus", "judge"])
def test_sides_agree_after_a_detour_and_with_supporters_under_every_strategy(make_vault, strategy):
    vault = make_vault()
    vault.set_strategy("user.budget", strategy)
    say(vault, "b", "$5000")
    a = say(vault, "a", "$9000", 1)
    c = say(vault, "c", "$9000", 2)  # supports a's challenge
    assert c.dispute_id == a.dispute_id and vault.dispute(a.dispute_id).supporters == (c.claim_id,)
    say(vault, "b", "$7000", 3)  # b moves, but not to a's value: still a question for a person
    d = vault.dispute(a.dispute_id)
    assert d.status == "open" and d.needs_user and "$7000" in d.reason and vault.get("user.budget").contested
    say(vault, "b", "$9000", 4)
    d = vault.dispute(a.dispute_id)
    assert d.status == "resolved" and d.resolution.decided_by == "rule:sides_agree"
    assert active_values(vault) == ["$9000"] * 3 and not vault.get("user.budget").contested


def test_two_incumbents_close_only_once_both_agree(vault):
    say(vault, "b", "$1")
    say(vault, "c", "$1", 1)
    a = say(vault, "a", "$2", 2)
    say(vault, "c", "$2", 3)  # b's $1 still stands: c joins a's side
    d = vault.dispute(a.dispute_id)
    assert d.status == "open" and active_values(vault) == ["$1"]
    say(vault, "b", "$2", 4)  # nobody says $1 any more
    assert vault.dispute(a.dispute_id).resolution.decided_by == "rule:sides_agree"
    assert active_values(vault) == ["$2"] * 3 and vault.disputes() == []


def test_per_item_on_a_many_entity_in_other_words(family_vault):
    vault = family_vault
    vault.add_high_stakes("user.family")
    tom = say(vault, "b", "child:Tom", entity="user.family")
    say(vault, "b", "wife:Ann", 1, entity="user.family")
    a = say(vault, "a", "wife:Bea", 2, entity="user.family")
    assert a.outcome == "disputed"
    say(vault, "b", "child:Sam", 3, entity="user.family")  # another item: the question stays
    assert vault.dispute(a.dispute_id).status == "open"
    say(vault, "b", "spouse:Bea", 4, entity="user.family")  # the same holder in other words
    d = vault.dispute(a.dispute_id)
    assert d.status == "resolved" and d.resolution.decided_by == "rule:sides_agree"
    assert active_values(vault, "user.family") == ["child:Sam", "child:Tom", "spouse:Bea", "wife:Bea"]
    assert vault.claim(tom.claim_id).status == Status.ACTIVE and not vault.get("user.family").contested


@pytest.mark.parametrize(("was", "now"), [("Maria", "Maria Gonzalez"), ("Maria Gonzalez", "Maria")])
def test_a_name_said_more_or_less_fully_agrees(make_vault, was, now):
    vault = make_vault()
    vault.set_strategy("user.spouse", "authority")  # an ordinary entity: a tie is a dispute
    say(vault, "b", "Ann", entity="user.spouse")
    a = say(vault, "a", was, 1, entity="user.spouse")
    assert a.outcome == "disputed"
    say(vault, "b", now, 2, entity="user.spouse")
    assert vault.dispute(a.dispute_id).resolution.decided_by == "rule:sides_agree"
    assert active_values(vault, "user.spouse") == sorted([was, now])


def test_the_chosen_claims_agent_agreeing_with_a_challenge_to_a_persons_decision(make_vault):
    vault = make_vault()
    _, madrid = dispute_steps.person_chose_rome(vault)
    say(vault, "a", "Madrid", 30, entity="user.location")  # the chosen claim's own agent moves to Madrid
    assert vault.dispute(madrid.dispute_id).resolution.decided_by == "rule:sides_agree"
    assert active_values(vault, "user.location") == ["Madrid", "Madrid"]


def test_high_stakes_dispute_waits_for_the_user_while_its_sides_differ(make_vault):
    from vault_ray import Fact

    vault = make_vault()
    a, b = vault.agent("a"), vault.agent("b")
    a.add_facts([Fact("user.payment.method", "Pays by card", "card")])
    b.add_facts([Fact("user.payment.method", "Pays by invoice", "invoice")])
    a.add_facts([Fact("user.payment.method", "Pays by cheque", "cheque")])  # a moves, but not to b's value
    assert len(vault.disputes()) == 1 and vault.disputes()[0].needs_user
    a.add_facts([Fact("user.payment.method", "Pays by invoice", "invoice")])  # now both say invoice
    assert vault.disputes() == [] and vault.get("user.payment.method").values == ("invoice",)
    (closed,) = vault.disputes("resolved")
    assert closed.resolution.decided_by == "rule:sides_agree"
