"""QA round 98 (a new user's walkthrough of the README and docs): what the CLI prints.

M1: `erase` run again on an erased entity says who erased it first, never the new caller.
M3: the `events` table shows a claim event's claim id (and the dispute id beside it).
M4: ids a user must type next are never cut in a piped (80-column) table; `--json` on the
    webhook and cluster status commands.
L1: `resolve --winner ""` is refused as empty (as every empty value: test_cli_alike.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


def run(store, *args: str):
    result = CliRunner().invoke(app, [*args, "--store", str(store), "--hashing"])
    return result


def budget(store, *values: str, agent: str = "a") -> list[str]:
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        return [vault.agent(agent).add_facts([Fact("user.budget", f"budget is {v}", value=v)]).decisions[0].claim_id
                for v in values]


def test_erase_again_names_the_first_eraser_and_changes_nothing(store):
    ids = budget(store, "500", "700")
    first = run(store, "erase", "user.budget", "--by", "dana", "--note", "privacy request", "--yes")
    assert first.exit_code == 0, first.output
    assert "2 claim(s) erased by dana: privacy request" in first.output
    again = run(store, "erase", "user.budget", "--by", "eve", "--note", "again", "--yes")
    assert again.exit_code == 0, again.output
    assert "eve" not in again.output and "again" not in again.output.replace("already", "")
    assert all(f"already erased {i}" in again.output for i in ids)
    assert "by dana at" in again.output and "privacy request" in again.output
    assert "nothing new to erase" in again.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        erased = [e for e in vault.events(entity="user.budget") if e.kind == "claim_erased"]
        assert len(erased) == 2 and {e.agent for e in erased} == {"dana"}


def test_erase_of_a_new_claim_after_an_erasure_tells_both_apart(store):
    """A claim written after the first erasure is erased now, by the new caller; the old ones were not."""
    (old,) = budget(store, "500")
    assert run(store, "erase", "user.budget", "--by", "dana", "--yes").exit_code == 0
    (new,) = budget(store, "900", agent="b")
    out = run(store, "erase", "user.budget", "--by", "eve", "--note", "second request", "--yes").output
    assert f"erased {new}" in out and f"already erased {old}" in out and "by dana at" in out
    assert "1 claim(s) erased by eve: second request" in out and "1 claim(s) erased before" in out


def test_erase_of_a_retracted_claim_says_it_is_erased_now(store):
    """A claim retracted (not erased) before is erased by this run: the retractor is not the eraser."""
    (cid,) = budget(store, "500")
    assert run(store, "retract", cid, "--by", "xavier").exit_code == 0
    out = run(store, "erase", "user.budget", "--by", "dana", "--yes").output
    assert f"erased {cid}" in out and "already" not in out and "1 claim(s) erased by dana" in out


def disputed(store) -> tuple[str, str, str]:
    """A user.timezone dispute settled by authority: (incumbent, challenger, dispute id)."""
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("scheduler", "user.timezone", 0.9)
        vault.set_authority("chat", "user.timezone", 0.2)
        pst = vault.agent("scheduler").add_facts([Fact("user.timezone", "I'm in PST", value="PST")]).decisions[0]
        est = vault.agent("chat").add_facts([Fact("user.timezone", "I'm in EST", value="EST")]).decisions[0]
        assert est.dispute_id
        return pst.claim_id, est.claim_id, est.dispute_id


def test_events_table_names_the_claim_of_a_claim_event(store):
    pst, est, dispute = disputed(store)
    assert run(store, "resolve", dispute, "--winner", est).exit_code == 0
    out = run(store, "events").output
    lines = {line.split()[2]: line for line in out.splitlines() if line.strip()}
    assert pst in lines["claim_superseded"] and est in lines["claim_activated"]
    assert dispute in lines["claim_superseded"] and dispute in lines["dispute_resolved"]
    assert pst not in lines["claim_activated"]
    events = [json.loads(line) for line in run(store, "events", "--json").output.splitlines()]
    assert len(out.splitlines()) == len(events) == 6  # one line per event, even piped at 80 columns
    for line in out.splitlines():
        assert line.split()[-1].startswith("v")  # the cursor ends every line


@pytest.mark.parametrize(("since", "said"), [(None, "from now"), ("start", "from the start")])
def test_events_follow_says_it_is_following_on_stderr(store, since, said):
    import os
    import signal
    import subprocess
    import sys

    budget(store, "500")
    args = [sys.executable, "-m", "vault_ray.cli", "events", "--follow", "--store", str(store), "--hashing"]
    proc = subprocess.Popen([*args, *(["--since", since] if since else [])], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            # Ctrl-C as at a terminal, also when the suite runs in the background (whose
                            # children inherit an ignored SIGINT)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = proc.stderr.readline()  # type: ignore[union-attr]
        assert f"following events {said}; Ctrl-C stops" in first
        if since == "start":
            assert "claim_added" in proc.stdout.readline()  # type: ignore[union-attr]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"still following 60 s after Ctrl-C; stderr: {err}") from None
    assert proc.returncode == 130, err  # as the bulk jobs stopped by Ctrl-C
    assert err.splitlines()[-1].startswith("stopped (Ctrl-C)"), err
    assert "following" not in out and "stopped" not in out  # stdout holds the events only


def plain(store, *args: str):
    """A command that takes --store but no embedder flag (webhook, token), piped at 80 columns."""
    return CliRunner().invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "80"})


def test_webhook_ids_are_whole_when_piped_and_list_takes_json(store):
    budget(store, "500")
    url = "http://127.0.0.1:8088/hooks/a-rather-long-path/for-the-receiver"
    for _ in range(2):
        assert plain(store, "webhook", "add", url, "--kinds", "dispute_opened,dispute_resolved,claim_added",
                     "--needs-user-only", "--entity", "user.budget.*").exit_code == 0
    found = json.loads(plain(store, "webhook", "list", "--json").output)
    assert len(found) == 2 and all("secret" not in h for h in found)
    assert found[0]["url"] == url and found[0]["created_at"].endswith("Z")
    table = plain(store, "webhook", "list").output
    for h in found:
        assert h["id"] in table and url in table
    assert "…" not in table
    assert len(table.splitlines()) == 7  # title, 3 rule/header lines, a line per webhook, the bottom rule
    deliveries = plain(store, "webhook", "status").output
    assert all(h["id"] in deliveries for h in found) and "…" not in deliveries
    gone = plain(store, "webhook", "remove", found[0]["id"])
    assert gone.exit_code == 0 and [h["id"] for h in json.loads(plain(store, "webhook", "list", "--json").output)] \
        == [found[1]["id"]]


def test_token_ids_are_whole_when_piped_and_list_takes_json(store):
    budget(store, "500")
    for agent in ("a-scheduling-agent-with-a-long-name", "ops"):
        assert plain(store, "token", "add", agent, "--role", "resolver").exit_code == 0
    found = json.loads(plain(store, "token", "list", "--json").output)
    assert [t["agent"] for t in found] == ["a-scheduling-agent-with-a-long-name", "ops"]
    assert all(set(t) == {"id", "agent", "role", "created_at", "revoked_at"} for t in found)
    table = plain(store, "token", "list").output
    assert all(t["id"] in table for t in found) and "…" not in table
    assert plain(store, "token", "revoke", found[1]["id"]).exit_code == 0
    assert json.loads(plain(store, "token", "list", "--json").output)[1]["revoked_at"].endswith("Z")


def test_a_wide_table_piped_keeps_one_line_per_row(capsys):
    """What the eval summary prints (many narrow 'fold' columns): piped, no header or cell is folded."""
    from rich.table import Table

    from vault_ray.cli.common import print_table

    t = Table(title="300 scenarios")
    headers = ("policy", "final vs oracle", "disputes opened", "asked the user", "wrong winner", "stale reads",
               "refused writes", "p50 ms", "p95 ms")
    for h in headers:
        t.add_column(h, overflow="fold")
    t.add_row("oracle", *["12.3% [10.1, 14.2]"] * 8)
    t.add_row("policy-authority", *["99.9% [99.1, 100.0]"] * 8)
    print_table(t)
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 7 and all(h in out for h in headers)
    assert "policy-authority" in out and out.count("99.9% [99.1, 100.0]") == 8


@pytest.mark.parametrize("winner", ["", "  "])
def test_resolve_refuses_an_empty_winner_as_empty(store, winner):
    _, _, dispute = disputed(store)
    done = run(store, "resolve", dispute, "--winner", winner)
    assert done.exit_code == 2
    assert "--winner is " in done.output and "give a value" in done.output and "starts" not in done.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.dispute(dispute).status == "open"  # nothing changed
    for command, named in ((["explain", winner], "CLAIM_ID"), (["retract", winner, "--by", "ana"], "CLAIM_ID"),
                           (["resolve", winner, "--keep-both"], "DISPUTE_ID")):
        refused = run(store, *command)
        assert refused.exit_code == 2 and f"argument {named} is " in refused.output, command


def test_an_ambiguous_start_of_an_id_names_what_it_starts(store):
    disputed(store)
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.employer", "authority")
        vault.set_authority("scheduler", "user.employer", 0.9)
        vault.agent("scheduler").add_facts([Fact("user.employer", "I work at Acme", value="acme")])
        vault.agent("chat").add_facts([Fact("user.employer", "I work at Globex", value="globex")])
        ids = sorted(d.id for d in vault.disputes())
    assert len(ids) == 2
    done = run(store, "resolve", "dsp-", "--keep-both")
    assert done.exit_code == 2
    assert f"'dsp-' starts the ids of 2 disputes ({ids[0]}, {ids[1]}): give more of it" in " ".join(done.output.split())


@pytest.mark.parametrize(("shards", "partitions", "most"), [("0", None, 16), ("100", None, 16), ("5", 4, 4),
                                                            ("-1", None, 16)])
def test_up_refuses_a_bad_shard_count_as_bad_input_before_starting_ray(tmp_path, shards, partitions, most):
    pytest.importorskip("ray")
    store = tmp_path / "store"
    if partitions:
        Vault.open(store, partitions=partitions, embedder=HashingEmbedder()).close()
    done = CliRunner().invoke(app, ["up", "--store", str(store), "--shards", shards, "--hashing", "--port", "1"])
    assert done.exit_code == 2, done.output  # bad input, not "unreachable" (4)
    assert f"shards must be an integer in [1, {most}] (the partition count), got {shards}" in done.output
    assert "Ray" not in done.output and not (store / "cluster.json").exists()  # nothing started


def test_connect_refuses_a_bad_shard_count_as_invalid_input(tmp_path):
    pytest.importorskip("ray")
    from vault_ray import InvalidInput
    from vault_ray.actors import connect

    for bad in (0, 17, True, "2"):
        with pytest.raises(InvalidInput, match=r"shards must be an integer in \[1, 16\]"):
            connect("127.0.0.1:1", store=tmp_path / "s", shards=bad, embedder=HashingEmbedder())


def test_importing_an_export_again_says_plainly_that_nothing_is_new(tmp_path, store):
    budget(store, "500", "700")
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
        vault.export(tmp_path / "export")
    copy = tmp_path / "copy"
    assert "restored" in run(copy, "import", str(tmp_path / "export")).output
    again = " ".join(run(copy, "import", str(tmp_path / "export")).output.split())
    assert "nothing new: all 3 claim(s) of the export are already in the store (skipped)" in again, again
    assert "none" not in again and "merged" not in again
    with Vault.open(copy, embedder=HashingEmbedder()) as vault:  # some new, some present
        vault.agent("b").add_facts([Fact("user.city", "The user lives in Oslo", value="oslo")])
        vault.export(tmp_path / "export2")
    said = " ".join(run(store, "import", str(tmp_path / "export2")).output.split())
    assert "merged 1 new claim(s), now 1 active (as each was written: 1 active); 3 skipped: already in the store" \
        in said, said


def test_normalize_takes_hashing_like_every_memory_command(store):
    budget(store, "500")
    done = run(store, "normalize", "--apply", str(store / "no-plan.parquet"))
    assert "No such option" not in done.output
    assert "--hashing" in " ".join(CliRunner().invoke(app, ["normalize", "--help"], env={"COLUMNS": "200"}).output.split())


HOLD = """
import sys, time
from vault_ray import HashingEmbedder, Vault
vault = Vault.open(sys.argv[1], embedder=HashingEmbedder())
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("holder", ["ray", "embedded"])
def test_a_held_store_says_how_to_reach_its_holder(store, holder):
    """L5: while `vault-ray up` serves a store, the CLI names its --address; while another process
    holds it, both ways (cluster mode, the HTTP service of `vault-ray serve`) are named."""
    import os
    import subprocess
    import sys

    budget(store, "500")
    name = "ray::ControlActor" if holder == "ray" else "python"  # how a Ray worker (the control actor) is named
    proc = subprocess.Popen(["bash", "-c", 'exec -a "$0" "$@"', name, sys.executable, "-c", HOLD, str(store)],
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    try:
        assert proc.stdout.readline().strip() == "held"  # type: ignore[union-attr]
        if holder == "ray":  # what `vault-ray up` records beside the store
            (store / "cluster.json").write_text(json.dumps({"epoch": 1, "shards": [], "assignment": {},
                                                            "head": {"address": "127.0.0.1:6379", "pid": 1}}))
        said = " ".join(run(store, "get", "user.budget").output.split())
    finally:
        proc.kill()
        proc.wait()
    assert "held by another process" in said and "cluster mode" in said
    if holder == "ray":
        assert "--address 127.0.0.1:6379" in said and "Vault.connect('127.0.0.1:6379')" in said
        assert "--url" not in said
    else:
        assert "vault-ray up --store PATH" in said and "VaultClient(URL, TOKEN)" in said


@pytest.mark.parametrize("entity", ["user.café", "user.名前", "User.Diet", "user diet"])
def test_a_refused_entity_key_says_which_characters_a_key_takes(vault, entity):
    from vault_ray import InvalidEntity

    with pytest.raises(InvalidEntity, match="lowercase ASCII letters, digits and '_'") as err:
        vault.agent("a").add_facts([Fact(entity, "something about the user", value="x")])
    assert err.value.entity == entity
    assert list(vault.claims()) == []  # nothing written


def test_openai_embedder_without_a_key_is_an_embedder_error(monkeypatch):
    pytest.importorskip("openai")
    from vault_ray import EmbedderError, OpenAIEmbedder, ReasonerError, VaultError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with pytest.raises(EmbedderError, match="cannot make the OpenAI client") as err:
        OpenAIEmbedder("text-embedding-3-small", dim=1536)
    assert isinstance(err.value, ReasonerError) and isinstance(err.value, VaultError)  # what callers caught before


def test_loading_the_local_model_prints_no_progress_bar_and_leaves_the_setting_alone(capfd):
    """L7: every command that loads the local model printed a "Loading weights" bar on stderr.
    A new embedder loads the model for real (what each command's process does), in this process:
    what reaches file descriptor 2 is what a command prints."""
    from transformers.utils import logging as hf

    from vault_ray import LocalEmbedder
    from vault_ray.embedders import _no_progress_bars

    was = hf.is_progress_bar_enabled()
    hf.enable_progress_bar()  # transformers' default, as in a fresh process
    try:
        capfd.readouterr()
        shape = LocalEmbedder().embed(["I live in Oslo"]).shape
        on_after_load = hf.is_progress_bar_enabled()
        hf.disable_progress_bar()  # a user's own choice
        with _no_progress_bars():
            pass
        off_after = hf.is_progress_bar_enabled()
        err = capfd.readouterr().err
    finally:
        (hf.enable_progress_bar if was else hf.disable_progress_bar)()
    assert (shape, on_after_load, off_after) == ((1, 384), True, False)  # as it was: on, then the user's off
    assert "Loading weights" not in err and "it/s" not in err, err


def test_explain_piped_keeps_each_entry_on_its_line(store):
    pst, est, dispute = disputed(store)
    assert run(store, "resolve", dispute, "--winner", est, "--note", "the user moved to New York last spring").exit_code == 0
    for claim in (pst, est):
        out = run(store, "explain", claim).output
        with Vault.open(store, embedder=HashingEmbedder()) as vault:
            text = vault.explain(claim).text()
        assert out.rstrip("\n") == text.rstrip("\n")
        assert any(len(line) > 80 for line in text.splitlines())  # a line a terminal of 80 would have wrapped
