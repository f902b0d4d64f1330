"""`retract` and `forget` over both MCP transports, through the SDK's own client: stdio
(`vault-ray mcp --store` subprocesses, one at a time on an embedded store) and streamable
HTTP at /mcp of the app on a real server on 127.0.0.1 (a bearer token per caller). An agent
is refused and nothing changes; a resolver takes claims back, under its own name."""

from __future__ import annotations

import asyncio

from mcp import Client
from mcp_clients import call, over_http, refused, stdio, text_of

from vault_ray import Fact, HashingEmbedder, Retraction, Vault
from vault_ray.wire import decode


def seed(vault: Vault) -> None:
    vault.agent("planner").add_facts([Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1"),
                                      Fact("user.location", "The user lives in Lisbon", "Lisbon", claim_id="c-2")])


def statuses(vault: Vault) -> dict[str, str]:
    return {c.id: str(c.status) for c in vault.claims()}


def test_over_stdio_an_agent_process_is_refused_and_a_resolver_process_retracts(tmp_path):
    path = str(tmp_path / "store")
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        seed(vault)

    async def as_(name: str, role: str, scenario):
        async with Client(stdio("--store", path, "--agent", name, "--role", role, "--hashing")) as client:
            return await scenario(client)

    async def agent(client):
        return [await refused(client, "retract", claim_id="c-1"), await refused(client, "forget", entity="user.diet")]

    async def person(client):
        return [await call(client, "retract", claim_id="c-2", note="never said"),
                await call(client, "retract", claim_id="c-2"),
                await call(client, "forget", entity="user.diet"),
                await call(client, "forget", entity="user.diet")]

    denied = asyncio.run(as_("agent-a", "agent", agent))
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert statuses(vault) == {"c-1": "active", "c-2": "active"}
    took, again, forgot, nothing = asyncio.run(as_("ana", "resolver", person))
    assert all("Forbidden: 'agent-a' has the 'agent' role; this needs the 'resolver' role." in s for s in denied)
    assert took.startswith("Retracted claim c-2 on user.location") and "Decided by ana: never said." in took
    assert again.startswith("Claim c-2 was already retracted")
    assert forgot.startswith("Forgot user.diet: retracted 1 claim") and "vegan" in forgot
    assert nothing.startswith("user.diet: nothing to forget")
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert statuses(vault) == {"c-1": "retracted", "c-2": "retracted"}
        assert {e.decided_by for e in vault.events(since="start").events if e.kind == "claim_retracted"} == {"ana"}


def test_over_http_each_token_decides_as_its_principal(served_app):
    seed(served_app.vault)
    url = served_app.url + "/mcp"
    agent, person = served_app.token("planner"), served_app.token("ana", "resolver")

    async def scenario():
        async with over_http(url, agent) as client:
            denied = [await refused(client, "retract", claim_id="c-1"),
                      await refused(client, "forget", entity="user.diet")]
        unchanged = statuses(served_app.vault)
        async with over_http(url, person) as client:
            bad = await refused(client, "forget", entity="User Diet!")
            unfit = await refused(client, "retract", claim_id="c-2", decided_by="mallory")  # the same words as in-process
            took = await client.call_tool("retract", {"claim_id": "c-2", "note": "never said"})
            forgot = await client.call_tool("forget", {"entity": "user.diet"})
        return denied, unchanged, bad, unfit, took, forgot

    denied, unchanged, bad, unfit, took, forgot = asyncio.run(scenario())
    assert all("Forbidden: 'planner' has the 'agent' role; this needs the 'resolver' role." in s for s in denied)
    assert unchanged == {"c-1": "active", "c-2": "active"}
    assert "InvalidEntity" in bad and bad.endswith("Nothing was changed.")
    assert unfit == ("Error executing tool retract: InvalidInput: invalid arguments: decided_by: no such argument "
                     "(this tool takes claim_id, note). Nothing was changed.")
    assert "Decided by ana: never said." in text_of(took)
    assert decode(Retraction, took.structured_content).decided_by == "ana"
    assert [decode(Retraction, r).claim.id for r in forgot.structured_content["result"]] == ["c-1"]
    assert statuses(served_app.vault) == {"c-1": "retracted", "c-2": "retracted"}
