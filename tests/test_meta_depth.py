"""`meta` nested past MAX_META_DEPTH is refused at write time on every surface, and a claim
an older store kept with deeper meta still reads everywhere (HTTP, the client, MCP) with the
part below the limit replaced by a marker: no read of it is a 500."""

from __future__ import annotations

import asyncio
import json

import duckdb
import httpx
import pytest
from mcp_clients import call, over_http

from vault_ray import Fact, HashingEmbedder, InvalidFact, Vault, VaultClient
from vault_ray.nesting import CLIPPED, MAX_META_DEPTH, depth


def nested(levels: int) -> dict:
    """A dict `levels` deep: {"a": {"a": ... None}}."""
    value: dict = {"a": None}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def test_the_library_refuses_meta_deeper_than_the_limit_and_writes_nothing(vault):
    mem = vault.agent("a")
    for levels in (MAX_META_DEPTH + 1, 300, 5000):  # 5000: past Python's own recursion limit
        with pytest.raises(InvalidFact, match=f"at most {MAX_META_DEPTH}") as refused:
            mem.add_facts([Fact("user.nickname", "The user is Bob", "Bob", meta=nested(levels))])
        assert refused.value.field == "meta" and refused.value.index == 0
    assert vault.history("user.nickname") == []
    mem.add_facts([Fact("user.nickname", "The user is Bob", "Bob", meta=nested(MAX_META_DEPTH))])
    assert depth(vault.get("user.nickname").active[0].meta) == MAX_META_DEPTH


def test_http_refuses_a_deep_meta_with_422_and_nothing_changes(served_app):
    token = served_app.token("bad")
    body = {"facts": [{"entity": "user.nickname", "text": "The user is Bob", "value": "Bob", "meta": nested(300)}]}
    answer = httpx.post(served_app.url + "/v1/facts", json=body, headers={"Authorization": f"Bearer {token}"})
    problem = answer.json()
    assert answer.status_code == 422 and problem["type"].endswith(":InvalidFact"), problem
    assert problem["field"] == "meta" and f"at most {MAX_META_DEPTH}" in problem["detail"]
    assert served_app.vault.history("user.nickname") == []


@pytest.fixture
def older_store(tmp_path):
    """The store `served_app` opens ("store"), with a claim whose meta nests 301 levels, as a
    store written before the limit keeps it (the row rewritten in the claim log)."""
    vault = Vault.open(tmp_path / "store", embedder=HashingEmbedder())
    vault.agent("a").add_facts([Fact("user.nickname", "The user is Bob", "Bob", meta={"a": 1}, claim_id="c-deep")])
    vault.close()
    deep = '{"tag": "kept", "a": ' + '{"a":' * 300 + "null" + "}" * 300 + "}"
    changed = 0
    for part in (tmp_path / "store").rglob("*.duckdb"):
        with duckdb.connect(str(part)) as con:
            changed += len(con.execute("UPDATE claims SET meta = ? WHERE id = 'c-deep' RETURNING id", [deep]).fetchall())
    assert changed == 1


def test_a_deep_meta_an_older_store_kept_reads_on_every_surface(older_store, served_app):
    token = served_app.token("other")
    auth = {"Authorization": f"Bearer {token}"}
    for path in ("/v1/entities/user.nickname", "/v1/entities/user.nickname/history", "/v1/claims/c-deep",
                 "/v1/search?q=nickname+Bob&k=10"):
        answer = httpx.get(served_app.url + path, headers=auth)
        assert answer.status_code == 200, (path, answer.text[:300])
    meta = httpx.get(served_app.url + "/v1/claims/c-deep", headers=auth).json()["meta"]
    assert meta["tag"] == "kept" and depth(meta) == MAX_META_DEPTH and CLIPPED in json.dumps(meta)
    with VaultClient(served_app.url, token) as client:
        assert client.get("user.nickname").active[0].value == "Bob"
        assert [h.claim.value for h in client.search("nickname Bob", k=10)] == ["Bob"]

    async def over_mcp() -> tuple[str, str]:
        async with over_http(served_app.url + "/mcp", token) as mcp:
            return await call(mcp, "get_entity", entity="user.nickname"), await call(mcp, "recall", query="nickname Bob")

    entity, recalled = asyncio.run(over_mcp())
    assert "Bob" in entity and "Bob" in recalled
