"""Consensus sides never hold claims at odds: a vaguer value ("Maria", "mom:Ann") that agrees
with two values at odds ("Maria Gonzalez" / "Maria Lopez", "mother:Ann Smith" / "mother:Ann
Lee") neither joins them into one side nor lets the backers of one count for the other; when
both are sides it counts for neither, as any other claim that agrees with two sides."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Claim, Fact, HashingEmbedder, Kind, Policy, Status, Vault
from vault_ray.models import Outcome
from vault_ray.strategies import Action, decide

T0 = datetime.now(UTC) - timedelta(hours=1)

CASES = {  # entity, cardinality, (the standing value, a vaguer word for it, a value at odds with it, a third one)
    "one": ("user.name", "one", ("Maria Gonzalez", "Maria", "Maria Lopez", "Sofia Ruiz")),
    "many": ("user.family", "many", ("mother:Ann Smith", "mom:Ann", "mother:Ann Lee", "mother:Beth Cole")),
    "many, other words": ("user.family", "many", ("mom:Ann Smith", "mother:Ann", "mother:Ann Lee", "mother:Beth")),
}


@pytest.fixture(params=list(CASES))
def case(request, tmp_path):
    entity, cardinality, values = CASES[request.param]
    vault = Vault.open(tmp_path / "s", embedder=HashingEmbedder())
    vault.set_strategy(entity, "consensus")
    if cardinality == "many":
        vault.set_cardinality(entity, "many")
    yield vault, entity, values
    vault.close()


def say(vault: Vault, agent: str, entity: str, value: str, minute: int):
    fact = Fact(entity, f"{entity}: {value}", value=value, observed_at=T0 + timedelta(minutes=minute))
    return vault.agent(agent).add_facts(fact).decisions[0]


def test_outvoted_backers_of_another_person_do_not_back_the_standing_one_through_a_vaguer_word(case):
    vault, entity, (standing, vaguer, other, third) = case
    writes = [("a", standing), ("b", standing), ("f", standing), ("m", vaguer), ("c", other), ("d", other)]
    for minute, (agent, value) in enumerate(writes):
        decision = say(vault, agent, entity, value, minute)
    assert decision.outcome == Outcome.SUPERSEDED  # c and d: 2 against a, b, f (and m)
    # the standing side is a, b, f and m: 4 agents (before, c and d counted for it too: 6)
    for i, agent in enumerate(["x1", "x2", "x3"]):
        decision = say(vault, agent, entity, third, 10 + i)
        assert decision.outcome == Outcome.SUPERSEDED, decision.reason
    assert "2.00 from 4 agent(s)" in decision.reason and "from 6 agent(s)" not in decision.reason
    tie = say(vault, "x4", entity, third, 14)  # 4 against 4: no clear majority (before, 4 against 6)
    assert tie.outcome == Outcome.DISPUTED, tie.reason
    last = say(vault, "x5", entity, third, 15)  # 5 against 4: a clear majority (margin 0.5)
    assert last.outcome == Outcome.ACTIVE, last.reason
    assert {c.value for c in vault.get(entity).active} == {third}
    assert vault.claim(last.claim_id).status == Status.ACTIVE


def claim(cid: str, agent: str, entity: str, value: str, minute: int) -> Claim:
    at = T0 + timedelta(minutes=minute)
    return Claim(cid, entity, f"{entity}: {value}", value, Kind.SEMANTIC, agent, None, at, at, Status.ACTIVE)


@pytest.mark.parametrize("vague_first", [True, False])
@pytest.mark.parametrize("name", list(CASES))
def test_a_vaguer_value_between_two_sides_at_odds_counts_for_neither(name, vague_first):
    entity, cardinality, (standing, vaguer, other, third) = CASES[name]
    vague = [claim("m", "m", entity, vaguer, 0)]
    firm = [claim(a, a, entity, standing, i) for i, a in enumerate("ab", 1)]
    firm += [claim(a, a, entity, other, i) for i, a in enumerate("cde", 3)]
    conflicting = vague + firm if vague_first else firm + vague
    incoming = claim("x", "x", entity, third, 9)
    verdict = decide(incoming, conflicting, Policy(default_strategy="consensus"), pool=conflicting,
                     cardinality=cardinality)
    # three sides, not one of six agents: the vaguer m backs neither person
    assert "from 6 agent(s)" not in verdict.reason
    assert "1.50 from 3 agent(s)" in verdict.reason and "1.00 from 2 agent(s)" in verdict.reason, verdict.reason
    assert verdict.action == Action.LOSE and verdict.winner == "e"  # the other person, 3 : 2 : 1
