""""Did you mean" beyond `get`: `history` and `search(entity=...)` of a key no claim was ever made on
answer their empty list with `suggestions` (the stored keys most like it), and `forget` / `erase` of
such a key refuse (EntityNotFound naming them) and change nothing; on every surface (library, CLI,
HTTP and its client, MCP). Known keys, aliases and keys like no stored one answer as before."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from mcp import Client
from test_did_you_mean import seed  # the same store as get's suggestions
from typer.testing import CliRunner

from vault_ray import EntityNotFound, Found, HashingEmbedder, NotFound, RegistryEntry, Vault, VaultClient
from vault_ray.cli import app
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.tokens import Principal

TYPOS = [("user.emplyer", "user.employer"), ("usr.timezone", "user.timezone"), ("project.dedline", "project.deadline"),
         ("user.pets.dgo", "user.pets.dog"), ("employer", "user.employer"), ("user.emial", "user.email")]


@pytest.fixture
def seeded(make_vault):
    vault = make_vault()
    seed(vault)
    return vault


def state(vault: Vault) -> list[tuple[str, str, str]]:
    return sorted((c.id, c.entity, str(c.status)) for c in vault.claims())


@pytest.mark.parametrize(("typo", "meant"), TYPOS)
def test_history_and_search_of_a_typo_name_the_key_meant(seeded, typo, meant):
    history = seeded.history(typo)
    assert isinstance(history, Found) and history == [] and history.suggestions[0] == meant
    assert "did you mean" in history.did_you_mean and meant in history.did_you_mean
    hits = seeded.search("what is it", entity=typo)
    assert hits == [] and hits.suggestions[0] == meant
    assert seeded.search("what is it", entity=typo, as_of=seeded.history(meant)[0].recorded_at).suggestions[0] == meant
    assert seeded.agent("b").search("what is it", entity=typo, mine=True).suggestions[0] == meant


def test_known_keys_aliases_and_unlike_keys_suggest_nothing(seeded):
    history = seeded.history("user.employer")
    assert [c.value for c in history] == ["Acme"] and history.suggestions == ()
    hits = seeded.search("where does the user work", entity="user.employer")
    assert hits[0].claim.entity == "user.employer" and hits.suggestions == ()
    assert seeded.search("where does the user work").suggestions == ()  # no entity asked: nothing to suggest
    assert seeded.history("user.hobby").suggestions == () and seeded.search("x", entity="user.hobby").suggestions == ()
    seeded.forget("user.email", decided_by="ops")  # claims were made: its history says so, no typo
    assert seeded.history("user.email").suggestions == () and seeded.search("mail", entity="user.email") == []
    assert seeded.search("mail", entity="user.email").suggestions == ()
    seeded.register(RegistryEntry("user.timezone", aliases=("user.tz",)))
    assert seeded.history("user.tz")[0].value == "CET" and seeded.history("user.tz").suggestions == ()


@pytest.mark.parametrize(("typo", "meant"), TYPOS)
def test_forget_and_erase_of_a_typo_refuse_and_change_nothing(seeded, typo, meant):
    before, events = state(seeded), len(seeded.events())
    for act in (seeded.forget, seeded.erase):
        with pytest.raises(EntityNotFound) as refused:
            act(typo, decided_by="ops", note="asked to")
        assert isinstance(refused.value, NotFound) and refused.value.entity == typo
        assert refused.value.suggestions[0] == meant and f"did you mean '{meant}'" in str(refused.value)
        assert "nothing was changed" in str(refused.value)
    assert state(seeded) == before and len(seeded.events()) == events


def test_forget_and_erase_of_known_or_unlike_keys_act_as_before(seeded):
    assert seeded.forget("user.hobby", decided_by="ops") == [] and seeded.erase("user.hobby", decided_by="ops") == []
    with pytest.raises(Exception, match="decided_by"):  # bad input first, as before
        seeded.forget("user.emial", decided_by="")
    done = seeded.forget("user.email", decided_by="ops")
    assert [r.claim.status for r in done] == ["retracted"]
    assert seeded.forget("user.email", decided_by="ops") == []  # known, nothing live: [] as before
    erased = seeded.erase("user.employer", decided_by="ops", note="request 7")
    assert [r.claim.text for r in erased] == ["[erased]"]
    assert [r.claim.id for r in seeded.erase("user.employer", decided_by="ops")] == [erased[0].claim.id]
    # an erased key's history is still read (docs/design.md "Erasure" keeps the key): it is still suggested
    assert seeded.get("user.emplyer").suggestions == ("user.employer",)


def test_the_cli_says_did_you_mean_for_history_forget_and_erase(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        seed(vault)
        before = state(vault)

    def run(*args: str, code: int = 0):
        result = CliRunner().invoke(app, [*args, "--store", str(store), "--hashing"])
        assert result.exit_code == code, result.output
        return " ".join(result.stdout.split()), " ".join(result.stderr.split())

    out, err = run("history", "usr.timezone", "--json")
    assert json.loads(out) == [] and "did you mean 'user.timezone'?" in err
    out, err = run("history", "user.hobby", "--json")
    assert json.loads(out) == [] and "did you mean" not in err
    assert "did you mean 'user.email'?" in run("forget", "user.emial", "--by", "ops", code=3)[1]
    assert "did you mean 'user.employer'?" in run("erase", "user.emplyer", "--by", "ops", "--yes", code=3)[1]
    assert "no live claim to retract" in run("forget", "user.hobby", "--by", "ops")[0]
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert state(vault) == before


def test_http_and_its_client_carry_the_suggestions(served_app):
    seed(served_app.vault)
    before = state(served_app.vault)
    with VaultClient(served_app.url, served_app.token("ana", "admin")) as client:
        history = client.history("user.emplyer")
        assert history == [] and history.suggestions == ("user.employer",)
        hits = client.search("work", entity="project.dedline")
        assert hits == [] and hits.suggestions == ("project.deadline",)
        assert client.history("user.employer").suggestions == () and client.history("user.hobby").suggestions == ()
        for act in (client.forget, client.erase):
            with pytest.raises(EntityNotFound) as refused:
                act("user.emial", note="asked to")
            assert refused.value.suggestions == ["user.email"] and refused.value.entity == "user.emial"
        assert client.forget("user.hobby") == []
    assert state(served_app.vault) == before
    headers = {"Authorization": f"Bearer {served_app.token('b')}"}
    raw = httpx.get(f"{served_app.url}/v1/entities/usr.timezone/history", headers=headers)
    assert raw.status_code == 200 and raw.json() == [] and raw.headers["Vault-Suggestions"] == "user.timezone"
    raw = httpx.get(f"{served_app.url}/v1/search", params={"q": "tz", "entity": "user.timezone"}, headers=headers)
    assert raw.json()[0]["claim"]["entity"] == "user.timezone" and "Vault-Suggestions" not in raw.headers


def test_the_mcp_tools_say_did_you_mean_for_history_and_forget(seeded):
    before = state(seeded)

    async def scenario():
        memory = lambda: VaultMemory(seeded, Principal("ana", "admin", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            structured = (await client.call_tool("history", {"entity": "user.emplyer"})).structured_content
            known = (await client.call_tool("history", {"entity": "user.employer"})).structured_content
            refused = await client.call_tool("forget", {"entity": "user.emial"})
            return structured, known, refused

    structured, known, refused = asyncio.run(scenario())
    assert structured == {"result": [], "suggestions": ["user.employer"]}
    assert known["suggestions"] == [] and known["result"][0]["value"] == "Acme"
    said = refused.content[0].text
    assert refused.is_error and "EntityNotFound" in said and "did you mean 'user.email'?" in said
    assert state(seeded) == before
