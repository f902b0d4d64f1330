"""Claim ids and session names are one line: a newline, tab or other control character in one is
refused on every surface (library, HTTP, the HTTP client, MCP, the CLI) with the same error, and
nothing is written, as entity keys are (test_entity_key_newline.py). Before, `"a\\nb"` was stored as
a claim id and `"s\\nt"` as a session. What an older version stored with one still reads."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest

from vault_ray import Fact, HashingEmbedder, InvalidFact, InvalidInput, Vault, VaultClient

BAD = ["a\nb", "a\tb", "a\rb", "ab\n", "a\x1bb", "a\x85b", "a\x00b"]


def _state(vault: Vault) -> tuple:
    return sorted((c.id, c.session) for c in vault.claims()), len(vault.events())


@pytest.mark.parametrize("bad", BAD)
def test_the_library_refuses_them_and_writes_nothing(make_vault, bad):
    vault = make_vault()
    agent = vault.agent("planner")
    agent.add_facts(Fact("user.diet", "The user is vegan", "vegan"), session="s-1")
    before = _state(vault)
    with pytest.raises(InvalidFact) as refused:
        agent.add_facts([Fact("user.city", "Lives in Paris", "Paris"), Fact("user.pet", "Has a cat", claim_id=bad)])
    assert (refused.value.field, refused.value.index) == ("claim_id", 1) and "it is one line" in str(refused.value)
    for write in (lambda: agent.add_facts(Fact("user.city", "Lives in Paris", "Paris"), session=bad),
                  lambda: agent.add("I live in Paris", session=bad)):
        with pytest.raises(InvalidInput, match="session has a control character .*: it is one line"):
            write()
    assert _state(vault) == before


def test_http_and_its_client_refuse_them_with_the_same_error(served_app):
    vault = served_app.vault
    token = served_app.token("planner")
    before = _state(vault)
    with httpx.Client(base_url=served_app.url, headers={"Authorization": f"Bearer {token}"}) as http:
        fact = http.post("/v1/facts", json={"facts": [{"entity": "user.city", "text": "Paris", "claim_id": "a\nb"}]})
        session = http.post("/v1/facts", json={"facts": [{"entity": "user.city", "text": "Paris"}], "session": "s\nt"})
        said = http.post("/v1/messages", json={"text": "I live in Paris", "session": "s\tt"})
    assert fact.status_code == session.status_code == said.status_code == 422
    assert fact.json()["type"].endswith(":InvalidFact") and fact.json()["field"] == "claim_id"
    assert session.json()["type"].endswith(":InvalidInput") and "session has a control character" in session.json()["detail"]
    assert said.json()["detail"] == session.json()["detail"].replace("U+000A", "U+0009").replace("s\\nt", "s\\tt")
    with VaultClient(served_app.url, token, retries=0) as memory:
        with pytest.raises(InvalidFact, match="claim_id has a control character"):
            memory.add_facts(Fact("user.city", "Lives in Paris", claim_id="a\nb"))
        with pytest.raises(InvalidInput, match="session has a control character"):
            memory.add("I live in Paris", session="s\nt")
    assert _state(vault) == before


def test_mcp_refuses_a_session_as_a_tool_error(vault):
    from mcp import Client
    from mcp_clients import refused

    from vault_ray.mcp import VaultMemory, build_server
    from vault_ray.tokens import Principal

    async def run() -> list[str]:
        async with Client(build_server(lambda: VaultMemory(vault, Principal("planner", "agent", "")))) as client:
            return [await refused(client, "remember", text="I live in Paris", session="s\nt"),
                    await refused(client, "remember_fact", entity="user.city", value="Paris", text="Lives in Paris",
                                          session="s\nt")]

    said = asyncio.run(run())
    assert all("session has a control character" in text for text in said), said
    assert vault.claims() == []


def test_the_cli_refuses_a_session_before_it_opens_the_store(tmp_path):
    done = subprocess.run([sys.executable, "-m", "vault_ray.cli", "chat", "--agent", "a", "--store", str(tmp_path / "s"),
                           "--hashing", "--session", "s\nt"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=120)
    assert done.returncode == 2 and "session has a control character" in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()


def test_what_an_older_version_stored_still_reads(make_vault, tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from vault_ray import fact_checks
    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.engine import front
    from vault_ray.tokens import TokenStore

    vault = make_vault()
    with monkeypatch.context() as older:  # the checks before this version: no line check
        older.setattr(fact_checks, "off_line", lambda text: None)
        older.setattr(front, "check_line", front.check_string)
        vault.agent("planner").add_facts(Fact("user.city", "Lives in Paris", "Paris", claim_id="c\n1"), session="s\n1")
    vault.close()
    with Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as again:
        claim = again.claim("c\n1")
        assert (claim.value, claim.session) == ("Paris", "s\n1") and again.get(claim.entity).values == ("Paris",)
        assert again.explain("c\n1").claim.id == "c\n1"
        tokens = TokenStore(tmp_path / "tokens.json")
        with TestClient(create_app(local_service(again, tokens))) as http:
            read = http.get("/v1/claims/c%0A1", headers={"Authorization": f"Bearer {tokens.add('chat')[0]}"})
        assert read.status_code == 200 and read.json()["session"] == "s\n1", read.text
        assert again.retract("c\n1", decided_by="ana").claim.id == "c\n1" and again.get(claim.entity).values == ()
