"""The same mistake is said alike on every command: a file where --out wants a directory (exit 2,
one wording), a missing input file the user named (not found, exit 3), an empty value typed for
any text option or argument (exit 2, "is empty"), and the command's own option names where the
library's message names a Python parameter (`--by`, not `decided_by`). Nothing is made or changed."""

from __future__ import annotations

import re

import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

from vault_ray import HashingEmbedder, Vault
from vault_ray.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store with one open dispute on a 'one' entity; returns (path, dispute id, a claim id). Every
    test here is refused (but the last), so it is made once."""
    path = tmp_path_factory.mktemp("alike") / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        claim = vault.agent("a").add("I'm in PST").decisions[0].claim_id
        vault.agent("b").add("I'm in EST")
        dispute = vault.disputes()[0].id
    return str(path), dispute, claim


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".duckdb" not in p.name and p.name != "store")


def one_error(got, code: int) -> str:
    assert got.exit_code == code, got.output
    assert got.stdout == "" and got.stderr.count("\n") == 1 and got.stderr.startswith("error: "), got.stderr
    return got.stderr.removeprefix("error: ").strip()


@pytest.mark.parametrize("command", [["export"], ["eval", "--scenarios", "5"], ["normalize", "--embedder", "hashing"]])
@pytest.mark.parametrize("below", [False, True])
def test_a_file_as_the_output_directory_is_the_same_bad_input_everywhere(tmp_path, monkeypatch, store, command, below):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("mine")
    out = "afile/sub" if below else "afile"
    args = [*command, "--out", out] + ([] if command[0] == "eval" else ["--store", store[0]])
    before = listing(tmp_path)
    said = one_error(runner.invoke(app, args), 2)
    assert said == f"--out '{out}': 'afile' is a file, not a directory"
    assert listing(tmp_path) == before and (tmp_path / "afile").read_text() == "mine"


def test_an_export_into_a_directory_with_files_is_bad_input_and_touches_them(tmp_path, store):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    said = one_error(runner.invoke(app, ["export", "--out", str(tmp_path / "taken"), "--store", store[0]]), 2)
    assert said == f"--out '{tmp_path / 'taken'}' is not an empty directory: give a new (or empty) one"
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("args, said", [
    (["policy", "apply", "nofile.json", "--store", "{store}"], "no policy file at 'nofile.json'"),
    (["up", "--store", "new", "--policy", "nofile.json"], "no policy file at 'nofile.json'"),
    (["normalize", "--apply", "noplan", "--store", "{store}"], "no merge plan at 'noplan' (normalize writes plan.parquet)"),
    (["normalize", "--apply", "emptydir", "--store", "{store}"],
     "no merge plan at 'emptydir/plan.parquet' (normalize writes plan.parquet)"),
    (["import", "nodir", "--store", "new"], "no vault-ray export at 'nodir'; nothing was imported"),
    (["eval", "--config", "nofile.toml"], "no config file at 'nofile.toml'"),
    (["eval", "--input", "nodir"], "no scenario files at 'nodir'"),
    (["eval", "--from-store", "nodir"], "no store or export at 'nodir'"),
    (["eval", "--recommend", "--current", "nofile.json"], "no policy file at 'nofile.json'"),
])
def test_a_missing_input_the_user_named_is_not_found_on_every_command(tmp_path, monkeypatch, store, args, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "emptydir").mkdir()
    before = listing(tmp_path)
    assert one_error(runner.invoke(app, [a.replace("{store}", store[0]) for a in args]), 3) == said
    assert listing(tmp_path) == before  # no new store, no eval-out


PYTHON_NAMES = re.compile(r"(?<![-\w])(decided_by|keep_both|dispute_id|claim_id|winner must|k must|since is|or None)\b")


@pytest.mark.parametrize("args, code, said", [
    (["resolve", "{dispute}"], 2, "give --winner CLAIM_ID, or --keep-both to keep every value"),
    (["resolve", "{dispute}", "--winner", "{claim}", "--keep-both"], 2,
     "give --winner or --keep-both, not both: --winner '{claim}' makes its value the only active one"),
    (["resolve", "{dispute}", "--keep-both"], 2, "--keep-both needs a 'many' entity"),  # as a --winner not of it
    (["resolve", "{dispute}", "--keep-both", "--by", "rule:me"], 2, "--by 'rule:me' starts with 'rule:'"),
    (["resolve", "{dispute}", "--winner", "x" * 200], 2, "--winner must be a non-empty string of at most 128 characters, got"),
    (["resolve", "d\x01", "--keep-both"], 2, "DISPUTE_ID has a control character"),
    (["retract", "c\x01", "--by", "me"], 2, "CLAIM_ID has a control character"),
    (["retract", "{claim}", "--by", "a\x01"], 2, "--by has a control character"),
    (["forget", "user.timezone", "--by", "strategy:x"], 2, "--by 'strategy:x' starts with 'strategy:'"),
    (["search", "q", "-k", "0"], 2, "-k must be a positive integer, got 0"),
])
def test_messages_name_the_options_the_user_typed_not_python_parameters(store, args, code, said):
    path, dispute, claim = store
    filled = [a.replace("{dispute}", dispute).replace("{claim}", claim) for a in args]
    got = one_error(runner.invoke(app, [*filled, "--store", path, "--hashing"]), code)
    assert said.replace("{claim}", claim) in got and not PYTHON_NAMES.search(got), got
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # nothing changed
        assert vault.disputes("open") and all(c.status.value != "retracted" for c in vault.claims())


def test_webhook_since_is_said_as_the_option(tmp_path, store):
    said = one_error(runner.invoke(app, ["webhook", "add", "http://127.0.0.1:9/x", "--since", "later", "--store",
                                         store[0]]), 2)
    assert said == "--since is 'now' or 'start', got 'later'"


GROUP = typer.main.get_command(app)
"""The command tree, built once: the many invocations below parse only (each is refused there)."""


def text_options():
    """(command path, option) for every option or argument that takes text or a path."""
    def walk(cmd, path):
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            yield from walk(sub, [*path, name])
        for p in getattr(cmd, "params", ()):
            desc = getattr(p, "type_descriptor", None)
            if desc is not None and (desc.annotation is str or desc.is_path) and p.default != "":
                yield path, p

    return list(walk(GROUP, []))


def filled(path, params, empty):
    """Arguments for `path` with `empty` typed as "" and a placeholder for every other required one."""
    args, opts = [], []
    arguments = [p for p in params if p.param_type_name == "argument"]
    for p in params:
        value = "" if p is empty else "1" if p.type_descriptor.annotation in (int, float) else "x"
        if p.param_type_name == "argument":
            if p.required or (empty in arguments and arguments.index(p) <= arguments.index(empty)):
                args.append(value)
        elif p is empty or p.required:
            opts += [next(o for o in p.opts if o.startswith("-")), value]
    return [*path, *args, *opts]


@pytest.mark.parametrize("path, param", text_options(), ids=lambda v: " ".join(v) if isinstance(v, list) else v.name)
def test_an_empty_value_is_refused_as_empty_on_every_text_option(tmp_path, monkeypatch, path, param):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(typer.testing, "_get_command", lambda _: GROUP)
    cmd = GROUP
    for name in path:
        cmd = cmd.commands[name]
    said = one_error(runner.invoke(app, filled(path, cmd.params, next(p for p in cmd.params if p.name == param.name))), 2)
    named = next((o for o in param.opts if o.startswith("--")), None) or f"argument {param.name.upper()}"
    assert said.startswith(f"{named} is empty: give a value"), said
    assert said.endswith(f"see `vault-ray {' '.join(path)} --help`"), said
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, said", [
    (["events", "--since", " "], "--since is blank (only spaces): give a value, or leave the option out"),
    (["get", "user.timezone", "--address", ""], "--address is empty: give a value, or leave the option out"),
    (["events", "--kinds", " , "], "--kinds names no kind, got ' , ': give claim_added, claim_superseded, ... or leave"),
])
def test_a_blank_or_empty_value_is_never_read_as_the_option_left_out(store, args, said):
    assert one_error(runner.invoke(app, [*args, "--store", store[0], "--hashing"]), 2).startswith(said)


def test_an_empty_note_is_still_no_note(tmp_path):
    path = str(tmp_path / "store")
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        claim = vault.agent("a").add("I'm in PST").decisions[0].claim_id
    got = runner.invoke(app, ["retract", claim, "--by", "me", "--note", "", "--store", path, "--hashing"])
    assert got.exit_code == 0 and "retracted" in got.stdout, got.output


def test_a_setting_of_evals_config_file_keeps_the_name_written_in_the_file(tmp_path, monkeypatch):
    """`eval --config` takes the settings its options take, under their Python names: a bad one is
    said with the key the user wrote in the file, not as an option they did not type."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "world.toml").write_text("[eval]\njudge_accuracy = 2\n")
    said = one_error(runner.invoke(app, ["eval", "--config", "world.toml", "-n", "3"]), 2)
    assert said == "judge_accuracy must be in [0, 1], got 2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["world.toml"]


