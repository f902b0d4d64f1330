"""vault-ray's MCP server against the live Serve app (one app for the module), through the
SDK's own client:

- stdio: `vault-ray mcp --url --token` subprocesses run the authority seed scenario, two
  agent processes at once (an embedded store admits one process); the dispute shows in
  `recall` and `list_disputes`; an agent's process cannot settle it, an admin's does;
- streamable HTTP at /mcp: a missing or unknown token is refused before any MCP message;
  each token writes as its own agent; an agent token cannot call resolve_dispute, an
  admin token can; bad arguments are tool errors that change nothing."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from mcp import Client, MCPError
from mcp_clients import call, over_http, refused, stdio, text_of

from .served import served


@pytest.fixture(scope="module")
def store(serve_port, tmp_path_factory):
    with served(tmp_path_factory.mktemp("mcp"), serve_port) as found:
        admin = found.client("ops", admin=True)
        for entity in ("user.timezone", "user.diet"):
            admin.set_strategy(entity, "authority")
            admin.set_authority("agent-a", entity, 0.9)
            admin.set_authority("agent-b", entity, 0.2)
        yield found


def snapshot(store):
    vault = store.vault
    return (sorted((c.id, str(c.status), c.agent) for c in vault.claims()),
            sorted((d.id, str(d.status)) for d in vault.disputes(None)), len(vault.events()))


def leaves(error: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups."""
    inner = getattr(error, "exceptions", None)
    return [e for sub in inner for e in leaves(sub)] if inner else [error]


def test_a_missing_unknown_or_revoked_token_is_refused(store):
    url = store.url + "/mcp"
    revoked = store.token("gone")
    store.tokens.revoke("gone")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    before = snapshot(store)
    for headers in ({}, {"Authorization": "Bearer vr_nope_nope"}, {"Authorization": f"Bearer {revoked}"},
                    {"Authorization": "Basic b3BzOm9wcw=="}):
        resp = httpx.post(url, json=hello, headers=headers, timeout=60)
        assert resp.status_code == 401, resp.text
        assert resp.headers["www-authenticate"].startswith("Bearer ")
    stream = httpx.get(url, headers={"Authorization": f"Bearer {store.token('reader')}"}, timeout=60)
    assert stream.status_code == 405  # stateless: no server-to-client stream to hold a replica's slot

    async def without_token():
        async with over_http(url) as client:
            await client.list_tools()

    with pytest.raises(BaseException) as refused_:  # noqa: B017  (the SDK raises an exception group)
        asyncio.run(without_token())
    assert [type(e) for e in leaves(refused_.value)] == [MCPError]  # the SDK's reading of the 401
    assert snapshot(store) == before


def test_stdio_two_agent_processes_dispute_and_an_admin_process_settles_it(store):
    a, b, boss = (stdio("--url", store.url, "--token", store.token(name, admin=name == "ops"))
                  for name in ("agent-a", "agent-b", "ops"))

    async def scenario():
        async with Client(a) as agent_a, Client(b) as agent_b:
            wrote = [await call(agent_a, "remember", text="I'm in PST"),
                     await call(agent_b, "remember", text="I'm in EST")]
            recalls = [await call(c, "recall", query="what timezone is the user in?") for c in (agent_a, agent_b)]
            listed = await call(agent_b, "list_disputes")
            (d,) = [d for d in store.vault.disputes() if d.entity == "user.timezone"]
            denied = await refused(agent_b, "resolve_dispute", dispute_id=d.id, winner=d.challenger)
            open_after_denial = store.vault.dispute(d.id).status
        async with Client(boss) as ops:
            done = await call(ops, "resolve_dispute", dispute_id=d.id, winner=d.challenger, note="moved east")
            after = await call(ops, "recall", query="what timezone is the user in?")
        return wrote, recalls, listed, d, denied, open_after_denial, done, after

    wrote, recalls, listed, d, denied, open_after_denial, done, after = asyncio.run(scenario())

    assert wrote[0].startswith("Wrote 1 fact as agent-a") and "stored: user.timezone = PST" in wrote[0]
    assert wrote[1].startswith("Wrote 1 fact as agent-b") and "DISPUTED: user.timezone = EST" in wrote[1]
    for text in recalls:
        assert "CONTESTED: 2 agents disagree on user.timezone" in text
        assert "PST (agent-a, weight 0.90" in text and "EST (agent-b, weight 0.20" in text and d.id in text
    assert "open dispute(s)" in listed and d.id in listed
    assert f"claim {d.challenger}" in listed and f"claim {d.incumbents[0]}" in listed
    assert "Forbidden" in denied and open_after_denial == "open"  # the service refused the agent's token
    assert f"Resolved dispute {d.id}" in done and "Decided by ops: moved east" in done
    assert "CONTESTED" not in after and "user.timezone = EST" in after


