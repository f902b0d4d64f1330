"""QA round 98 L4: a typo in an entity key (`user.emplyer` for `user.employer`) still answers
an empty view (an unknown entity is a fair question), but the view names the stored keys
most like it, and the CLI, MCP and HTTP answers say "did you mean"."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client
from mcp_clients import call
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.mcp import VaultMemory, build_server
from vault_ray.tokens import Principal

FACTS = [("user.employer", "Acme"), ("user.timezone", "CET"), ("user.email", "ana@example.org"),
         ("project.deadline", "Friday"), ("user.pets.dog", "Rex")]


def seed(vault: Vault) -> None:
    vault.agent("a").add_facts([Fact(key, f"{key} is {value}", value=value) for key, value in FACTS])


@pytest.fixture
def seeded(make_vault):
    vault = make_vault()
    seed(vault)
    return vault


@pytest.mark.parametrize(("typo", "meant"), [
    ("user.emplyer", "user.employer"),  # a letter left out
    ("user.timezon", "user.timezone"),  # the last letter
    ("user.rmployer", "user.employer"),  # the first letter of the attribute
    ("usr.employer", "user.employer"),  # the subject
    ("user.employers", "user.employer"),  # one too many
    ("project.dedline", "project.deadline"),  # another subject
    ("user.pets.dgo", "user.pets.dog"),  # a nested key
    ("employer", "user.employer"),  # no subject at all
])
def test_a_typo_reads_an_empty_view_that_names_the_key_meant(seeded, typo, meant):
    view = seeded.get(typo)
    assert view.entity == typo and view.active == () and view.values == () and not view.contested
    assert view.suggestions[0] == meant
    assert seeded.get_many([typo, meant])[typo].suggestions[0] == meant


def test_keys_that_hold_claims_or_match_nothing_suggest_nothing(seeded):
    assert seeded.get("user.employer").suggestions == ()
    assert seeded.get("user.employer").values == ("Acme",)
    assert seeded.get("user.hobby").suggestions == ()  # unknown, but like no stored key
    assert seeded.get("project.budget").suggestions == ()


def test_a_retracted_entity_is_not_a_typo_but_its_key_is_still_suggested(seeded):
    """qa4 finding 2: a forgotten key still has its history, so a typo of it is hinted."""
    seeded.forget("user.email", decided_by="ops", note="asked to")
    view = seeded.get("user.email")
    assert view.values == () and view.suggestions == ()  # claims were made: its history says what happened
    assert seeded.get("user.emial").suggestions == ("user.email",)


def test_suggestions_follow_new_keys_and_several_are_ranked(seeded):
    assert seeded.get("user.emplyee").suggestions == ("user.employer",)
    seeded.agent("b").add_facts([Fact("user.employee", "the user is an employee", value="yes")])
    assert seeded.get("user.emplyee").suggestions[:2] == ("user.employee", "user.employer")
    assert seeded.get("user.emplyee", as_of=0).suggestions[0] == "user.employee"


def test_the_typo_is_found_among_thousands_of_keys(make_vault):
    vault = make_vault()
    keys = [f"user.topic_{i:05d}" for i in range(3000)] + ["user.employer"]
    vault.agent("a").add_facts([Fact(k, f"{k} noted", value="x") for k in keys], resolve=False)
    assert vault.get("user.emplyer").suggestions == ("user.employer",)
    assert vault.get("user.topic_0x123").suggestions[0] == "user.topic_00123"
    assert vault.get("user.topic_00123").suggestions == ()


def test_the_cli_says_did_you_mean_for_get_and_history(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        seed(vault)

    def run(*args: str) -> str:
        result = CliRunner().invoke(app, [*args, "--store", str(store), "--hashing"])
        assert result.exit_code == 0, result.output
        return " ".join(result.output.split())

    assert "did you mean 'user.employer'?" in run("get", "user.emplyer")
    assert "no claim was ever made on this key" in run("get", "user.emplyer")
    assert "did you mean 'user.timezone'?" in run("history", "user.timezon")
    assert json.loads(run("get", "user.emplyer", "--json"))["suggestions"] == ["user.employer"]
    plain = run("get", "user.hobby")
    assert "nothing stored" in plain and "did you mean" not in plain


def test_the_mcp_tools_say_did_you_mean(seeded):
    async def scenario():
        memory = lambda: VaultMemory(seeded, Principal("agent-a", "agent", ""))  # noqa: E731
        async with Client(build_server(memory), raise_exceptions=True) as client:
            structured = (await client.call_tool("get_entity", {"entity": "user.emplyer"})).structured_content
            return (await call(client, "get_entity", entity="user.emplyer"),
                    await call(client, "history", entity="usr.timezone"), structured,
                    await call(client, "get_entity", entity="user.hobby"))

    view, history, structured, plain = asyncio.run(scenario())
    assert view.startswith("user.emplyer: no current value") and "did you mean 'user.employer'?" in view
    assert "no claim has ever been made" in history and "did you mean 'user.timezone'?" in history
    assert structured["suggestions"] == ["user.employer"]
    assert "did you mean" not in plain


def test_the_http_body_carries_the_suggestions(seeded, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    tokens = TokenStore(tmp_path / "tokens.json")
    headers = {"Authorization": f"Bearer {tokens.add('planner', 'agent')[0]}"}
    with TestClient(create_app(local_service(seeded, tokens))) as client:
        typo = client.get("/v1/entities/user.emplyer", headers=headers)
        known = client.get("/v1/entities/user.employer", headers=headers)
    assert typo.status_code == 200 and typo.json()["active"] == [] and typo.json()["suggestions"] == ["user.employer"]
    assert known.json()["suggestions"] == [] and known.json()["active"][0]["value"] == "Acme"
