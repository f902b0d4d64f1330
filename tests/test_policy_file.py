"""Policy files and `vault-ray policy show | apply`: what a reviewed proposal goes through."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vault_ray import HashingEmbedder, InvalidPolicy, Policy, Vault
from vault_ray.cli import app
from vault_ray.policy_file import policy_changes, read_policy_file, write_policy_file

runner = CliRunner()
PROPOSED = Policy(default_strategy="authority", strategies={"user.diet": "consensus"},
                  authority={"scheduler": {"user.schedule.*": 0.9, "*": 0.6}, "chat": {"*": 0.4}})


def test_a_policy_file_round_trips_and_keeps_its_evidence(tmp_path):
    path = write_policy_file(tmp_path / "p.json", PROPOSED, proposal={"source": "a test", "gain": 0.1})
    assert read_policy_file(path) == PROPOSED
    data = json.loads(path.read_text())
    assert data["format"] == "vault-ray-policy" and data["proposal"]["source"] == "a test"
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(PROPOSED.to_dict()))
    assert read_policy_file(bare) == PROPOSED


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not a JSON policy file"),
    ("[1, 2]", "JSON object"),
    ('{"policy": {"default_strategy": "authority", "strategy": {}}}', "unknown policy settings: strategy"),
    ('{"policy": {"default_strategy": "newest"}}', "default_strategy must be one of"),
    ('{"policy": {"authority": {"chat": {"*": 1.5}}}}', "authority weight must be a number in"),
    ('{"policy": {"authority": {"chat": 0.5}}}', "authority of 'chat' must be an object"),
    ('{"policy": {"high_stakes": "user.payment.*"}}', "high_stakes must be a list"),
    ('{"policy": {"strategies": {"User Diet": "recency"}}}', "invalid pattern"),
    ('{"format": "vault-ray-policy", "version": 99, "policy": {}}', "newer than this vault-ray reads"),
    ('{"format": "something-else", "policy": {}}', "not a vault-ray policy file"),
])
def test_a_bad_policy_file_is_an_invalid_policy(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InvalidPolicy, match=message):
        read_policy_file(path)


def test_a_missing_file_is_an_invalid_policy(tmp_path):
    with pytest.raises(InvalidPolicy, match="no policy file"):
        read_policy_file(tmp_path / "nope.json")


def test_changes_are_listed_entry_by_entry():
    changes = policy_changes(Policy(authority={"chat": {"*": 0.4}}), PROPOSED)
    assert changes == [
        ("default_strategy", "recency", "authority"),
        ("strategies[user.diet]", None, "consensus"),
        ("authority[scheduler][*]", None, 0.6),
        ("authority[scheduler][user.schedule.*]", None, 0.9),
    ]
    assert policy_changes(PROPOSED, PROPOSED.updated()) == []  # the version is not a setting


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(), policy=Policy(authority={"chat": {"*": 0.4}})):
        pass
    return path


def stored_policy(path) -> Policy:
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        return vault.policy


def test_policy_apply_shows_the_changes_then_applies_them(store, tmp_path):
    path = write_policy_file(tmp_path / "proposal.json", PROPOSED)
    before = stored_policy(store)
    dry = runner.invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing", "--dry-run"],
                        env={"COLUMNS": "200"})
    assert dry.exit_code == 0, dry.output
    shown = " ".join(dry.output.split())
    assert "4 changes" in shown and "strategies[user.diet]" in shown and "nothing applied" in shown
    assert stored_policy(store) == before

    done = runner.invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    after = stored_policy(store)
    assert after.strategy_for("user.diet") == "consensus" and after.weight("scheduler", "user.schedule.gym") == 0.9
    assert after.version == before.version + 1


def test_policy_show_prints_a_file_that_apply_takes(store, tmp_path):
    shown = runner.invoke(app, ["policy", "show", "--store", str(store), "--hashing"])
    assert shown.exit_code == 0, shown.output
    path = tmp_path / "current.json"
    path.write_text(shown.output)
    assert read_policy_file(path) == stored_policy(store)
    again = runner.invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing"])
    assert again.exit_code == 0 and "0 changes" in " ".join(again.output.split())
    assert stored_policy(store).version == 0  # nothing to apply: the version stays


def test_policy_apply_refuses_a_bad_file_and_changes_nothing(store, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"policy": {"default_strategy": "newest"}}')
    before = stored_policy(store)
    result = runner.invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing"])
    assert result.exit_code == 2 and "default_strategy must be one of" in result.output
    assert stored_policy(store) == before


def test_policy_apply_to_a_path_without_a_store_creates_none(tmp_path):
    """A mistyped --store made a new store and applied the policy there (exit 0)."""
    path = write_policy_file(tmp_path / "proposal.json", PROPOSED)
    result = runner.invoke(app, ["policy", "apply", str(path), "--store", str(tmp_path / "typo"), "--hashing"])
    assert result.exit_code != 0 and "no vault-ray store" in result.output
    assert not (tmp_path / "typo").exists()


def test_a_setting_beside_the_policy_is_refused_not_dropped(tmp_path):
    """`policy show` output with "strategies" put beside "policy" applied "0 changes", exit 0."""
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"format": "vault-ray-policy", "version": 1, "policy": {},
                                "strategies": {"user.timezone": "authority"}}))
    with pytest.raises(InvalidPolicy, match="strategies"):
        read_policy_file(path)


@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_policy_apply_dry_run_refuses_what_the_apply_refuses(store, tmp_path, dry_run):
    """A dry run approved a rule on an alias (user.tz) that the real apply then refused."""
    shown = json.loads(runner.invoke(app, ["policy", "show", "--store", str(store), "--hashing"]).output)
    shown["policy"]["strategies"] = {"user.tz": "authority"}
    path = tmp_path / "alias.json"
    path.write_text(json.dumps(shown))
    before = stored_policy(store)
    result = runner.invoke(app, ["policy", "apply", str(path), "--store", str(store), "--hashing", *dry_run])
    assert result.exit_code == 2 and "'user.tz' is an alias of 'user.timezone'" in " ".join(result.output.split())
    assert stored_policy(store) == before


def test_policy_apply_names_the_stores_settings_the_file_removes(tmp_path):
    """qa4 F2: a proposal from synthetic scenarios starts from the default policy; applying it
    drops the store's own strategies and high-stakes patterns, so the dry run says which."""
    path = tmp_path / "store"
    own = Policy(strategies={"user.diet": "judge", "user.timezone": "authority"}, high_stakes=("user.medical.*",))
    with Vault.open(path, embedder=HashingEmbedder(), policy=own):
        pass
    proposal = write_policy_file(tmp_path / "proposal.json", PROPOSED)
    dry = runner.invoke(app, ["policy", "apply", str(proposal), "--store", str(path), "--hashing", "--dry-run"],
                        env={"COLUMNS": "400"})
    said = " ".join(dry.output.split())
    assert dry.exit_code == 0 and "note: this file removes 2 settings the store has now" in said
    assert "strategies[user.timezone]" in said and "high_stakes: user.medical.*" in said
    assert "--current current.json" in said and stored_policy(path).strategies == own.strategies  # a dry run
    kept = write_policy_file(tmp_path / "kept.json", Policy(strategies={**own.strategies, "user.x": "consensus"},
                                                            high_stakes=own.high_stakes))
    more = runner.invoke(app, ["policy", "apply", str(kept), "--store", str(path), "--hashing"], env={"COLUMNS": "400"})
    assert more.exit_code == 0 and "note: this file removes" not in more.output  # it only adds
