"""The CLI's policy commands as a user runs them: `strategy` sets what `authority` weights
need, `authority` says when its weight will not be used, the settings-only commands need no
embedder flag (and take it), and `--as-of` reads epoch seconds as the library does."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app


def invoke(*args: str):
    done = CliRunner().invoke(app, [*args], env={"COLUMNS": "200"})
    return done.exit_code, " ".join(done.output.replace("│", " ").split())


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.agent("agent-a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    return str(path)


def test_authority_says_when_the_patterns_strategy_ignores_weights_and_strategy_sets_one(store):
    code, said = invoke("authority", "scheduler", "user.timezone", "0.9", "--store", store, "--hashing")
    assert code == 0 and "note: user.timezone is decided by recency, which does not use authority weights" in said
    assert "vault-ray strategy user.timezone authority" in said
    code, said = invoke("strategy", "user.timezone", "authority", "--store", store, "--hashing")
    assert code == 0 and "(default) recency" in said and "user.timezone authority" in said
    code, said = invoke("authority", "chat", "user.timezone", "0.2", "--store", store, "--hashing")
    assert code == 0 and "note:" not in said
    with Vault.open(store, embedder=HashingEmbedder()) as vault:  # the weights now decide
        vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", "PST")])
        est = vault.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", "EST")]).decisions[0]
        assert est.outcome == "disputed" and est.strategy == "authority"
    code, said = invoke("strategy", "--store", store)  # shows the table; settings only: no --hashing needed
    assert code == 0 and "user.timezone authority" in said


def test_strategy_refuses_an_unknown_name_and_changes_nothing(store):
    code, said = invoke("strategy", "user.timezone", "loudest", "--store", store, "--hashing")
    assert code == 2 and "loudest" in said
    code, said = invoke("strategy", "user.timezone", "--store", store)
    assert code == 2 and "give PATTERN NAME" in said
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.strategies == {}


def test_policy_apply_needs_no_embedder_flag_and_import_takes_it(store, tmp_path):
    data = json.loads(CliRunner().invoke(app, ["policy", "show", "--store", store]).stdout)
    data["policy"].setdefault("strategies", {})["user.diet"] = "consensus"
    (tmp_path / "p.json").write_text(json.dumps(data))
    code, said = invoke("policy", "apply", str(tmp_path / "p.json"), "--store", store)
    assert code == 0 and "applied" in said, said
    code, said = invoke("policy", "apply", str(tmp_path / "p.json"), "--store", store, "--hashing")
    assert code == 0 and "already runs this policy" in said, said
    code, said = invoke("export", "--store", store, "--out", str(tmp_path / "exp"), "--hashing")
    assert code == 0, said
    code, said = invoke("import", str(tmp_path / "exp"), "--store", str(tmp_path / "copy"), "--hashing")
    assert code == 0 and "restored" in said, said
    with Vault.open(tmp_path / "copy", embedder=HashingEmbedder()) as vault:
        assert vault.get("user.diet").values == ("vegan",) and vault.policy.strategy_for("user.diet") == "consensus"


def test_as_of_takes_epoch_seconds_as_the_library_and_http_do(store):
    before = time.time() - 3600  # an hour before anything was written
    now = time.time() + 5  # after every write, also as 10 significant digits (1.7e9 s to the second)
    iso = datetime.fromtimestamp(now, UTC).isoformat()
    for when in (str(now), f"{now:.9e}"):
        code, said = invoke("get", "user.diet", "--store", store, "--hashing", "--as-of", when)
        assert code == 0 and "vegan" in said, said
    assert invoke("get", "user.diet", "--store", store, "--hashing", "--as-of", iso)[0] == 0
    code, said = invoke("get", "user.diet", "--store", store, "--hashing", "--as-of", str(int(before)))
    assert code == 0 and "vegan" not in said
    code, said = invoke("search", "diet", "--store", store, "--hashing", "--as-of", str(int(now)))
    assert code == 0 and "vegan" in said
    for bad, why in (("1e300", "outside the representable times"), ("tomorrow", "ISO 8601 time or epoch seconds")):
        code, said = invoke("get", "user.diet", "--store", store, "--hashing", "--as-of", bad)
        assert code == 2 and why in said, said


@pytest.mark.parametrize("command", [("strategy", "user.timezone", "authority"),
                                     ("authority", "scheduler", "user.timezone", "0.9")])
def test_a_policy_command_on_a_path_with_no_store_says_it_made_a_new_one(store, tmp_path, command):
    typo = str(tmp_path / "stroe")
    code, said = invoke(*command, "--store", typo, "--hashing")
    assert code == 0 and f"note: there was no vault-ray store at {typo}: made a new, empty one" in said
    code, said = invoke(*command, "--store", typo, "--hashing")  # the store is there now: no note
    assert code == 0 and "note: there was no" not in said
    code, said = invoke(*command, "--store", store, "--hashing")
    assert code == 0 and "note: there was no" not in said
    with Vault.open(typo, embedder=HashingEmbedder()) as vault:
        assert vault.get("user.diet").active == ()  # the new store is empty; the one with the data is another
