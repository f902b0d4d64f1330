"""qa4 finding 2: "did you mean" names keys whose claims are history only (forgotten, retracted,
erased: `history` still reads them), not only keys with a live value. A user auditing what was
forgotten mistypes the key and is told which one they meant: `get`, `history`, --json, MCP."""

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


def run(*args: str):
    got = CliRunner().invoke(app, [*args])
    return got.exit_code, " ".join(got.output.split())


@pytest.mark.parametrize(("key", "typo", "take_back"), [
    ("user.timezone", "user.timezon", "forget"),  # README's forget, then the typo
    ("person.bob.employer", "person.bob.emplyer", "retract"),  # one claim retracted by id, another subject
    ("pet.rex.breed", "pet.rex.bred", "erase"),  # erased: the key stays in the skeleton history shows
    ("device.laptop.model", "device.laptp.model", "forget"),  # a nested key
])
def test_a_key_with_only_history_is_suggested_for_its_typo(tmp_path, key, typo, take_back):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=4) as vault:
        (first,) = vault.agent("a").add_facts([Fact(key, f"{key} is one", value="one")]).decisions
        vault.agent("a").add_facts([Fact("user.city", "The user lives in Paris", value="Paris")])
        assert vault.get(typo).suggestions == (key,)  # live: suggested before, as always
        if take_back == "forget":
            vault.forget(key, decided_by="me")
        elif take_back == "retract":
            vault.retract(first.claim_id, decided_by="me")
        else:
            vault.erase(key, decided_by="me")
        assert vault.get(typo).suggestions == (key,)
        assert vault.get(key).suggestions == ()  # the key itself is no typo: its history answers
        assert vault.get_many([typo, "user.cty"])[typo].suggestions == (key,)
    code, said = run("history", typo, "--store", str(store), "--hashing")
    assert f"did you mean '{key}'?" in said, said
    code, said = run("get", typo, "--store", str(store), "--hashing")
    assert f"did you mean '{key}'?" in said, said
    got = CliRunner().invoke(app, ["get", typo, "--store", str(store), "--hashing", "--json"])
    assert json.loads(got.output)["suggestions"] == [key]


def test_mcp_history_of_a_mistyped_forgotten_key_names_it(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    vault.forget("user.timezone", decided_by="me")
    memory = lambda: VaultMemory(vault, Principal("agent-a", "agent", ""))  # noqa: E731

    async def go() -> str:
        async with Client(build_server(memory), raise_exceptions=True) as client:
            return await call(client, "history", entity="user.timezon")

    assert "did you mean 'user.timezone'?" in asyncio.run(go())


def test_a_key_forgotten_after_the_index_was_built_and_a_new_one_are_both_found(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([Fact(f"user.topic_{i:04d}", f"topic {i}", value="x") for i in range(500)]
                               + [Fact("user.employer", "works at Acme", value="Acme")], resolve=False)
    assert vault.get("user.emplyer").suggestions == ("user.employer",)  # builds each partition's index
    vault.forget("user.employer", decided_by="me")
    vault.agent("b").add_facts([Fact("user.employee", "is an employee", value="yes")])
    assert vault.get("user.emplyer").suggestions[:2] == ("user.employer", "user.employee")
    assert vault.get("user.topic_0x12").suggestions[0] == "user.topic_0012"
