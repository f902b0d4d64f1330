"""Dispute bookkeeping when an incumbent's own agent changes its claim (QA round 99e, M1 and M2).

M1: the incumbent's agent switching to the challenger's value repeats the open challenge: it joins
that dispute as a supporter, and the dispute's incumbent becomes another agent's live claim of the
old value, never a second dispute of the same two values.
M2: when a person retracts the claim that replaced an incumbent, the open dispute names the live
claims that stand in its place, not the superseded incumbent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact
from vault_ray.models import Outcome, Status

T0 = datetime.now(UTC) - timedelta(hours=3)
CASES = [("user.family", "many", "2 cats", "3 cats"), ("user.family", "many", "3 children", "2 children"),
         ("user.timezone", "one", "PST", "EST"), ("user.office", "one", "Berlin", "Rome")]


def say(vault, entity: str, agent: str, value: str, second: int):
    fact = Fact(entity, f"{entity}: {value}", value=value, observed_at=T0 + timedelta(seconds=second))
    return vault.agent(agent).add_facts([fact]).decisions[0]


def live_incumbents(vault, d) -> list[tuple[str, str]]:
    out = []
    for i in d.incumbents:
        c = vault.claim(i)
        assert c.status in (Status.ACTIVE, Status.DISPUTED), (c.value, c.status)
        out.append((c.agent, c.value))
    return out


@pytest.mark.parametrize(("entity", "card", "old", "new"), CASES)
@pytest.mark.parametrize("strategy", ["consensus", "authority"])
def test_the_incumbents_agent_switching_sides_joins_the_open_dispute(make_vault, entity, card, old, new, strategy):
    vault = make_vault()
    vault.set_cardinality(entity, card)
    vault.set_strategy(entity, strategy)
    if strategy == "consensus":
        vault.set_authority("c", "*", 0.5)
        vault.set_authority("d", "*", 0.2)
    say(vault, entity, "d", old, 0)
    first = say(vault, entity, "c", new, 10)
    assert first.outcome == Outcome.DISPUTED
    say(vault, entity, "b", old, 20)
    switch = say(vault, entity, "d", new, 30)

    (d,) = vault.disputes()  # one question, one dispute
    assert d.id == first.dispute_id and switch.dispute_id == d.id
    if switch.outcome == Outcome.DISPUTED:
        assert [(vault.claim(i).agent, vault.claim(i).value) for i in d.supporters] == [("d", new)]
        assert live_incumbents(vault, d) == [("b", old)]
        assert [(c.agent, c.value) for c in vault.get(entity).active] == [("b", old)]
        done = vault.resolve_dispute(d.id, d.challenger, decided_by="user")
        assert done.resolution.winner == d.challenger
    assert sorted(c.agent for c in vault.get(entity).active) == ["c", "d"]
    assert all(vault.check().values())


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
def test_an_open_dispute_names_live_incumbents_after_a_successor_is_retracted(make_vault, strategy):
    entity = "user.partner"
    vault = make_vault()
    vault.set_strategy(entity, strategy)
    anna, sarah = say(vault, entity, "a", "Anna", 0), say(vault, entity, "b", "Sarah", 10)
    vault.resolve_dispute(sarah.dispute_id, anna.claim_id, decided_by="user")
    tom = say(vault, entity, "b", "Tom", 20)  # waits for the person who chose Anna
    beth = say(vault, entity, "a", "Beth", 30)  # a revises its own claim: Anna superseded by Beth
    say(vault, entity, "c", "Beth", 40)
    vault.retract(beth.claim_id, decided_by="user")

    (d,) = vault.disputes()
    assert d.challenger == tom.claim_id
    assert live_incumbents(vault, d) == [("c", "Beth")]
    assert [c.value for c in vault.get(entity).active] == ["Beth"]
    vault.resolve_dispute(d.id, tom.claim_id, decided_by="user")
    assert [(c.agent, c.value) for c in vault.get(entity).active] == [("b", "Tom")]
    assert all(vault.check().values())


def test_a_chosen_claims_agent_backing_the_challenge_leaves_the_other_incumbent(make_vault):
    entity = "user.timezone"
    vault = make_vault()
    vault.set_strategy(entity, "authority")
    vault.set_authority("b", "*", 0.2)
    say(vault, entity, "c", "PST", 0)
    cst = say(vault, entity, "b", "CST", 10)
    vault.resolve_dispute(cst.dispute_id, cst.claim_id, decided_by="user")
    c_cst = say(vault, entity, "c", "CST", 20)
    est = say(vault, entity, "a", "EST", 30)  # against both CST claims: waits for the person
    backing = say(vault, entity, "b", "EST", 40)  # b backs it, replacing its own chosen CST
    assert backing.dispute_id == est.dispute_id
    (d,) = vault.disputes()
    assert live_incumbents(vault, d) == [("c", "CST")]
    vault.retract(c_cst.claim_id, decided_by="user")
    (d,) = vault.disputes()
    assert d.needs_user and d.incumbents == ()  # nothing stands: it waits for the person
    assert not vault.get(entity).active
    assert all(vault.check().values())
