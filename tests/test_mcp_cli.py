"""`vault-ray mcp --store PATH --agent NAME` over stdio, started by the SDK's own client
as a subprocess on an embedded store: writes carry the agent's name, bad arguments
come back as tool errors, and the store (opened again once the process is gone) holds
exactly the good writes. Bad command lines fail before serving, on stderr."""

from __future__ import annotations

import asyncio
import os
import subprocess

from mcp import Client
from mcp_clients import VAULT_RAY, call, refused, stdio

from vault_ray import HashingEmbedder, Vault


def test_an_embedded_store_over_stdio(tmp_path):
    path = str(tmp_path / "store")

    async def scenario():
        async with Client(stdio("--store", path, "--agent", "agent-a", "--hashing", "--create")) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            wrote = await call(client, "remember", text="I'm vegan and I live in Berlin", session="chat-7")
            errors = [await refused(client, "remember", text=""),
                      await refused(client, "remember_fact", entity="User Diet!", value="x", text="The user is x"),
                      await refused(client, "resolve_dispute", dispute_id="nope", winner="x")]
            recall = await call(client, "recall", query="what does the user eat?")
            return tools, wrote, errors, recall

    tools, wrote, errors, recall = asyncio.run(scenario())
    assert {"remember", "recall", "list_disputes", "resolve_dispute"} <= tools
    assert wrote.startswith("Wrote 2 facts as agent-a") and "user.diet = vegan" in wrote
    assert "InvalidFact" in errors[0] and "InvalidEntity" in errors[1]
    assert "Forbidden: 'agent-a' has the 'agent' role" in errors[2]  # --role agent (the default)
    assert "user.diet = vegan" in recall
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # the process is gone: the store is free
        claims = vault.claims()
        assert sorted(c.entity for c in claims) == ["user.diet", "user.location"]
        assert {(c.agent, c.session) for c in claims} == {("agent-a", "chat-7")}


def test_bad_command_lines_fail_on_stderr_before_serving(tmp_path):
    for args, message in [(["--store", str(tmp_path)], "give --agent NAME"),
                          (["--url", "http://127.0.0.1:9"], "--url needs --token"),
                          (["--url", "http://127.0.0.1:9", "--token", "t", "--agent", "a"], "--url takes --token only"),
                          (["--store", str(tmp_path), "--agent", "a", "--role", "boss"], "role must be one of"),
                          (["--url", "not-a-url", "--token", "t"], "url must be an http:// or https:// address")]:
        done = subprocess.run([VAULT_RAY, "mcp", *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                              env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"})
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == "" and message in done.stderr, (args, done.stderr)


ENV = {"PATH": "/usr/bin:/bin", "COLUMNS": "200", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
"""The command's environment: the code under test (PYTHONPATH, when set), nothing else."""


def test_a_path_that_holds_no_store_is_refused_unless_asked_to_create_one(tmp_path):
    """A typo in an MCP client's config must not give the agent an empty memory without a word."""
    typo = tmp_path / "memroy"
    env = ENV
    done = subprocess.run([VAULT_RAY, "mcp", "--store", str(typo), "--agent", "a", "--hashing"], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, env=env)
    assert done.returncode == 3 and done.stdout == "", done.stderr
    said = " ".join(done.stderr.split())
    assert "no vault-ray store at" in said and "--create" in said and not typo.exists()
    made = subprocess.run([VAULT_RAY, "mcp", "--store", str(typo), "--agent", "a", "--hashing", "--create"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=env)
    assert made.returncode == 0 and (typo / "vault.json").exists(), made.stderr  # stdin closed: the server ends


def test_a_reserved_agent_name_is_refused_before_serving(tmp_path):
    done = subprocess.run([VAULT_RAY, "mcp", "--store", str(tmp_path / "s"), "--agent", "rule:stale", "--create"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env=ENV)
    assert done.returncode == 2 and "reserved for the store's built-in rules" in " ".join(done.stderr.split())
    assert not (tmp_path / "s").exists()
