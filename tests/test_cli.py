"""The CLI: every command has help text; the demo and the store commands work."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import HashingEmbedder, Vault
from vault_ray.cli import app

runner = CliRunner()


def commands():
    import typer.main

    group = typer.main.get_command(app)
    return group, sorted(group.commands)


def test_the_command_list_gives_each_command_one_flowing_summary():
    group, names = commands()
    for name in names:
        summary = group.commands[name].get_short_help_str(limit=1000)
        assert summary and "\n" not in summary and "  " not in summary, (name, summary)
    # a long help is cut after its first sentence in the list; the command's own page keeps it all
    def shown(*args: str) -> str:  # the text as read, without rich's box and line breaks
        return " ".join(runner.invoke(app, list(args)).output.replace("│", " ").split())

    assert "PNG charts to OUT. export" in shown("--help") and "bootstrap interval" not in shown("--help")
    assert "bootstrap interval" in shown("eval", "--help")


def test_every_command_has_help_text():
    group, names = commands()
    assert {"demo", "chat", "get", "history", "search", "disputes", "resolve", "authority"} <= set(names)
    for name in names:
        cmd = group.commands[name]
        assert (cmd.help or "").strip(), f"{name} has no help text"
        for param in cmd.params:
            if param.param_type_name == "option":
                assert (param.help or "").strip(), f"{name} {param.name} has no help text"


def test_demo_runs_offline_and_shows_both_scenarios():
    result = runner.invoke(app, ["demo", "--hashing"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Scenario 1" in out and "Scenario 2" in out
    assert "disputed" in out and "aligned from user.wrong_label" in out
    assert "CONTESTED" in out and "superseded" in out


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("agent-a", "user.timezone", 0.9)
        vault.agent("agent-a").add("I'm in PST")
        vault.agent("agent-b").add("I'm in EST")
    return str(path)


def invoke(*args: str):
    return runner.invoke(app, [*args], env={"COLUMNS": "200"})


def test_store_commands(store):
    got = invoke("get", "user.timezone", "--store", store, "--hashing")
    assert got.exit_code == 0 and "CONTESTED" in got.output and "PST" in got.output and "EST" in got.output
    hist = invoke("history", "user.timezone", "--store", store, "--hashing")
    assert hist.exit_code == 0 and "disputed" in hist.output and "agent-b" in hist.output
    found = invoke("search", "what timezone is the user in?", "--store", store, "--hashing")
    assert found.exit_code == 0 and "The user is in PST" in found.output
    disputes = invoke("disputes", "--store", store, "--hashing")
    assert disputes.exit_code == 0 and "does not outweigh" in disputes.output
    auth = invoke("authority", "agent-b", "user.*", "0.4", "--store", store, "--hashing")
    assert auth.exit_code == 0 and "agent-b" in auth.output and "0.40" in auth.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.weight("agent-b", "user.diet") == 0.4


@pytest.mark.parametrize("weight", ["-0.1", "-1"])
def test_a_negative_authority_weight_gets_the_librarys_error(store, weight):
    """`authority chat user.timezone -0.1` said "No such option: -0" (click read the weight as an option)."""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        before = vault.policy
    got = invoke("authority", "chat", "user.timezone", weight, "--store", store, "--hashing")
    assert got.exit_code == 2 and "authority weight must be a number in [0, 1], got -" in " ".join(got.output.split()), got.output
    typo = invoke("authority", "--stor", store)  # a mistyped option is still no agent
    assert typo.exit_code == 2 and "no such option: --stor" in typo.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy == before


def test_the_ids_the_tables_show_are_enough_to_explain_and_resolve(store):
    """The tables show a claim id's first 12 characters: `explain` and `resolve --winner` take them."""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        (d,) = vault.disputes()
        pst = next(c for c in vault.history("user.timezone") if c.value == "PST")
    shown = invoke("disputes", "--store", store, "--hashing").output
    assert pst.id[:12] in shown and d.id in shown
    told = invoke("explain", pst.id[:12], "--store", store, "--hashing")
    assert told.exit_code == 0 and "agent-a" in told.output
    done = invoke("resolve", d.id, "--winner", pst.id[:12], "--note", "she said so", "--store", store, "--hashing")
    assert done.exit_code == 0 and f"winner {pst.id}" in done.output
    assert "CONTESTED" not in invoke("get", "user.timezone", "--store", store, "--hashing").output


