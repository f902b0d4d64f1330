"""Two terminals, one store: `vault-ray up` starts a Ray head and the actors, two
`vault-ray chat` processes (agent-a, then agent-b) reproduce the seed's authority
dispute, `rebalance` works on it, `vault-ray mcp --address` and `vault-ray serve
--address` attach to the running cluster (an MCP agent and an HTTP client see the
dispute; Ctrl-C stops the service and leaves the cluster up), `vault-ray down` stops
the actors and the head and removes the head's Ray session directory (no other one), and
embedded mode can open the store afterwards."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp_clients import call, stdio

from vault_ray import HashingEmbedder, Vault
from vault_ray.cli.cluster import _is_ray_start
from vault_ray.client import VaultClient

VAULT_RAY = str(Path(sys.executable).with_name("vault-ray"))
POLICY = {"strategies": {"user.timezone": "authority"},
          "authority": {"agent-a": {"user.timezone": 0.9}, "agent-b": {"user.timezone": 0.2}}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(*args: str, stdin: str = "", timeout: float = 240, ray_address: str | None = None,
        **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", **extra}  # rich tables unwrapped
    env.pop("RAY_ADDRESS", None)
    if ray_address is not None:
        env["RAY_ADDRESS"] = ray_address
    return subprocess.run([VAULT_RAY, *args], input=stdin, capture_output=True, text=True, timeout=timeout, env=env)


def head_uses_token() -> bool:
    """Whether `ray start --head` (the head `up` starts, in this environment) enables token
    authentication: RAY_AUTH_MODE=token, or unset with a token on this machine (Ray's rule)."""
    from ray._raylet import AuthenticationTokenLoader

    mode = os.environ.get("RAY_AUTH_MODE")
    return mode.lower() == "token" if mode is not None else AuthenticationTokenLoader.instance().has_token(
        ignore_auth_mode=True)


def test_two_cli_clients_against_one_up_store(tmp_path):
    store, policy = tmp_path / "store", tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    temp_dir = tempfile.mkdtemp(prefix="vrh", dir="/tmp")  # short: Ray's socket paths have a length limit
    other = Path(temp_dir, "session_2026-01-01_00-00-00_000000_1")  # another run's, as on a shared host
    (other / "logs").mkdir(parents=True)
    address, cluster = f"127.0.0.1:{free_port()}", ["--namespace", "cli"]
    up = run("up", "--store", str(store), "--shards", "2", "--port", address.split(":")[1], "--num-cpus", "1",
             "--temp-dir", temp_dir, "--hashing", "--policy", str(policy), *cluster)
    assert up.returncode == 0, up.stdout + up.stderr
    assert "vault-ray is up" in up.stdout
    waits = " ".join(up.stderr.split())  # what it waited for, on stderr (stdout: the lines to join with)
    assert f"starting a Ray head on {address} (up to 120 s" in waits and "creating the store's actors" in waits, waits
    assert "starting a Ray head" not in up.stdout
    assert f"vault-ray chat --agent NAME --address {address} --namespace cli --hashing" in up.stdout
    head_pid = json.loads((store / "cluster.json").read_text())["head"]["pid"]
    try:
        # the head's log: in its session directory, beside Ray's own logs of it (`down` removes it with them)
        head_log = Path(" ".join(up.stdout.split()).split("the Ray head's log: ")[1].split()[0])
        assert head_log.parent.parent.parent == Path(temp_dir) and head_log.name == "vault-ray-head.log", head_log
        assert head_log.parent.parent.name.startswith("session_") and "Ray runtime started" in head_log.read_text()
        assert not list(Path(temp_dir).glob("vault-ray-head-*.log"))
        join = ["--address", address, *cluster, "--hashing"]
        twice = run("up", "--store", str(store), "--port", str(free_port()), "--temp-dir", temp_dir, "--hashing",
                    *cluster, timeout=60)  # `up` again: refused before a second head starts, saying where it runs
        said = " ".join(twice.stderr.split())
        assert twice.returncode == 4 and f"--address {address} --namespace cli" in said, said
        assert "starting a Ray head" not in said and len(sessions(temp_dir)) == 3, said  # no head, no session left
        a = run("chat", "--agent", "agent-a", *join, stdin="I'm in PST\n/quit\n")
        assert a.returncode == 0, a.stdout + a.stderr
        assert "user.timezone" in a.stdout and "active" in a.stdout
        b = run("chat", "--agent", "agent-b", *join, stdin="I'm in EST\n/disputes\n/get user.timezone\n")
        assert b.returncode == 0, b.stdout + b.stderr
        assert "disputed" in b.stdout and "does not outweigh agent-a" in b.stdout
        assert "CONTESTED" in b.stdout and "PST" in b.stdout and "EST" in b.stdout
        # RAY_ADDRESS with --address auto joins as the address given (this machine's token sent: QA3 F5)
        auto = run("get", "user.timezone", "--address", "auto", *cluster, "--hashing", ray_address=address)
        assert auto.returncode == 0 and "PST" in auto.stdout and "EST" in auto.stdout, auto.stdout + auto.stderr
        # a RAY_AUTH_MODE that contradicts the head: one line before joining (not OwnerDiedError, not a hang)
        contrary = "disabled" if head_uses_token() else "token"
        refused = run("get", "user.timezone", "--address", address, *cluster, "--hashing", RAY_AUTH_MODE=contrary)
        said = " ".join(refused.stderr.split())
        assert refused.returncode == 4 and said.startswith(f"error: the Ray cluster at {address} "), said
        assert f"RAY_AUTH_MODE={contrary} here" in said and "Traceback" not in said, said
        locked = run("get", "user.timezone", "--store", str(store), "--hashing", timeout=60)  # says how to reach it
        said = " ".join(locked.stderr.split())
        assert locked.returncode == 4 and f"--address {address} --namespace cli" in said, said
        moved = run("rebalance", "--shards", "3", "--address", address, *cluster)
        assert moved.returncode == 0, moved.stdout + moved.stderr
        assert "epoch 2" in moved.stdout and "vault-shard-2" in moved.stdout
        _mcp_attaches(join)
        _serve_attaches(store, join)
        assert len(sessions(temp_dir)) == 3  # `serve --address` removed nothing: the head's session (and session_latest)
    finally:
        down = run("down", "--address", address, *cluster)
        left = sessions(temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert down.returncode == 0, down.stdout + down.stderr
    assert "stopped the Ray head" in down.stdout
    assert left == [other.name], left  # the head's session (and session_latest) gone, the other run's kept
    assert f"removed its session directory {temp_dir}/session_2" in " ".join(down.stdout.split())
    assert "stopped Ray Serve" not in down.stdout  # `serve --address` stopped Serve itself: it held no other app
    assert not _is_ray_start(head_pid)
    assert not Path(tempfile.gettempdir(), f"vault-ray-head-{address.split(':')[1]}.log").exists()  # none left in /tmp
    # the store is free again, and holds what the two processes did
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        (dispute,) = vault.disputes()
        assert dispute.entity == "user.timezone"
        assert sorted(c.claim.value for c in vault.get("user.timezone").candidates) == ["EST", "PST"]
    again = run("down", "--address", address, *cluster, timeout=60)
    assert again.returncode == 4 and "nothing answers" in again.stderr and not again.stdout  # one line on stderr, at once


def test_up_interrupted_while_its_head_starts_stops_the_head(tmp_path):
    """SIGTERM (or Ctrl-C) while `up` waits for its head: the head, in a session of its own, is stopped
    too (before, it kept running, recorded nowhere, so `down` could not stop it)."""
    port, temp_dir = free_port(), tempfile.mkdtemp(prefix="vrh", dir="/tmp")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    proc = subprocess.Popen([VAULT_RAY, "up", "--store", str(tmp_path / "store"), "--hashing", "--port", str(port),
                             "--num-cpus", "1", "--temp-dir", temp_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert "starting a Ray head on" in proc.stderr.readline()
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    said = " ".join(err.split())
    assert proc.returncode == 143 and "interrupted: the Ray head this `up` started, if any, is stopped" in said, said
    assert "Traceback" not in said, said
    shutil.rmtree(temp_dir, ignore_errors=True)
    assert [p for p in Path("/proc").iterdir() if p.name.isdigit() and _is_ray_start(int(p.name))
            and f"--port={port}".encode() in _cmdline(p)] == []  # no `ray start` of that port left running
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:  # gone meanwhile
        return b""


def sessions(temp_dir: str) -> list[str]:
    return sorted(p.name for p in Path(temp_dir).iterdir() if p.name.startswith("session"))


def _mcp_attaches(join: list[str]) -> None:
    """An MCP agent process on the running cluster sees the dispute and writes as itself."""
    async def scenario() -> tuple[str, str]:
        async with Client(stdio("--agent", "agent-c", *join)) as agent:
            return (await call(agent, "recall", query="what timezone is the user in?"),
                    await call(agent, "remember", text="I'm vegetarian"))

    recalled, wrote = asyncio.run(scenario())
    assert "CONTESTED: 2 agents disagree on user.timezone" in recalled
    assert "PST (agent-a" in recalled and "EST (agent-b" in recalled
    assert wrote.startswith("Wrote 1 fact as agent-c") and "user.diet" in wrote


def _serve_attaches(store: Path, join: list[str]) -> None:
    """`serve --address` serves the cluster's store over HTTP until Ctrl-C, then leaves
    the cluster's actors running, and the port free: a restart on it serves again."""
    token = run("token", "add", "dashboard", "--store", str(store))
    assert token.returncode == 0, token.stderr
    port = free_port()
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("RAY_ADDRESS", None)
    proc, url = _serve(join, port, env)
    try:
        with VaultClient(url, token.stdout.strip()) as client:
            view = client.get("user.timezone")
            assert view.contested and sorted(c.claim.value for c in view.candidates) == ["EST", "PST"]
            assert client.get("user.diet").values == ("vegetarian",)  # the MCP agent's write
            # a second `serve --address` is refused: one app per cluster, and stopping it removed the first's
            second = subprocess.run([VAULT_RAY, "serve", *join, "--port", str(free_port()), "--replica-cpus", "0"],
                                    capture_output=True, text=True, env=env, timeout=180)
            assert second.returncode != 0 and "already" in second.stdout + second.stderr, second.stdout + second.stderr
            assert client.get("user.diet").values == ("vegetarian",)  # the first one still serves
    finally:
        _stop(proc)
    proc, again = _serve(join, port, env)  # Serve held no other app: stopping freed the port
    try:
        with VaultClient(again, token.stdout.strip()) as client:
            assert again == url and client.get("user.diet").values == ("vegetarian",)
    finally:
        _stop(proc)
    still = run("chat", "--agent", "agent-a", *join, stdin="/get user.timezone\n")  # the cluster stays up
    assert still.returncode == 0 and "CONTESTED" in still.stdout, still.stdout + still.stderr


def _serve(join: list[str], port: int, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([VAULT_RAY, "serve", *join, "--port", str(port), "--replica-cpus", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        lines.append(proc.stdout.readline())
        if "Ctrl-C stops it" in lines[-1]:
            break
    out = "".join(lines)
    if "vault-ray serves" not in out:
        _stop(proc)
        raise AssertionError(out)
    return proc, next(w for line in lines if "vault-ray serves" in line for w in line.split() if w.startswith("http://"))


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "stopped" in rest, rest