@pytest.mark.parametrize("message, said", [
    ("decided_by must name who decided, got ''", "--by must name who decided, got ''"),
    ("winner must be a non-empty string of at most 128 characters or None, got 'x'",
     "--winner must be a non-empty string of at most 128 characters, got 'x'"),
    ("dispute_id has a control character", "DISPUTE_ID has a control character"),
    # what is not the parameter stays as the library wrote it
    ("store 'st' is held by another process", "store 'st' is held by another process"),
    ("the winner is the claim the store keeps", "the winner is the claim the store keeps"),
    ("no claim with id 'decided_by'", "no claim with id 'decided_by'"),
])
def test_only_the_words_that_are_a_parameter_are_said_as_options(message, said):
    from vault_ray.cli.names import as_typed, command_line_names
    from vault_ray.cli.store import resolve

    names = command_line_names(resolve)
    assert names["decided_by"] == "--by" and names["dispute_id"] == "DISPUTE_ID" and "store" in names
    assert as_typed(message, names) == said


@pytest.mark.parametrize("args", [["token", "add", "bot", "--tokens", "{d}"], ["token", "list", "--tokens", "{d}"],
                                  ["token", "revoke", "bot", "--tokens", "{d}"], ["webhook", "list", "--webhooks", "{d}"],
                                  ["serve", "--store", "{s}", "--tokens", "{d}", "--port", "1"]])
