"""Another agent's write of a disputed entity's standing value, in its words or others, joins the dispute.

While `wife:Ann` (the boss, the incumbent) and `wife:Bea` (the intern, parked) are in dispute, a third
agent's `spouse:Ann` says the standing value in other words (`rules.agrees`). It contradicts no active
claim, so it is stored active, but it is about what the dispute is about: it joins the dispute on the
incumbent's side, and every read marks it contested (QA2 F11). Values of other items stay apart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client
from mcp_clients import call

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.tokens import Principal

T0 = datetime.now(UTC) - timedelta(hours=1)
FAM = "user.family"


@pytest.fixture
def vault(tmp_path):
    policy = Policy(default_strategy="authority", authority={"boss": {"*": 0.9}}, cardinality={FAM: "many"})
    with Vault.open(tmp_path / "store", embedder=HashingEmbedder(), policy=policy) as v:
        yield v


def say(vault, agent, value, seconds=0, entity=FAM):
    fact = Fact(entity, f"{entity.split('.')[-1]}: {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def mcp(vault, tool, **arguments):
    async def run():
        memory = lambda: VaultMemory(vault, Principal("reader", "agent", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            return await call(client, tool, **arguments)
    return asyncio.run(run())


CASES = [
    (FAM, "wife:Ann", "wife:Bea", "spouse:Ann"),
    (FAM, "wife:Ann", "wife:Bea", "wife:Ann"),  # the very same words
    (FAM, "mom:Ann", "mom:Bea", "mother:Ann"),
    (FAM, "mother:Ann", "mother:Bea", "mum:Ann Lee"),  # a fuller name, in other words
    ("user.partner", "Ann", "Bea", "Ann Lee"),  # a `one` entity: a fuller name
    ("user.partner", "Ann Lee", "Bea", "Ann"),
]


@pytest.mark.parametrize(("entity", "standing", "challenge", "backer"), CASES)
def test_the_standing_value_in_other_words_joins_the_open_dispute(vault, entity, standing, challenge, backer):
    boss = say(vault, "boss", standing, 0, entity)
    opened = say(vault, "intern", challenge, 10, entity)
    other = say(vault, "c", "child:Tom", 15) if entity == FAM else None
    assert opened.outcome == "disputed"
    d = say(vault, "helper", backer, 20, entity)
    assert d.outcome == "active" and d.dispute_id == opened.dispute_id, d
    (dispute,) = vault.disputes()
    assert d.claim_id in dispute.incumbents and dispute.challenger == opened.claim_id

    view = vault.get(entity)
    marks = {c.claim.id: c.dispute_id for c in view.candidates}
    assert marks[d.claim_id] == marks[boss.claim_id] == marks[opened.claim_id] == opened.dispute_id
    if other is not None:
        assert marks[other.claim_id] is None  # another item is in no dispute
    for query in (backer, standing, entity.split(".")[-1]):
        (hit,) = [h for h in vault.search(query, k=10) if h.claim.id in (d.claim_id, boss.claim_id)]
        assert hit.contested and [a.id for a in hit.alternatives] == [opened.claim_id], query

    text = mcp(vault, "get_entity", entity=entity)
    head = text.splitlines()[0]
    assert "CONTESTED: 3 agents disagree" in head and head.count(" vs ") == 1, head
    assert "helper" in head.split(" vs ")[0], head  # on the standing value's side
    assert head.partition("Not in dispute:")[2].strip() == ("child:Tom." if other else ""), head


@pytest.mark.parametrize(("entity", "standing", "challenge", "backer"), CASES[::2])
def test_a_resolution_treats_the_backer_as_its_side(vault, entity, standing, challenge, backer):
    say(vault, "boss", standing, 0, entity)
    opened = say(vault, "intern", challenge, 10, entity)
    d = say(vault, "helper", backer, 20, entity)
    vault.resolve_dispute(opened.dispute_id, opened.claim_id, decided_by="user")
    view = vault.get(entity)
    assert not view.contested and [c.value for c in view.active] == [challenge]
    assert vault.claim(d.claim_id).status == "superseded"


def test_a_resolution_for_the_standing_value_keeps_its_backer(vault):
    boss = say(vault, "boss", "wife:Ann", 0)
    opened = say(vault, "intern", "wife:Bea", 10)
    d = say(vault, "helper", "spouse:Ann", 20)
    vault.resolve_dispute(opened.dispute_id, boss.claim_id, decided_by="user")
    view = vault.get(FAM)
    assert not view.contested and {c.id for c in view.active} == {boss.claim_id, d.claim_id}


def test_the_backer_stands_for_the_value_when_the_incumbent_is_retracted(vault):
    boss = say(vault, "boss", "wife:Ann", 0)
    opened = say(vault, "intern", "wife:Bea", 10)
    d = say(vault, "helper", "spouse:Ann", 20)
    vault.retract(boss.claim_id, decided_by="user")
    (dispute,) = vault.disputes()
    assert dispute.incumbents == (d.claim_id,) and dispute.challenger == opened.claim_id
    assert {c.claim.id: c.dispute_id for c in vault.get(FAM).candidates}[d.claim_id] == opened.dispute_id


def test_before_the_backer_joined_an_as_of_read_does_not_list_it(vault):
    say(vault, "boss", "wife:Ann", 0)
    opened = say(vault, "intern", "wife:Bea", 10)
    between = datetime.now(UTC)
    d = say(vault, "helper", "spouse:Ann", 20)
    before = vault.get(FAM, as_of=between)
    assert d.claim_id not in {c.claim.id for c in before.candidates}
    after = vault.get(FAM, as_of=datetime.now(UTC))
    assert {c.claim.id: c.dispute_id for c in after.candidates}[d.claim_id] == opened.dispute_id


def test_the_challengers_value_in_other_words_still_supports_the_challenge(vault):
    say(vault, "boss", "wife:Ann", 0)
    opened = say(vault, "intern", "wife:Bea", 10)
    d = say(vault, "helper", "spouse:Bea", 20)
    assert d.outcome == "disputed" and d.dispute_id == opened.dispute_id
    (dispute,) = vault.disputes()
    assert dispute.supporters == (d.claim_id,) and d.claim_id not in dispute.incumbents
