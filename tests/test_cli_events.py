"""`vault-ray events` (once, resumed from a cursor, followed), `vault-ray webhook add |
list | status | remove` and `vault-ray token add --role resolver`."""

from __future__ import annotations

import itertools
import json
from datetime import timedelta

import pytest
from scenarios import T0
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.cli.events import _from_vault
from vault_ray.tokens import TokenStore

runner = CliRunner()


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.agent("planner").add("My budget is 5000 dollars", observed_at=T0)
        vault.agent("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1))
    return str(path)


def _json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_events_prints_the_stream_and_resumes_from_a_cursor(store):
    done = runner.invoke(app, ["events", "--store", store, "--hashing", "--json"])
    assert done.exit_code == 0, done.output
    found = _json_lines(done.output)
    assert [e["kind"] for e in found] == ["claim_added", "claim_added", "dispute_opened"]
    assert found[-1]["needs_user"] is True and found[-1]["entity"] == "user.budget"
    only = runner.invoke(app, ["events", "--store", store, "--hashing", "--json", "--needs-user"])
    assert [e["kind"] for e in _json_lines(only.output)] == ["dispute_opened"]
    after = runner.invoke(app, ["events", "--store", store, "--hashing", "--json", "--since", found[0]["cursor"]])
    assert [e["id"] for e in _json_lines(after.output)] == [e["id"] for e in found[1:]]
    text = runner.invoke(app, ["events", "--store", store, "--hashing"], env={"COLUMNS": "200"})
    assert "dispute_opened" in text.output and "NEEDS USER" in text.output
    bad = runner.invoke(app, ["events", "--store", store, "--hashing", "--since", "v9.garbage"])
    assert bad.exit_code == 2 and "not an event cursor" in bad.output


def test_following_picks_up_new_events(store):
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        cursor = vault.events(since="now").cursor
        followed = _from_vault(vault, cursor, True, {"kinds": ["claim_added"], "needs_user": None, "entity": None})
        vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
        (event,) = itertools.islice(followed, 1)
        assert event.kind == "claim_added" and event.entity == "user.diet"


def test_webhook_commands(store):
    added = runner.invoke(app, ["webhook", "add", "http://127.0.0.1:9/hook", "--kinds", "dispute_opened",
                                "--needs-user-only", "--store", store])
    assert added.exit_code == 0, added.output
    secret = added.output.splitlines()[0]
    assert secret.startswith("whsec_")
    listed = runner.invoke(app, ["webhook", "list", "--store", store], env={"COLUMNS": "200"})
    assert "http://127.0.0.1:9/hook" in listed.output and secret not in listed.output
    status = runner.invoke(app, ["webhook", "status", "--store", store, "--json"])
    (hook,) = json.loads(status.output)
    assert (hook["delivered"], hook["failed"], hook["kinds"], hook["needs_user_only"]) == (0, 0, ["dispute_opened"], True)
    assert "secret" not in hook
    assert runner.invoke(app, ["webhook", "remove", hook["id"], "--store", store]).exit_code == 0
    assert runner.invoke(app, ["webhook", "remove", hook["id"], "--store", store]).exit_code == 3
    bad = runner.invoke(app, ["webhook", "add", "file:///etc/passwd", "--store", store])
    assert bad.exit_code == 2 and "http://" in bad.output


def test_a_resolver_token(store):
    made = runner.invoke(app, ["token", "add", "dana", "--role", "resolver", "--store", store])
    assert made.exit_code == 0, made.output
    token = made.output.splitlines()[0]
    assert TokenStore.for_store(store).authenticate(token).role == "resolver"
    assert runner.invoke(app, ["token", "add", "x", "--role", "boss", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["token", "add", "x", "--admin", "--role", "agent", "--store", store]).exit_code == 2