def test_a_directory_named_as_the_token_or_webhook_file_is_bad_input_before_anything_starts(tmp_path, store, args):
    (tmp_path / "keys").mkdir()
    given = [a.format(d=str(tmp_path / "keys"), s=store[0]) for a in args]
    said = one_error(runner.invoke(app, given), 2)
    option = "--webhooks" if "webhook" in args else "--tokens"
    assert said.startswith(f"{option} '{tmp_path / 'keys'}' is a directory, not a"), said
    assert list((tmp_path / "keys").iterdir()) == []


def test_serve_refuses_a_token_file_that_is_not_one_before_ray_starts(tmp_path, store):
    (tmp_path / "package.json").write_text('{"name": "x"')
    said = one_error(runner.invoke(app, ["serve", "--store", store[0], "--tokens", str(tmp_path / "package.json")]), 4)
    assert "token file" in said and "not JSON" in said
    assert (tmp_path / "package.json").read_text() == '{"name": "x"'


@pytest.mark.parametrize("kind", ["no rows", "other columns", "not parquet", "empty directory"])
def test_eval_input_that_holds_no_scenarios_is_one_line_before_ray_starts(tmp_path, monkeypatch, kind):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from vault_ray.evals.generator import SCENARIO_SCHEMA

    monkeypatch.chdir(tmp_path)
    given = tmp_path / "in.parquet"
    if kind == "no rows":
        pq.write_table(SCENARIO_SCHEMA.empty_table(), given)
    elif kind == "other columns":
        pq.write_table(pa.table({"user": ["a", "b"], "text": ["x", "y"]}), given)
    elif kind == "not parquet":
        given.write_text("scenario_id,writes\n1,2\n")
    else:
        given = tmp_path / "empty"
        given.mkdir()
    said = one_error(runner.invoke(app, ["eval", "--input", str(given), "--out", "out"]), 2)
    expected = {"no rows": "the scenario files hold no scenarios", "other columns": "is not a scenario file: it has no "
                "scenario_id, entities, truth, writes, queries column(s)", "not parquet": "is not a Parquet file of scenarios",
                "empty directory": "no scenario Parquet files in"}[kind]
    assert expected in said, said
    assert not (tmp_path / "out").exists()
