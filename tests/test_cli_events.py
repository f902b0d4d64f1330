"""`vault-ray events` (once, resumed from a cursor, followed), `vault-ray webhook add |
list | status | remove` and `vault-ray token add --role resolver`."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from datetime import timedelta

import pytest
from scenarios import T0
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.cli.events import Stream, _from_vault
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


def test_a_signal_stops_following_a_store_between_reads(store):
    """SIGTERM (or Ctrl-C) while a store is followed: the loop ends after the read it is in, the
    signal is kept for the exit code, and the handlers are put back."""
    stream, before = Stream(), signal.getsignal(signal.SIGTERM)
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        followed = _from_vault(vault, "start", True, {"kinds": None, "needs_user": None, "entity": None}, stream)
        first = next(followed)
        os.kill(os.getpid(), signal.SIGTERM)
        rest = list(followed)
    assert [e.kind for e in [first, *rest]] == ["claim_added", "claim_added", "dispute_opened"]
    assert stream.signal == signal.SIGTERM and stream.cursor == rest[-1].cursor
    assert signal.getsignal(signal.SIGTERM) is before


def _signal_once_following(sig: int, before: object) -> None:
    """Send `sig` once the follower's handler is in (never to pytest's own), and it had time to read."""
    deadline = time.monotonic() + 20
    while signal.getsignal(sig) is before:
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)
    time.sleep(0.2)
    os.kill(os.getpid(), sig)


@pytest.mark.parametrize("sig, code, how", [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_following_stops_on_ctrl_c_or_sigterm_with_the_jobs_exit_codes_and_the_cursor_to_go_on(store, sig, code, how):
    sender = threading.Thread(target=_signal_once_following, args=(sig, signal.getsignal(sig)))
    sender.start()
    got = runner.invoke(app, ["events", "--follow", "--since", "start", "--store", store, "--hashing", "--json"])
    sender.join()
    assert got.exit_code == code, got.output
    cursors = [e["cursor"] for e in _json_lines(got.stdout)]
    said = got.stderr.splitlines()[-1]
    assert said == (f"stopped ({how}): --since {cursors[-1]} goes on after the last event read" if cursors
                    else f"stopped ({how}) before any event came"), got.stderr


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
