"""On a `many` entity conflicts are per item, and so is being contested (QA round 95, F14):
a dispute about jazz (likes:jazz vs dislikes:jazz) does not flag likes:blues in search or
in the MCP recall, and a contested hit's alternatives are the values of its own dispute."""

from __future__ import annotations

import asyncio

from mcp import Client
from mcp_clients import call

from vault_ray import Fact
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.tokens import Principal


def music(vault) -> str:
    vault.set_cardinality("user.music", "many")
    vault.set_strategy("user.music", "authority")
    vault.set_authority("a", "user.music", 0.9)
    vault.agent("a").add_facts([Fact("user.music", f"The user likes {x}", value=f"likes:{x}") for x in ("jazz", "blues", "rock")])
    jazz = vault.agent("b").add_facts([Fact("user.music", "The user dislikes jazz", value="dislikes:jazz")]).decisions[0]
    rock = vault.agent("b").add_facts([Fact("user.music", "The user dislikes rock", value="dislikes:rock")]).decisions[0]
    assert jazz.dispute_id and rock.dispute_id
    return jazz.dispute_id


def by_value(hits) -> dict:
    return {h.claim.value: h for h in hits}


def test_an_item_nobody_disputes_is_not_contested(make_vault):
    vault = make_vault()
    music(vault)
    hits = by_value(vault.search("The user likes blues", k=10))
    assert not hits["likes:blues"].contested and hits["likes:blues"].alternatives == ()
    assert hits["likes:jazz"].contested
    assert [a.value for a in hits["likes:jazz"].alternatives] == ["dislikes:jazz"]  # not rock, not blues
    assert [a.value for a in hits["likes:rock"].alternatives] == ["dislikes:rock"]
    view = vault.get("user.music")  # the entity has open disputes; each candidate names its own
    assert view.contested
    assert {c.claim.value: c.dispute_id is not None for c in view.candidates} == {
        "likes:jazz": True, "dislikes:jazz": True, "likes:rock": True, "dislikes:rock": True, "likes:blues": False}


def test_a_single_valued_entity_is_contested_as_before(authority):
    authority.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    authority.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", value="EST")])
    (hit,) = authority.search("which time zone is the user in", k=1)
    assert hit.contested and [a.value for a in hit.alternatives] == ["EST"]


def test_the_mcp_recall_follows_the_hit_flags(make_vault):
    vault = make_vault()
    dispute = music(vault)

    async def run():
        memory = lambda: VaultMemory(vault, Principal("reader", "agent", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            return (await call(client, "recall", query="The user likes blues", k=1),
                    await call(client, "recall", query="The user likes jazz", k=1),
                    await call(client, "get_entity", entity="user.music"))

    blues, jazz, entity = asyncio.run(run())
    assert "CONTESTED" not in blues and "settled" not in blues
    assert jazz.startswith("WARNING: 1 of these memories is CONTESTED")
    line = next(x for x in jazz.splitlines() if x.strip().startswith("CONTESTED: "))
    assert "likes:jazz" in line and "dislikes:jazz" in line and dispute in line
    assert "rock" not in line and "blues" not in line
    lines = entity.splitlines()  # one line per item dispute (QA F7), each naming its own values
    assert lines[0].startswith("user.music: CONTESTED: agents disagree on 2 separate items")
    jazz_line, rock_line = (next(x for x in lines if x.startswith("CONTESTED: ") and f"dislikes:{item}" in x)
                            for item in ("jazz", "rock"))
    assert dispute in jazz_line and "rock" not in jazz_line and "jazz" not in rock_line
    assert not any("blues" in x for x in (jazz_line, rock_line)) and "Not in dispute: likes:blues." in lines
