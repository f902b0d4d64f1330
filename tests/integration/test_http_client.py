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
