"""Search shows one hit per value, whatever words its claims say it in (`rules.agrees`).

`mom:Ann` and `mother:Ann` on one entity are one value (consensus counts their agents together,
a person resolves for both): search returns one hit for it, listing the other claims as `agreeing`,
not two hits. Values the engine keeps apart (`mother:Ann Lee` / `mother:Ann Smith`, `child:Tom`)
stay apart, and a contested hit lists each competing value once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client
from mcp_clients import call

from vault_ray import Fact
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.tokens import Principal

T0 = datetime.now(UTC) - timedelta(hours=1)
FAM = "user.family"


def say(vault, agent, value, seconds=0, entity=FAM):
    fact = Fact(entity, f"{entity.split('.')[-1]}: {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def hits_on(vault, query, entity, **kw):
    return [h for h in vault.search(query, k=10, **kw) if h.claim.entity == entity]


@pytest.mark.parametrize(("entity", "first", "second"), [
    (FAM, "mom:Ann", "mother:Ann"),
    (FAM, "mother:Ann", "mum:Ann Lee"),
    (FAM, "wife:Maria", "spouse:Maria"),
    (FAM, "dad:Bob", "father:Bob"),
    ("user.partner", "Maria", "Maria Gonzalez"),
])
def test_one_value_in_other_words_is_one_hit_listing_its_backers(family_vault, entity, first, second):
    a, b = say(family_vault, "a", first, 0, entity), say(family_vault, "b", second, 10, entity)
    assert a.outcome == b.outcome == "active"
    if entity == FAM:
        say(family_vault, "c", "child:Tom", 20)  # another item: a hit of its own
    for query in (first, second, entity.split(".")[-1]):
        for as_of in (None, datetime.now(UTC)):
            found = hits_on(family_vault, query, entity, as_of=as_of)
            said = [h for h in found if h.claim.id in (a.claim_id, b.claim_id)]
            assert len(said) == 1, [h.claim.value for h in found]
            (hit,) = said
            assert {hit.claim.id, *(c.id for c in hit.agreeing)} == {a.claim_id, b.claim_id}
            assert not hit.contested
            if entity == FAM:
                assert [h.claim.value for h in found if h not in said] == ["child:Tom"]


def test_two_holders_of_one_role_stay_two_values(family_vault):
    """`mom:Ann` says the same as `mother:Ann Lee` and as `mother:Ann Smith`; those two contradict:
    the hit of one never lists the other as agreeing, and the contested hit names it once."""
    family_vault.set_strategy(FAM, "authority")
    lee = say(family_vault, "a", "mother:Ann Lee", 0)
    smith = say(family_vault, "b", "mother:Ann Smith", 10)  # a tie: a dispute
    assert smith.outcome == "disputed"
    mom = say(family_vault, "c", "mom:Ann", 20)  # agrees with what stands
    also = say(family_vault, "d", "mama:Ann Smith", 30)  # repeats b's challenge in other words
    assert also.dispute_id == smith.dispute_id
    found = hits_on(family_vault, "mother Ann", FAM)
    standing = [h for h in found if lee.claim_id in {h.claim.id, *(c.id for c in h.agreeing)}]
    assert len(standing) == 1
    (hit,) = standing
    assert smith.claim_id not in {c.id for c in hit.agreeing} and also.claim_id not in {c.id for c in hit.agreeing}
    assert mom.claim_id in {hit.claim.id, *(c.id for c in hit.agreeing)}
    assert hit.contested and len(hit.alternatives) == 1  # Ann Smith once, not once per word
    assert hit.alternatives[0].id in (smith.claim_id, also.claim_id)


def test_a_contested_one_entity_lists_each_competing_value_once(family_vault):
    tz = "user.timezone"
    family_vault.set_strategy(tz, "authority")
    pst = say(family_vault, "a", "PST", 0, tz)
    est = say(family_vault, "b", "EST", 10, tz)
    again = say(family_vault, "c", "Eastern time", 20, tz)  # EST in other words: a supporter
    assert est.dispute_id and again.dispute_id == est.dispute_id
    (hit,) = [h for h in hits_on(family_vault, "timezone PST", tz) if h.claim.id == pst.claim_id]
    assert hit.contested and len(hit.alternatives) == 1


def test_the_mcp_recall_line_shows_one_side_per_value(family_vault):
    """The MCP `recall` text of a contested hit puts the hit's backers in other words on its side, and a
    challenge's supporters on the challenger's: two sides, not one per word."""
    family_vault.set_strategy(FAM, "authority")
    say(family_vault, "a", "mother:Ann Lee", 0)
    say(family_vault, "b", "mother:Ann Smith", 10)
    say(family_vault, "c", "mom:Ann", 20)
    say(family_vault, "d", "mama:Ann Smith", 30)

    async def run():
        memory = lambda: VaultMemory(family_vault, Principal("reader", "agent", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            return await call(client, "recall", query="mother Ann")

    text = asyncio.run(run())
    line = next(x for x in text.splitlines() if "CONTESTED: " in x and "dispute" in x)
    assert "4 agents disagree" in line and line.count(" vs ") == 1, line
    assert "mom:Ann" not in line.split(" vs ")[1] and "mama:Ann Smith" not in line  # each side named once
