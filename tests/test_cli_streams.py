"""What the CLI prints where (QA round 91): an error goes to stderr, so `X=$(vault-ray ...)`
captures the answer or nothing; ids print whole; the read commands speak JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app

runner = CliRunner()


def test_an_error_line_goes_to_stderr_and_stdout_stays_empty(tmp_path):
    for args in (["token", "add", "x", "--store", str(tmp_path / "nope")],
                 ["get", "user.timezone", "--store", str(tmp_path / "nope"), "--hashing"],
                 ["disputes", "--store", str(tmp_path / "nope"), "--hashing"]):
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        assert result.stdout == "", (args, result.stdout)
        assert result.stderr.startswith("error:"), (args, result.stderr)


def test_a_winner_outside_the_dispute_is_bad_input(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        other = vault.agent("x").add_facts([Fact("user.city", "lives in Rome", value="Rome")]).decisions[0]
        vault.agent("a").add_facts([Fact("user.timezone", "in PST", value="PST")])
        d = vault.agent("b").add_facts([Fact("user.timezone", "in EST", value="EST")]).decisions[0]
    result = runner.invoke(app, ["resolve", d.dispute_id, "--winner", other.claim_id, "--store", str(tmp_path / "s"),
                                 "--hashing"])
    assert result.exit_code == 2 and "not part of dispute" in result.stderr and result.stdout == ""


def test_serve_refuses_bad_numbers_before_starting_ray(tmp_path):
    for flag, value in (("--replicas", "0"), ("--max-body-bytes", "-5"), ("--port", "70000"), ("--shards", "0"),
                        ("--max-ongoing-requests", "0")):
        result = runner.invoke(app, ["serve", "--store", str(tmp_path / "s"), flag, value])
        assert result.exit_code == 2 and flag in result.stderr and "Traceback" not in result.output, (flag, result.output)
    assert not (tmp_path / "s").exists()


def test_events_help_says_follow_on_a_store_holds_it():
    text = " ".join(runner.invoke(app, ["events", "--help"]).output.replace("│", " ").split())
    assert "StoreLocked" in text and "--url" in text


def _disputed(path):
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.agent("a").add_facts([Fact("user.timezone", "in PST", value="PST")])
        return vault.agent("b").add_facts([Fact("user.timezone", "in EST", value="EST")]).decisions[0]


def test_ids_print_whole_at_80_columns(tmp_path):
    d = _disputed(tmp_path / "s")
    where = ["--store", str(tmp_path / "s"), "--hashing"]
    shown = runner.invoke(app, ["disputes", *where], env={"COLUMNS": "80"})
    assert shown.exit_code == 0 and d.dispute_id in shown.stdout, shown.stdout
    history = runner.invoke(app, ["history", "user.timezone", *where], env={"COLUMNS": "80"})
    assert d.claim_id[:12] in history.stdout


def test_read_commands_print_json(tmp_path):
    d = _disputed(tmp_path / "s")
    where = ["--store", str(tmp_path / "s"), "--hashing"]
    (dispute,) = json.loads(runner.invoke(app, ["disputes", "--json", *where]).stdout)
    assert dispute["id"] == d.dispute_id and dispute["opened_at"].endswith("Z")
    view = json.loads(runner.invoke(app, ["get", "user.timezone", "--json", *where]).stdout)
    assert view["contested"] is True and {c["claim"]["value"] for c in view["candidates"]} == {"PST", "EST"}
    history = json.loads(runner.invoke(app, ["history", "user.timezone", "--json", *where]).stdout)
    assert {c["value"] for c in history} == {"PST", "EST"} and "embedding" not in history[0]
    hits = json.loads(runner.invoke(app, ["search", "timezone", "--json", *where]).stdout)
    assert isinstance(hits, list) and hits
    explained = json.loads(runner.invoke(app, ["explain", d.claim_id, "--json", *where]).stdout)
    text = json.dumps(explained)
    assert "+00:00" not in text and "T" in explained["claim"]["observed_at"] and explained["claim"]["observed_at"].endswith("Z")


def test_export_takes_hashing_and_policy_show_needs_no_model(tmp_path):
    _disputed(tmp_path / "s")
    shown = runner.invoke(app, ["policy", "show", "--store", str(tmp_path / "s")])  # a hashing store, no --hashing
    assert shown.exit_code == 0, shown.output
    assert "authority" in json.dumps(json.loads(shown.stdout))
    done = runner.invoke(app, ["export", "--out", str(tmp_path / "out"), "--store", str(tmp_path / "s"), "--hashing"])
    assert done.exit_code == 0 and (tmp_path / "out").is_dir(), done.output


def test_a_turn_without_a_user_message_names_the_roles(vault):
    from vault_ray import InvalidFact

    try:
        vault.agent("a").add([{"role": "wizard", "content": "I'm vegan"}])
    except InvalidFact as exc:
        assert "'wizard'" in str(exc) and "'user'" in str(exc) and exc.field == "messages"
    else:
        raise AssertionError("a turn with no user message was read")
