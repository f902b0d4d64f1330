"""An agent's parked claim about a single-valued role of a `many` entity is withdrawn when it
names someone else for that role (QA round 98, F4). Before, `withdraw_challenge` ran for `one`
entities only: each change of mind about the user's wife opened one more dispute, until the
write raised DisputeCapExceeded. Now, as on a `one` entity, a later claim about the same item
(the same role, another count, a denial of it) takes the agent's parked claim back, and the
dispute is updated (still backed by others) or closed (`rule:challenger_withdrawn`); its
claims about other items of the entity stay where they are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, Policy
from vault_ray.engine.disputes import WITHDRAWN
from vault_ray.models import Outcome, Status

T0 = datetime(2026, 5, 1, 12, tzinfo=UTC)
FAM = "user.family"


def say(vault, agent, value, seconds=0.0, entity=FAM):
    fact = Fact(entity, f"{entity}: {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def candidates(vault, entity=FAM) -> list[str]:
    return sorted(c.claim.value for c in vault.get(entity).candidates)


def status(vault, decision) -> Status:
    return vault.claim(decision.claim_id).status


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
def test_several_changes_of_mind_about_the_wife_keep_one_dispute(vault, strategy):
    vault.set_strategy(FAM, strategy)
    maria = say(vault, "a", "wife:Maria")
    names = ["Anna", "Beth", "Cara", "Dora", "Emma"]  # more than max_open_disputes (3)
    said = [say(vault, "b", f"wife:{n}", 10 * (i + 1)) for i, n in enumerate(names)]
    assert all(d.outcome == Outcome.DISPUTED for d in said)
    for before, after in zip(said, said[1:], strict=False):
        assert after.superseded == (before.claim_id,)
        assert vault.claim(before.claim_id).superseded_by == after.claim_id
    (open_,) = vault.disputes()
    assert open_.id == said[-1].dispute_id and open_.challenger == said[-1].claim_id
    assert open_.incumbents == (maria.claim_id,)
    closed = {d.id: d for d in vault.disputes("resolved")}
    assert {closed[d.dispute_id].resolution.decided_by for d in said[:-1]} == {WITHDRAWN}
    assert all(closed[d.dispute_id].resolution.winner == maria.claim_id for d in said[:-1])
    assert candidates(vault) == ["wife:Emma", "wife:Maria"]


def test_in_plain_sentences_and_other_words_for_the_role(vault):
    vault.set_strategy(FAM, "authority")
    vault.agent("a").add("My wife's name is Maria")
    for name in ("Anna", "Beth", "Cara", "Dora"):
        vault.agent("b").add(f"My wife's name is {name}")
    assert len(vault.disputes()) == 1 and candidates(vault) == ["wife:Dora", "wife:Maria"]
    vault.agent("a").add("My mother is Jane")
    for name in ("Ann", "Joan", "Kate", "Lucy"):  # mom, mum, mother: one role
        vault.agent("b").add(f"My {'mom' if name != 'Joan' else 'mum'} is {name}")
    assert len(vault.disputes()) == 2


def test_only_the_same_item_is_withdrawn(vault):
    vault.set_strategy(FAM, "authority")
    say(vault, "a", "wife:Maria")
    say(vault, "a", "2 children")
    anna = say(vault, "b", "wife:Anna", 10)
    three = say(vault, "b", "3 children", 20)
    assert anna.dispute_id and three.dispute_id
    beth = say(vault, "b", "wife:Beth", 30)  # the wife again: Anna withdrawn, the children untouched
    assert beth.superseded == (anna.claim_id,) and status(vault, three) == Status.DISPUTED
    assert vault.dispute(three.dispute_id).status == "open"
    rex = say(vault, "b", "dog:Rex", 40)  # another item: more, not a change of mind
    assert rex.outcome == Outcome.ACTIVE and rex.superseded == ()
    assert status(vault, beth) == status(vault, three) == Status.DISPUTED
    four = say(vault, "b", "4 children", 50)  # another count: the 3 children are taken back
    assert four.superseded == (three.claim_id,) and vault.dispute(three.dispute_id).status == "resolved"
    assert status(vault, beth) == Status.DISPUTED
    assert sorted(d.challenger for d in vault.disputes()) == sorted([beth.claim_id, four.claim_id])


def test_naming_the_incumbent_ends_the_dispute(vault):
    vault.set_strategy(FAM, "authority")
    maria = say(vault, "a", "wife:Maria")
    anna = say(vault, "b", "wife:Anna", 10)
    back = say(vault, "b", "wife:Maria", 20)
    assert back.outcome == Outcome.ACTIVE and back.superseded == (anna.claim_id,)
    assert vault.disputes() == [] and not vault.get(FAM).contested
    d = vault.dispute(anna.dispute_id)
    assert d.resolution.decided_by == WITHDRAWN and d.resolution.winner == maria.claim_id


def test_a_fuller_name_replaces_the_parked_one_and_a_denial_only_its_name(vault):
    vault.set_strategy(FAM, "authority")
    say(vault, "a", "wife:Maria")
    anna = say(vault, "b", "wife:Anna", 10)
    fuller = say(vault, "b", "wife:Anna Lee", 20)  # the same person said more fully
    assert fuller.outcome == Outcome.DISPUTED and fuller.superseded == (anna.claim_id,)
    assert [d.challenger for d in vault.disputes()] == [fuller.claim_id]
    other = say(vault, "b", "not:wife:Beth", 30)  # denies someone else: Anna Lee stays parked
    assert fuller.claim_id not in other.superseded and status(vault, fuller) == Status.DISPUTED
    gone = say(vault, "b", "not:wife:Anna Lee", 40)  # denies its own parked name: withdrawn
    assert fuller.claim_id in gone.superseded and vault.disputes() == []


def test_other_agents_claims_and_late_arrivals_are_left_alone(vault):
    vault.set_strategy(FAM, "authority")
    say(vault, "a", "wife:Maria")
    anna = say(vault, "b", "wife:Anna", 10)
    backing = say(vault, "c", "wife:Anna", 15)  # c backs b's challenge
    beth = say(vault, "c", "wife:Beth", 5)  # c, observed before its backing: a late arrival takes nothing back
    assert backing.claim_id not in beth.superseded and status(vault, backing) == Status.DISPUTED
    cara = say(vault, "b", "wife:Cara", 20)  # b changes its mind: c still backs Anna
    assert cara.superseded == (anna.claim_id,)
    held = vault.dispute(anna.dispute_id)
    assert held.status == "open" and held.challenger == backing.claim_id and held.challenger_agent == "c"
    dora = say(vault, "d", "wife:Dora", 30)  # another agent: its own dispute, nobody's claim withdrawn
    assert dora.superseded == () and status(vault, cara) == Status.DISPUTED


def test_under_recency_near_simultaneous_names_are_withdrawn_too(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=60))
    say(vault, "a", "wife:Maria")
    said = [say(vault, "b", f"wife:{n}", i + 1) for i, n in enumerate(["Anna", "Beth", "Cara", "Dora"])]
    assert all(d.outcome == Outcome.DISPUTED for d in said)
    assert [d.challenger for d in vault.disputes()] == [said[-1].claim_id]


def test_a_dispute_waiting_for_a_person_holds_the_newest_name_only(vault):
    vault.set_strategy(FAM, "authority")
    maria = say(vault, "a", "wife:Maria")
    anna = say(vault, "b", "wife:Anna", 10)
    vault.resolve_dispute(anna.dispute_id, maria.claim_id, decided_by="user")
    again = say(vault, "b", "wife:Anna", 20)
    assert vault.dispute(again.dispute_id).needs_user
    vault.retract(maria.claim_id, decided_by="user")
    beth = say(vault, "b", "wife:Beth", 30)
    cara = say(vault, "b", "wife:Cara", 40)
    assert beth.dispute_id == cara.dispute_id == again.dispute_id
    assert status(vault, again) == status(vault, beth) == Status.SUPERSEDED
    assert candidates(vault) == ["wife:Cara"] and vault.get(FAM).active == ()