def test_errors_become_one_line_and_exit_codes(store):
    bad = invoke("get", "Not An Entity", "--store", store, "--hashing")
    assert bad.exit_code == 2 and bad.output.startswith("error:") and "Traceback" not in bad.output
    missing = invoke("resolve", "dsp-0-nothing", "--winner", "x", "--store", store, "--hashing")
    assert missing.exit_code == 3
    nowhere = invoke("get", "user.timezone")
    assert nowhere.exit_code == 2 and "--store" in nowhere.output


def test_a_read_of_a_path_with_no_store_says_so_and_creates_nothing(tmp_path):
    typo = tmp_path / "sotre"
    for args in (["get", "user.timezone"], ["search", "anything"], ["disputes"], ["events"], ["policy", "show"]):
        result = invoke(*args, "--store", str(typo), "--hashing")
        assert result.exit_code == 3 and "no vault-ray store at" in result.output, (args, result.output)
    assert not typo.exists()
    # commands that write create the store
    made = invoke("authority", "agent-a", "user.*", "0.7", "--store", str(typo), "--hashing")
    assert made.exit_code == 0 and (typo / "vault.json").exists()
    assert invoke("get", "user.timezone", "--store", str(typo), "--hashing").exit_code == 0


def test_chat_reads_statements_and_commands(store):
    result = runner.invoke(
        app, ["chat", "--agent", "agent-c", "--store", store, "--hashing"],
        input="I'm vegetarian\n/get user.diet\n/disputes\n/quit\n", env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "ADD" in result.output and "vegetarian" in result.output and "user.timezone" in result.output


def test_as_of_flag(store):
    early = invoke("get", "user.timezone", "--store", store, "--hashing", "--as-of", "2000-01-01T00:00:00Z")
    assert early.exit_code == 0 and "PST" not in early.output
    now = invoke("search", "timezone", "--store", store, "--hashing", "--as-of", "2999-01-01T00:00:00+00:00")
    assert now.exit_code == 0 and "PST" in now.output
    bad = invoke("get", "user.timezone", "--store", store, "--hashing", "--as-of", "yesterday")
    assert bad.exit_code == 2 and "ISO 8601" in bad.output


def test_chat_shows_what_it_could_not_extract(store):
    result = runner.invoke(
        app, ["chat", "--agent", "agent-d", "--store", store, "--hashing"],
        input="I'm learning to knit\nThanks!\n/quit\n", env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "not extracted" in result.output and "learning to knit" in result.output
    assert "no statement about the user recognized" in result.output  # "Thanks!" is not a statement


def test_serve_refuses_a_port_another_server_listens_on_even_with_so_reuseport():
    """Ray Serve's proxies bind with SO_REUSEPORT: a second `serve` on a first one's port
    used to start as well and take half of its connections. It is refused before Ray starts."""
    import socket

    from vault_ray import ClusterError

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # as Serve's proxy does
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        result = runner.invoke(app, ["serve", "--store", "/nonexistent/never-created", "--port", str(port), "--hashing"])
        assert result.exit_code != 0 and "in use" in result.output and str(port) in result.output
    finally:
        listener.close()
    from vault_ray.cli.serve import _check_port

    with pytest.raises(ClusterError), socket.create_server(("127.0.0.1", 0)) as plain:
        _check_port("127.0.0.1", plain.getsockname()[1])
    _check_port("127.0.0.1", port)  # free again once the listener closed


def test_a_jobs_ctrl_c_is_one_line_and_exit_130_whatever_it_cut():
    """DuckDB answers a Ctrl-C with its own errors ('Query interrupted', then an aborted
    transaction), not KeyboardInterrupt: the job still ends with one line and 130."""
    import os
    import signal
    import time

    import typer

    from vault_ray.cli.common import resumable

    def staging() -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, mid-query
            time.sleep(5)  # (the handler runs at once)
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(typer.Exit) as stopped:
        resumable(staging)()
    assert stopped.value.exit_code == 130 and signal.getsignal(signal.SIGINT) is before
    with pytest.raises(ValueError):  # without a Ctrl-C an error is the job's own, unchanged
        resumable(lambda: (_ for _ in ()).throw(ValueError("bad")))()


@pytest.mark.parametrize(("signum", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_store_error_a_signal_caused_is_the_interruption_not_an_error_line(signum, code, capsys):
    """SIGTERM ends a job as Ctrl-C does (143); an error of ours the signal caused (a query cut
    short, reported as a StorageFailure) is the interruption, not "error: ...", exit 4."""
    import os
    import signal
    import time

    import typer

    from vault_ray.cli.common import handle_errors, resumable
    from vault_ray.errors import StorageFailure

    def staging() -> None:
        try:
            os.kill(os.getpid(), getattr(signal, signum))
            time.sleep(5)
        except KeyboardInterrupt:
            raise StorageFailure("cannot write partition 3: Query interrupted") from None

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(typer.Exit) as stopped:
        handle_errors(resumable(staging))()
    assert stopped.value.exit_code == code
    said = capsys.readouterr().err
    assert "interrupted: the store is whole" in said and "error" not in said
    assert {s: signal.getsignal(s) for s in before} == before


def test_every_command_refuses_a_store_that_is_not_there_at_once_and_alike(tmp_path):
    """A typo in --store is exit code 3 and one line for reads, tokens, webhooks and the
    bulk jobs alike, before any Ray starts, and creates nothing; a file is exit code 4."""
    missing, a_file = tmp_path / "nostore", tmp_path / "afile"
    a_file.write_text("not a store")
    for args in (["get", "user.timezone"], ["token", "add", "bob"], ["webhook", "list"], ["export", "--out", str(tmp_path / "o")],
                 ["reindex", "--embedder", "hashing"], ["normalize"]):
        result = runner.invoke(app, [*args, "--store", str(missing)])
        said = " ".join(result.output.split())  # as read, without rich's line breaks
        assert result.exit_code == 3 and "no vault-ray store" in said, (args, said)
        result = runner.invoke(app, [*args, "--store", str(a_file)])
        said = " ".join(result.output.split())
        assert result.exit_code == 4 and "is a file" in said, (args, said)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_auto_fails_at_once_when_the_last_head_is_gone(monkeypatch):
    """`vault-ray down` (or a crash) leaves Ray's record of the last head: "auto" then
    reconnected for minutes; it fails with a one-line cluster error (exit 4)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")  # where Ray's "auto" looks first
    result = invoke("status")
    assert result.exit_code == 4 and "nothing answers" in result.output and "Traceback" not in result.output


def test_auto_with_ray_address_is_joined_as_that_address(monkeypatch):
    """RAY_ADDRESS with "auto" resolves to the address itself, so a loopback head gets this
    machine's token as an explicit --address does (QA3 F5; the cluster run is in
    tests/integration/test_cluster_cli.py)."""
    from vault_ray.backends.connect import from_environment

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert from_environment("auto") == "auto" and from_environment(None) is None
    monkeypatch.setenv("RAY_ADDRESS", " 127.0.0.1:26502 ")
    assert from_environment("auto") == "127.0.0.1:26502"
    assert from_environment("10.0.0.5:6379") == "10.0.0.5:6379" and from_environment("local") == "local"
    assert from_environment(None) is None  # None starts a Ray here, whatever RAY_ADDRESS says


@pytest.mark.parametrize("address, env, said", [
    ("127.0.0.1:6379", None, " on the Ray cluster at 127.0.0.1:6379 (Ray's name for it: 10.0.0.5:6379)"),
    ("10.0.0.5:6379", None, " on the Ray cluster at 10.0.0.5:6379"),
    ("auto", None, " on the Ray cluster at 10.0.0.5:6379 (the one address 'auto' found)"),
    ("auto", "127.0.0.1:6379", " on the Ray cluster at 127.0.0.1:6379 (Ray's name for it: 10.0.0.5:6379)"),
    ("local", None, " on the Ray started in this process (10.0.0.5:6379)"),
])
def test_no_store_served_names_the_cluster_as_the_user_gave_it(monkeypatch, address, env, said):
    """"no vault-ray cluster serves namespace ..." names the address typed (or RAY_ADDRESS), which the
    user can act on, and Ray's own name for the cluster (its head on the network) when it differs."""
    from vault_ray.backends.connect import cluster_named

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    if env:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert cluster_named(address, "10.0.0.5:6379") == said


def test_status_shows_the_policy_version_users_patch_against(monkeypatch):
    """The policy version is the policy's own `version` (what GET /v1/policy answers and
    PATCH expects), not the shards' control version, which a registry change bumps too."""
    import re

    import vault_ray.actors

    shard = {"name": "shard-0", "pid": 42, "owned": [0, 1], "pending": [], "active": 3,
             "control_version": 9, "policy_version": 4}
    monkeypatch.setattr(vault_ray.actors, "status", lambda address, namespace: {"store": "/s", "epoch": 1,
                                                                                 "shards": [shard]})
    result = invoke("status")
    assert result.exit_code == 0, result.output
    header, row = ([c.strip() for c in re.split("[│┃]", line)[1:-1]] for line in result.output.splitlines()
                   if "shard" in line and ("│" in line or "┃" in line))
    shown = dict(zip(header, row, strict=True))
    assert (shown["policy version"], shown["control version"]) == ("4", "9")


def test_up_and_serve_say_what_ray_exposes():
    """`--host` covers the HTTP port only; Ray's ports listen on every interface (Ray
    cannot bind them to loopback), and the Ray of `serve --store` is joined with the address it prints."""
    up = " ".join(invoke("up", "--help").output.split())
    assert "every interface" in up and "firewall" in up and "Network exposure" in up
    served = " ".join(invoke("serve", "--help").output.split())
    assert "every interface" in served and "--address ADDR --namespace NS" in served and "Vault.connect" in served



@pytest.mark.parametrize("columns", ["80", "60"])
def test_tables_on_a_narrow_terminal_print_one_readable_block_per_row(store, columns):
    """At 80 columns the disputes table (eight columns) folded every cell into 2-3 letter slivers,
    and history split "disputed" and the times across lines."""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        (d,) = vault.disputes()
        ch = vault.claim(d.challenger)
    outputs = {cmd: runner.invoke(app, [cmd, *args, "--store", store, "--hashing"], env={"COLUMNS": columns})
               for cmd, args in (("disputes", []), ("history", ["user.timezone"]), ("get", ["user.timezone"]))}
    for got in outputs.values():
        assert got.exit_code == 0 and all(len(line.rstrip()) <= int(columns) for line in got.output.splitlines())
    lines = {cmd: [line.split() for line in got.output.splitlines()] for cmd, got in outputs.items()}
    assert ["id", d.id] in lines["disputes"]  # the whole id on its own line, to copy
    assert ["challenger", ch.value, f"({ch.agent})", ch.id[:12]] in lines["disputes"]
    assert any(words[:1] == ["reason"] and "does not outweigh" in " ".join(words) for words in lines["disputes"])
    assert ["status", "disputed"] in lines["history"] and ["id", ch.id[:12]] in lines["history"]
    assert ["observed_at", *ch.observed_at.strftime("%Y-%m-%d %H:%M:%S").split()] in lines["history"]
    assert ["dispute", d.id] in lines["get"] and ["value", ch.value] in lines["get"]


def test_a_table_that_fits_stays_a_table(store):
    got = runner.invoke(app, ["get", "user.timezone", "--store", store, "--hashing"], env={"COLUMNS": "200"})
    assert got.exit_code == 0 and "┃ value" in got.output


def test_chat_folds_a_repeated_statement_and_sends_usage_and_errors_to_stderr(tmp_path):
    """One message of "I love jazz. " x 300 printed 300 rows (one ADD, 299 NOOPs), each with the
    whole 3,900-character message; `/search` alone searched for ''; errors went to stdout."""
    lines = ["I love jazz. " * 300, "/search", "/get", "/get Not An Entity", "/quit"]
    result = runner.invoke(app, ["chat", "--agent", "me", "--store", str(tmp_path / "c"), "--hashing"],
                           input="\n".join(lines) + "\n", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert result.stdout.count("I love jazz.") < 20 and "NOOP ×299" in result.stdout
    assert "usage: /search QUERY" in result.stderr and "usage: /get ENTITY" in result.stderr
    assert "error: invalid entity 'Not An Entity'" in " ".join(result.stderr.split())
    assert "search(''" not in result.stdout and "error" not in result.stdout
    with Vault.open(tmp_path / "c", embedder=HashingEmbedder()) as vault:
        assert [c.value for c in vault.history("user.likes")] == ["likes:jazz"]


def test_an_entity_with_no_current_value_says_so(store):
    """`get` of an entity whose claims were all retracted printed an empty table and no sentence."""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.forget("user.timezone", decided_by="user")
    got = invoke("get", "user.timezone", "--store", store, "--hashing")
    assert got.exit_code == 0 and "no current value" in got.output and "retracted" in got.output
    assert "no claims" in invoke("history", "user.nowhere", "--store", store, "--hashing").output


def test_hashing_on_a_store_of_the_local_model_says_to_leave_it_out(tmp_path):
    """qa9 F2: the hint named the very flag given; it now says what to do instead."""
    from vault_ray import LocalEmbedder

    Vault.open(tmp_path / "s", embedder=LocalEmbedder()).close()  # the model is loaded only to embed
    result = CliRunner().invoke(app, ["get", "user.diet", "--store", str(tmp_path / "s"), "--hashing"],
                                env={"COLUMNS": "300"})
    said = " ".join(result.output.split())
    assert result.exit_code == 4 and "'all-MiniLM-L6-v2' embedder (384 dimensions)" in said, said
    assert "leave --hashing out" in said and "on the CLI, `--hashing`" not in said
