"""A new user's walk through every `vault-ray` command (helper "cli", 2026-12-06): bad input is refused
with one line and changes nothing, before any Ray work starts."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app

CPUS = os.cpu_count() or 1


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "my store ü"  # a space and a non-ASCII letter, as users name folders
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "I am vegan", value="vegan")])
    return path


def refused(args: list[str]):
    started = time.perf_counter()
    result = CliRunner().invoke(app, args)
    assert time.perf_counter() - started < 10, "refused only after Ray started"
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert not result.stdout.strip(), result.stdout  # no bar, no summary
    return lines[0]


@pytest.mark.parametrize("command", ["reindex", "normalize"])
def test_a_pool_larger_than_the_machine_is_refused_before_ray_with_what_to_give(store, command):
    import ray

    before = (store / "vault.json").read_text()
    plan = store.parent / "plan"
    extra = ["--embedder", "hashing", "--dim", "64"] if command == "reindex" else ["-e", "hashing", "--out", str(plan)]
    line = refused([command, "--store", str(store), *extra, "--cpus-per-actor", str(CPUS + 1)])
    assert f"need {CPUS + 1} Ray CPUs and this machine has {CPUS}" in line, line
    assert f"give --cpus-per-actor {CPUS} or less, or leave it out" in line, line
    line = refused([command, "--store", str(store), *extra, "--actors", str(CPUS + 1)])
    assert f"give --actors {CPUS} or fewer" in line, line
    if CPUS >= 2:  # two actors fit, not of every CPU each
        line = refused([command, "--store", str(store), *extra, "--actors", "2", "--cpus-per-actor", str(CPUS)])
        assert f"need {2 * CPUS} Ray CPUs" in line and f"give --cpus-per-actor {CPUS // 2} or less" in line, line
    assert not ray.is_initialized()
    assert (store / "vault.json").read_text() == before  # the store is as it was
    assert not plan.exists()


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_pool_of_no_cpu_is_a_usage_error(store, value):
    result = CliRunner().invoke(app, ["reindex", "--store", str(store), "-e", "hashing", "--cpus-per-actor", value])
    assert result.exit_code == 2 and "--cpus-per-actor" in result.output, result.output


def one_scenario_run():
    """What `eval -n 1` measures (scenario 0, the even half: `learned` has nothing to replay)."""
    import pyarrow as pa

    from vault_ray.evals.job import EvalRun
    from vault_ray.evals.metrics import COUNT_COLUMNS, RESULTS_SCHEMA, Aggregator
    from vault_ray.evals.uncertainty import UnitCounts, comparisons, policy_intervals

    ran = ["lww", "recency", "oracle"]
    counts = {**dict.fromkeys(COUNT_COLUMNS, 0), "entities": 2, "final_correct": 1, "writes": 5, "reads": 1,
              "reads_correct": 1}
    table = pa.Table.from_pylist([{"policy": p, "scenario_id": 0, "gap": 0.3, **counts, "cpu_s": 0.0, "node": ""}
                                  for p in ran], schema=RESULTS_SCHEMA)
    agg, units = Aggregator(), UnitCounts(1, (0.0, 0.5, 1.01))
    agg.add(table)
    units.add(table)
    summary = agg.summary(policy_intervals(units, ran, resamples=50))
    return EvalRun(summary, agg.accuracy_by_gap(), 1, 1.0, [*ran, "learned"],
                   comparisons=comparisons(units, ran, resamples=50))


def test_eval_of_one_scenario_says_why_learned_is_not_in_the_table_nor_the_report(tmp_path, capsys):
    from vault_ray.cli.eval import _write_outputs
    from vault_ray.evals.config import EvalConfig, GeneratorConfig

    run = one_scenario_run()
    names = ["lww", "recency", "oracle", "learned"]
    _write_outputs(run, "1 Ray node", (tmp_path, tmp_path), GeneratorConfig(), EvalConfig(), names, 0, 1, None, None,
                   None)
    printed = " ".join(capsys.readouterr().out.split())
    said = ("learned: left out, it replays the odd-numbered scenarios (its weights are fitted on the even-numbered "
            "ones) and this run has none: give 2 or more scenarios")
    assert said in printed, printed
    report = " ".join((tmp_path / "report.md").read_text().split())
    assert f"- {said}." in report
    assert "oracle: left out" not in report and "oracle: left out" not in printed  # only what has no row


def test_a_run_with_every_policy_says_nothing_is_left_out():
    from vault_ray.evals.report import left_out

    assert left_out(["lww", "learned"], ["lww", "learned"]) == []
    assert left_out(["lww", "judge"], ["lww"]) == ["judge: left out, no scenario was replayed under it"]


@pytest.mark.parametrize("command", [["serve"], ["up"], ["get", "user.diet"], ["authority", "a", "user.*", "0.5"],
                                     ["chat", "--agent", "a"]])
def test_a_file_named_as_the_store_is_one_line_before_ray_and_nothing_is_made(tmp_path, command):
    import ray

    notes = tmp_path / "notes ü.txt"
    notes.write_text("my notes\n")
    for store, said in ((notes, f"'{notes}' is a file, not a store directory"),
                        (notes / "memory", f"no store can be at '{notes / 'memory'}': a part of the path is a file")):
        result = CliRunner().invoke(app, [*command, "--store", str(store), "--hashing"], input="")
        assert result.exit_code == 4, result.output
        assert result.stderr.strip() == f"error: {said}", result.stderr  # not "cannot read .../vault.json: [Errno 20]"
        assert "restore it from a backup" not in result.stderr
    assert not ray.is_initialized()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes ü.txt"] and notes.read_text() == "my notes\n"


def test_webhook_status_of_a_mistyped_store_is_an_error_like_webhook_list(tmp_path):
    missing = tmp_path / "memroy"
    for command in (["webhook", "status"], ["webhook", "list"]):
        result = CliRunner().invoke(app, [*command, "--store", str(missing)])
        assert result.exit_code == 3, result.output  # not an empty table: "no deliveries" of a store that is not there
        assert result.stderr.startswith(f"error: no vault-ray store at {missing}"), result.stderr
        assert not result.stdout and not missing.exists()


def test_up_on_a_store_another_process_holds_is_refused_before_a_ray_head_starts(store):
    hold = ("import sys, time\nfrom vault_ray import HashingEmbedder, Vault\n"
            "vault = Vault.open(sys.argv[1], embedder=HashingEmbedder())\nprint('held', flush=True)\ntime.sleep(60)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    holder = subprocess.Popen([sys.executable, "-c", hold, str(store)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "held"  # type: ignore[union-attr]
        started = time.perf_counter()
        result = CliRunner().invoke(app, ["up", "--store", str(store), "--hashing", "--port", "6391"])
        assert time.perf_counter() - started < 10, "a Ray head was started first"
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 4, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "is held by another process" in lines[0], result.stderr
    assert "Ray head" not in result.stderr and not (store / "cluster.json").exists()


@pytest.mark.parametrize("args", [["mcp", "--agent", "a", "--store", "no such store/memory ü"],
                                  ["eval", "--hashing", "--out", "never made"]])
def test_a_long_error_is_one_line_however_narrow_the_terminal(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args, env={"COLUMNS": "60"})
    assert result.exit_code in (2, 3), result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) > 80, result.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("command", "args", "said"), [
    ("up", ["--partitions", "0"], "--partitions must be an integer in [1, 4096], got 0"),
    ("up", ["--partitions", "-5"], "--partitions must be an integer in [1, 4096], got -5"),
    ("up", ["--index", "bogus"], "--index must be one of 'flat', 'hnsw', got 'bogus'"),
    ("serve", ["--partitions", "5000"], "--partitions must be an integer in [1, 4096], got 5000"),
])
def test_bad_settings_of_a_new_store_are_refused_before_ray_starts(tmp_path, command, args, said):
    import ray

    store = tmp_path / "new store"
    started = time.perf_counter()
    result = CliRunner().invoke(app, [command, "--store", str(store), "--hashing", "--port", "6392", *args])
    assert time.perf_counter() - started < 10, "refused only after a Ray head started"
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"error: {said}", result.stderr  # no "the log of the Ray head is kept" note
    assert not store.exists() and not ray.is_initialized()


def test_up_refuses_a_negative_cpu_count_before_ray(tmp_path):
    result = CliRunner().invoke(app, ["up", "--store", str(tmp_path / "s"), "--num-cpus", "-1"])
    assert result.exit_code == 2 and "--num-cpus" in result.output, result.output
    assert not (tmp_path / "s").exists()


def test_import_of_a_mistyped_export_directory_says_there_is_none(tmp_path):
    missing, store = tmp_path / "bakup", tmp_path / "restored"
    result = CliRunner().invoke(app, ["import", str(missing), "--store", str(store)])
    assert result.exit_code == 3, result.output  # not found, as a mistyped --store
    assert result.stderr.strip() == f"error: no vault-ray export at '{missing}'; nothing was imported", result.stderr
    assert not store.exists()


@pytest.mark.parametrize("name, said", [
    ("backup.tar.gz", "it is a file, not the directory an export writes"),
    ("manifest.json", "it is a file, not the directory an export writes: give its directory, "),
])
def test_import_of_a_file_says_it_is_a_file(tmp_path, name, said):
    """It said "no manifest.json (an unfinished or foreign export)", of manifest.json itself too."""
    given, store = tmp_path / name, tmp_path / "restored"
    given.write_text("{}")
    result = CliRunner().invoke(app, ["import", str(given), "--store", str(store)])
    assert result.exit_code == 4 and f"'{given}' is not a valid vault-ray export: {said}" in result.stderr, result.stderr
    assert not store.exists()


def test_rebalance_to_no_shard_is_a_usage_error_before_joining_ray():
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["rebalance", "--shards", "0", "--address", "127.0.0.1:1"])
    assert result.exit_code == 2 and "--shards" in result.output, result.output
    assert "cannot join" not in result.output and time.perf_counter() - started < 5


@pytest.mark.parametrize(("args", "said"), [
    (["--agent", "", "--session", "s1"], "--agent is empty: give a value"),
    (["--agent", " bob"], "agent name must have no surrounding spaces"),
    (["--agent", "bob", "--session", ""], "--session is empty: give a value, or leave the option out"),
    (["--agent", "bob", "--session", "x" * 300], "--session must be a non-empty string of at most 256 characters"),
])
def test_chat_refuses_a_bad_agent_or_session_before_the_prompt_and_makes_no_store(tmp_path, args, said):
    store = tmp_path / "new store"
    result = CliRunner().invoke(app, ["chat", *args, "--store", str(store), "--hashing"], input="I am vegan\n")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], result.stderr
    assert "statements are stored" not in result.stdout  # no prompt
    assert not store.exists()  # a refused chat made no store


def test_every_json_listing_shows_a_non_ascii_name_as_written(store):
    """`get --json` always did; `token list`, `webhook list`, `events`, `policy show` wrote "agent \\u00fc"."""
    from vault_ray.tokens import TokenStore

    TokenStore.for_store(store).add("agent ü")
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("agent ü").add_facts([Fact("user.diet", "Müsli only", value="Müsli")])
        vault.set_authority("agent ü", "user.diet", 0.8)
    runner = CliRunner()
    for args in (["token", "list", "--json"], ["events", "--json", "--hashing"], ["policy", "show"]):
        result = runner.invoke(app, [*args, "--store", str(store)])
        assert result.exit_code == 0, result.output
        assert "agent ü" in result.stdout and "\\u00fc" not in result.stdout, result.stdout


def test_the_commands_printed_to_paste_quote_a_path_with_spaces(tmp_path, capsys):
    import shlex

    from vault_ray.cli.serve import _announce

    missing = tmp_path / "my memory"
    result = CliRunner().invoke(app, ["get", "user.diet", "--store", str(missing)])
    assert result.exit_code == 3
    pasted = result.stderr.split("`")[1]  # `vault-ray chat --store ... --agent NAME`
    assert shlex.split(pasted)[:4] == ["vault-ray", "chat", "--store", str(missing)], pasted
    tokens = tmp_path / "my store" / "tokens.json"
    _announce("http://127.0.0.1:8000", str(tmp_path / "my store"), tokens, None, "vault")
    line = next(x for x in capsys.readouterr().out.splitlines() if "make one with: " in x)
    assert shlex.split(line.split("make one with: ")[1])[-2:] == ["--tokens", str(tokens)], line


def test_the_eval_reports_command_line_quotes_its_out_directory(tmp_path):
    import shlex

    from vault_ray.cli.eval import _write_outputs
    from vault_ray.evals.config import EvalConfig, GeneratorConfig

    out = tmp_path / "eval out ü"
    out.mkdir()
    _write_outputs(one_scenario_run(), "1 Ray node", (out, out), GeneratorConfig(), EvalConfig(),
                   ["lww", "recency", "oracle", "learned"], 0, 1, None, None, None)
    command = (out / "report.md").read_text().split("Command: `")[1].split("`")[0]
    words = shlex.split(command)
    assert words[words.index("--out") + 1] == str(out), command


def test_applying_a_plan_with_nothing_to_merge_names_the_plan_file(store, tmp_path):
    import pyarrow.parquet as pq

    from vault_ray.evals.plan_report import PLAN_SCHEMA

    plan = tmp_path / "plan ü.parquet"
    pq.write_table(PLAN_SCHEMA.empty_table(), plan)  # an empty plan of an older version: no plan id in its metadata
    result = CliRunner().invoke(app, ["normalize", "--apply", str(plan), "--store", str(store)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert f"plan {plan}: nothing to apply, nothing was changed" in result.stdout, result.stdout
    assert "plan :" not in result.stdout, result.stdout


def test_the_advice_fits_the_machine_it_names():
    from vault_ray import InvalidInput
    from vault_ray.evals.text_vectors import check_pool

    check_pool(2, 1, 2, "this machine has")  # fits: nothing said
    check_pool(1, None, 1, "this machine has")
    for actors, each, cpus, advice in ((3, 1, 2, "give --actors 2 or fewer;"),
                                       (3, 2, 2, "give --actors 2 or fewer of 1 CPU each"),
                                       (2, 3, 4, "give --cpus-per-actor 2 or less"),
                                       (5, None, 4, "give --actors 4 or fewer;")):
        with pytest.raises(InvalidInput, match="Ray cluster at h:1 has") as caught:
            check_pool(actors, each, cpus, "the Ray cluster at h:1 has")
        assert advice in str(caught.value), caught.value


@pytest.mark.parametrize(("command", "option", "said"), [
    (["token", "list"], "--tokens", "no token file at"),
    (["token", "revoke", "bob"], "--tokens", "no token file at"),
    (["webhook", "list"], "--webhooks", "no webhook file at"),
    (["webhook", "remove", "wh_1"], "--webhooks", "no webhook file at"),
])
def test_listing_a_mistyped_token_or_webhook_file_is_not_found(tmp_path, command, option, said):
    missing = tmp_path / "my tokns.json"
    result = CliRunner().invoke(app, [*command, option, str(missing)])
    assert result.exit_code == 3, result.output  # not an empty table, as if no token were made
    assert result.stderr.startswith(f"error: {said} {missing}"), result.stderr
    assert not any(tmp_path.iterdir())  # no file (nor lock file) made


def test_token_add_still_makes_a_new_token_file_where_told(tmp_path):
    path = tmp_path / "new dir" / "tokens.json"
    made = CliRunner().invoke(app, ["token", "add", "bob", "--tokens", str(path)])
    assert made.exit_code == 0 and path.exists(), made.output
    listed = CliRunner().invoke(app, ["token", "list", "--tokens", str(path), "--json"])
    assert listed.exit_code == 0 and '"agent": "bob"' in listed.stdout, listed.output


def test_eval_from_store_reads_one_partitions_duckdb_file_as_its_help_says(store, tmp_path):
    """`--from-store` takes "store dir, .duckdb file or Vault.export dir"; a .duckdb file was refused with
    "cannot read .../p0003.duckdb/restoring.json ...; delete the store and import the export again"."""
    from vault_ray.storage.layout import partition_of, read_meta

    log = store / "partitions" / f"p{partition_of('user.diet', read_meta(store).partitions):04d}.duckdb"  # its claim
    out = tmp_path / "what if"
    result = CliRunner().invoke(app, ["eval", "--from-store", str(log), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 claims on 1 entities" in result.stdout and (out / "from_store.md").exists(), result.stdout
    notes = tmp_path / "notes.txt"
    notes.write_text("not a claim log\n")
    refused = CliRunner().invoke(app, ["eval", "--from-store", str(notes), "--out", str(tmp_path / "never")])
    assert refused.exit_code == 4, refused.output
    assert "holds no claim log" in refused.stderr and "delete the store" not in refused.stderr, refused.stderr
    assert notes.read_text() == "not a claim log\n" and not (tmp_path / "never").exists()


@pytest.mark.parametrize("host, said", [
    ("bad host", "--host 'bad host' names no address"),
    ("203.0.113.9", "--host '203.0.113.9' is no address of this machine"),  # TEST-NET-3: no machine's own
])
def test_serve_on_a_host_that_is_no_address_here_is_bad_input_not_a_port_in_use(tmp_path, host, said):
    """`serve --host` of a name that resolves to nothing or an address of another machine said
    "HOST:8000 is in use: another server listens there" (exit code 4)."""
    line = refused(["serve", "--store", str(tmp_path / "new"), "--host", host, "--hashing"])
    assert said in line and "in use" not in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, said", [
    (["token", "add", "x", "--role", "boss"], "role must be one of"),
    (["token", "add", ""], "argument AGENT is empty: give a value"),
    (["webhook", "add", "ftp://host/hook"], "http:// or https://"),
    (["webhook", "add", "http://127.0.0.1:9/hook", "--kinds", "everything"], "unknown event kind"),
    (["resolve", "d1", "--winner", "c1", "--keep-both"], "give --winner or --keep-both, not both"),
    (["resolve", "d1"], "give --winner CLAIM_ID, or --keep-both to keep every value"),
])
def test_bad_input_is_said_before_the_store_is_looked_for(tmp_path, args, said):
    """Bad input is exit code 2 even with a mistyped --store; it was "no vault-ray store at ..." (3)."""
    assert said in refused([*args, "--store", str(tmp_path / "nosuch")])
    assert list(tmp_path.iterdir()) == []