def test_http_each_token_writes_as_its_agent_and_only_an_admin_settles_the_dispute(store):
    url = store.url + "/mcp"
    tokens = {"a": store.token("agent-a"), "b": store.token("agent-b"), "admin": store.token("ops", admin=True)}

    async def scenario():
        async with over_http(url, tokens["a"]) as a, over_http(url, tokens["b"]) as b:
            first = await call(a, "remember", text="I'm vegan")
            second = await call(b, "remember", text="I'm vegetarian")
            recall = await call(b, "recall", query="what does the user eat?")
            disputes = await call(a, "list_disputes")
            (d,) = [d for d in store.vault.disputes() if d.entity == "user.diet"]
            denied = await refused(b, "resolve_dispute", dispute_id=d.id, winner=d.challenger)
            still = store.vault.dispute(d.id).status
            view = (await a.read_resource("vault://entities/user.diet")).contents[0].text
        async with over_http(url, tokens["admin"]) as admin:
            done = await admin.call_tool("resolve_dispute", {"dispute_id": d.id, "winner": d.challenger,
                                                             "note": "asked the user"})
        return first, second, recall, disputes, d, denied, still, view, done

    first, second, recall, disputes, d, denied, still, view, done = asyncio.run(scenario())
    assert first.startswith("Wrote 1 fact as agent-a") and second.startswith("Wrote 1 fact as agent-b")
    assert "DISPUTED: user.diet = vegetarian" in second
    claims = {c.value: c for c in store.vault.history("user.diet")}
    assert claims["vegan"].agent == "agent-a" and claims["vegetarian"].agent == "agent-b"  # the token's principal
    assert "CONTESTED: 2 agents disagree on user.diet" in recall
    assert "vegan (agent-a, weight 0.90" in recall and "vegetarian (agent-b, weight 0.20" in recall
    assert d.id in disputes and d.id in view
    assert "Forbidden: 'agent-b' has the 'agent' role; this needs the 'resolver' role" in denied and still == "open"
    assert not done.is_error and "Decided by ops: asked the user" in text_of(done)
    settled = store.vault.dispute(d.id)
    assert settled.status == "resolved" and settled.resolution.decided_by == "ops"
    assert store.vault.get("user.diet").values == ("vegetarian",)


def test_bad_arguments_are_tool_errors_and_change_nothing(store):
    url = store.url + "/mcp"
    token = store.token("agent-c")
    admin = store.token("ops-2", admin=True)
    before = snapshot(store)

    async def scenario():
        async with over_http(url, token) as client, over_http(url, admin) as boss:
            return [
                await refused(client, "remember", text=""),
                await refused(client, "remember", text="I'm vegan. " * 2000),
                await refused(client, "remember_fact", entity="User Diet!", value="vegan", text="The user is vegan"),
                await refused(client, "remember_fact", entity="user.diet", value="vegan", text="x" * 2001),
                await refused(client, "history", entity="user..diet"),
                await refused(client, "explain", claim_id="no-such-claim"),
                await refused(boss, "resolve_dispute", dispute_id="no-such-dispute", winner="x"),
                await refused(client, "recall", query=""),  # the tool's `query`, never REST's `query.q`
            ]

    said = asyncio.run(scenario())
    for text, error in zip(said, ["InvalidFact", "InvalidFact", "InvalidEntity", "InvalidFact", "InvalidEntity",
                                  "ClaimNotFound", "DisputeNotFound", "InvalidInput"], strict=True):
        assert f": {error}: " in text and "query.q" not in text, text
    assert snapshot(store) == before
