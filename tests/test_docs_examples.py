"""The docs pages' examples as a newcomer pastes them: every Python block of docs/*.md is valid
Python on its own (no top-level `await` or `async with`), every JSON block without an elision
("...") is valid JSON (the MCP client configs are pasted into files), the event and standup
examples run on a store that holds what they read, docs/evals.md's policy-file example applies a
proposal, and docs/mcp.md's SDK client runs as a script against the store the README's Python
example writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vault_ray import Fact

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))


def blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(), re.S)


def block_with(page: str, needle: str, lang: str = "python") -> str:
    (found,) = [b for b in blocks(ROOT / "docs" / page, lang) if needle in b]
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_python_block_compiles_and_every_whole_json_block_parses(page):
    for block in blocks(page, "python"):
        compile(block, str(page), "exec")  # a top-level `async with` would be a SyntaxError
    for block in blocks(page, "json"):
        if "..." not in block:
            json.loads(block)


def test_the_event_reading_example_runs(vault, capsys):
    vault.agent("a").add_facts([Fact("user.budget.max", "Budget is $100", value="$100")])
    vault.agent("b").add_facts([Fact("user.budget.max", "Budget is $200", value="$200")])  # high stakes: waits
    names = {"vault": vault}
    exec(compile(block_with("inbox.md", "vault.events("), "docs/inbox.md", "exec"), names)  # noqa: S102
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "dispute_opened user.budget.max True" and printed[0].startswith("claim_added user.budget.max")
    assert names["later"].events == ()  # nothing after the page's cursor
    (opened,) = vault.events(since="start", kinds=["dispute_opened"], needs_user=True, entity="user.budget.*").events
    assert opened.entity == "user.budget.max"


def test_the_standup_example_settles_every_dispute_for_the_persons_value(vault):
    vault.agent("a").add_facts([Fact("user.calendar.standup", "Standup is at 9am", value="9am")])
    vault.set_high_stakes([*vault.policy.high_stakes, "user.calendar.*"])
    vault.agent("b").add_facts([Fact("user.calendar.standup", "Standup is at 10am", value="10am")])
    assert vault.disputes()  # one waits for a person
    exec(compile(block_with("policies.md", "user.calendar.standup"), "docs/policies.md", "exec"),  # noqa: S102
         {"vault": vault, "Fact": Fact})
    assert vault.get("user.calendar.standup").values == ("8am",) and vault.disputes() == []


def test_the_mcp_sdk_client_example_runs_as_a_script(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text().split("## The API in twenty lines", 1)[1]
    api = re.search(r"```python\n(.*?)```", readme, re.S).group(1)  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)  # the store docs/mcp.md names: ./memory, written here (the model loaded once a run)
    exec(compile(api, "README.md", "exec"), {})  # noqa: S102 - the README's own code; its `with` closes the store
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "HF_HUB_OFFLINE": "1"}
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 300}
    client = subprocess.run([sys.executable, "-c", block_with("mcp.md", "StdioServerParameters")], **run)
    assert client.returncode == 0, client.stderr[-2000:]
    assert 'memory for "what timezone is the user in?"' in client.stdout
    assert "user.timezone = EST" in client.stdout  # the README example's resolution


def test_the_policy_file_example_applies_the_proposal_as_a_numbered_change(tmp_path, monkeypatch):
    from vault_ray import Policy, Vault, write_policy_file

    monkeypatch.chdir(tmp_path)  # the page's paths: ./memory and eval-out/proposal.json
    with Vault.open("./memory") as vault:  # as the page opens it (the local model, loaded only to embed)
        vault.set_strategy("user.diet", "consensus")
        before = vault.policy.version
    (tmp_path / "eval-out").mkdir()
    write_policy_file("eval-out/proposal.json", Policy(strategies={"user.timezone": "authority"}))
    exec(compile(block_with("evals.md", "read_policy_file"), "docs/evals.md", "exec"), {})  # noqa: S102
    with Vault.open("./memory") as vault:
        assert vault.policy.strategies == {"user.timezone": "authority"}  # the whole policy replaced
        assert vault.policy.version > before  # a change after the store's own, not the file's version 0
