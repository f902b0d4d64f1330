"""`VaultClient` and `AsyncVaultClient` against the app under a plain ASGI server
(uvicorn on 127.0.0.1, an embedded store: no Ray). The server here answers late
the first time (after applying the write): the client times out, sends the same
request again with the same ids, and gets the original decisions; the store holds
each write once."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from vault_ray import (
    AsyncVaultClient,
    ClaimNotFound,
    ClusterError,
    EntityView,
    Fact,
    HashingEmbedder,
    InvalidEntity,
    InvalidInput,
    Vault,
    VaultClient,
)
from vault_ray.tokens import TokenStore

from .served import free_port

uvicorn = pytest.importorskip("uvicorn")
LATE_S = 4.0


class LateFirstAnswers:
    """ASGI wrapper: the app handles every request; the first `late` answers to a write
    are held back for LATE_S seconds (a slow network), then sent."""

    def __init__(self, app, late: int) -> None:
        self.app, self.late, self.seen = app, late, []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        self.seen.append(scope["path"])
        held = []

        async def hold(message):
            held.append(message)

        await self.app(scope, receive, hold)
        if self.late > 0:
            self.late -= 1
            await asyncio.sleep(LATE_S)
        for message in held:
            await send(message)


@pytest.fixture
def server(tmp_path):
    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service

    vault = Vault.open(tmp_path / "store", embedder=HashingEmbedder())
    tokens = TokenStore.for_store(tmp_path / "store")
    app = LateFirstAnswers(create_app(local_service(vault, tokens)), late=0)
    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning", lifespan="off")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not runner.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{config.port}", app, vault, tokens
    runner.should_exit = True
    thread.join(timeout=30)
    vault.close()


def test_a_retry_after_a_timeout_resends_the_same_claim_ids(server):
    url, app, vault, tokens = server
    with VaultClient(url, tokens.add("planner")[0], timeout=LATE_S / 2, retries=3) as client:
        app.late = 1
        facts = [Fact("user.schedule.gym", "Gym at 7am", "7am"), Fact("user.diet", "The user is vegan", "vegan")]
        result = client.add_facts(facts)
        assert len(app.seen) >= 2 and set(app.seen) == {"/v1/facts"}  # sent again: the first answer came too late
        assert [c.id for c in vault.claims()].count(result.decisions[0].claim_id) == 1
        assert len(vault.claims()) == 2 and all(d.outcome == "active" for d in result)

        app.late, sent = 1, len(app.seen)  # extracted facts: the idempotency key fixes their ids
        said = client.add("I'm in PST")
        assert len(app.seen) >= sent + 2 and len(vault.history("user.timezone")) == 1
        assert vault.claim(said.decisions[0].claim_id).agent == "planner"

        app.late = 3  # every attempt late: the client gives up with the error of an unreachable service
        with VaultClient(url, tokens.add("other")[0], timeout=LATE_S / 2, retries=1) as impatient, \
                pytest.raises(ClusterError):
            impatient.add_facts([Fact("user.pets", "The user has a cat", "cat")])


def test_the_async_client_has_the_same_methods(server):
    url, _, _, tokens = server

    async def session() -> tuple:
        async with AsyncVaultClient(url, tokens.add("scheduler")[0]) as client:
            added = await client.add("I'm in CET")
            view = await client.get("user.timezone")
            hits = await client.search("timezone", k=1)
            with pytest.raises(ClaimNotFound):
                await client.claim("no-such-claim")
            with pytest.raises(InvalidEntity):
                await client.add_facts([Fact("Bad Key", "x")])
            return added, view, hits

    added, view, hits = asyncio.run(session())
    assert isinstance(view, EntityView) and [c.value for c in view.active] == ["CET"]
    assert hits[0].claim.id == added.decisions[0].claim_id


def test_problem_details_without_ray(server):
    url, _, _, tokens = server
    resp = httpx.get(url + "/v1/search", params={"q": "x"})
    assert resp.status_code == 401 and resp.headers["content-type"] == "application/problem+json"
    assert httpx.get(url + "/readyz").json()["mode"] == "embedded"
    metrics = httpx.get(url + "/metrics").text
    assert 'vault_http_requests_total{method="GET",route="/v1/search",status="401"} 1.0' in metrics
    assert "vault_open_disputes 0.0" in metrics


def test_the_async_client_follows_the_event_stream_and_has_every_method(server):
    """`AsyncVaultClient` has each public method of `VaultClient` (awaited), `follow` as an
    async iterator included: a write after the cursor reaches it."""
    url, _, _, tokens = server
    public = {name for name in dir(VaultClient) if not name.startswith("_")} - {"close"}
    assert public <= {name for name in dir(AsyncVaultClient) if not name.startswith("_")}

    async def session():  # type: ignore[no-untyped-def]
        async with AsyncVaultClient(url, tokens.add("watcher")[0]) as watcher, \
                AsyncVaultClient(url, tokens.add("scheduler")[0]) as writer:
            start = (await watcher.events()).cursor
            stream = watcher.follow(start, kinds=["claim_added"])
            first = asyncio.ensure_future(stream.__anext__())
            await asyncio.sleep(0.3)
            added = await writer.add("I'm in CET")
            event = await asyncio.wait_for(first, 30)
            await stream.aclose()
            return added, event

    added, event = asyncio.run(session())
    assert (event.kind, event.entity, event.claim_id, event.agent) == (
        "claim_added", "user.timezone", added.decisions[0].claim_id, "scheduler")


def test_the_client_refuses_what_cannot_travel_as_a_header(server):
    url, _, vault, tokens = server
    with pytest.raises(InvalidInput, match="token must be printable ASCII"):  # checked when the client is made
        VaultClient(url, "tökén")
    with VaultClient(url, tokens.add("scheduler")[0]) as client:
        for key in ("ключ", "", "a\nb"):
            with pytest.raises(InvalidInput):
                client.add("I'm in CET", key=key)
    assert vault.claims() == []


def test_who_asks_comes_before_what_was_asked(server):
    """A request without a valid token gets its 401, even when its body or query is also
    bad (FastAPI reads them first): a stranger learns nothing of the route's parameters."""
    url, _, vault, tokens = server
    token = tokens.add("scheduler")[0]
    for headers in ({}, {"Authorization": "Bearer vr_nope_nope"}, {"Authorization": "Basic abc"}):
        bad_body = httpx.post(url + "/v1/facts", content=b'{"facts": ', headers={**headers, "Content-Type": "application/json"})
        bad_query = httpx.get(url + "/v1/search", params={"entiy": "x"}, headers=headers)
        assert (bad_body.status_code, bad_query.status_code) == (401, 401), (bad_body.text, bad_query.text)
        assert "entiy" not in bad_query.text and bad_query.headers["content-type"] == "application/problem+json"
    mine = {"Authorization": f"Bearer {token}"}
    assert httpx.post(url + "/v1/facts", content=b'{"facts": ', headers={**mine, "Content-Type": "application/json"}
                      ).status_code == 422
    assert httpx.get(url + "/v1/search", params={"entiy": "x"}, headers=mine).status_code == 422
    assert vault.claims() == []


def test_the_clients_patch_the_policy_and_a_stale_version_is_a_conflict(server):
    from vault_ray import InvalidPolicy, PolicyConflict

    url, _, vault, tokens = server
    vault.set_strategy("user.diet", "authority")
    with VaultClient(url, tokens.add("ops", "admin")[0]) as client:
        before = client.policy()
        after = client.patch_policy({"half_life_days": 3.5, "authority": {"planner": {"user.*": 0.8}}})
        assert after.half_life_days == 3.5 and after.strategies == {"user.diet": "authority"}
        assert after.authority == {"planner": {"user.*": 0.8}} and after.version == before.version + 1
        with pytest.raises(PolicyConflict):
            client.patch_policy({"half_life_days": 9.0}, version=before.version)
        with pytest.raises(InvalidPolicy):
            client.patch_policy({"strategies": {"user.diet": "coin-flip"}})
        with pytest.raises(InvalidInput):
            client.patch_policy(["half_life_days"])
    assert vault.policy == after

    async def session():
        async with AsyncVaultClient(url, tokens.add("ops2", "admin")[0]) as client:
            return await client.patch_policy({"strategies": {"user.diet": None}}, version=after.version)

    assert asyncio.run(session()).strategies == {} and vault.policy.half_life_days == 3.5
