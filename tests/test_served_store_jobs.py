"""QA9 F7, F8: a store another process holds (`vault-ray up`, `vault-ray serve --store`, an
embedded open) is refused by the bulk jobs before Ray starts, naming what works; `serve --store`
prints (and records) the Ray address and namespace the jobs join it with; Ray's token notice is
not printed. And the `eval --help` wording of --policies."""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.cli import app
from vault_ray.tokens import TokenStore

T0 = 1_700_000_000.0
HOLD = """
import sys, time
from vault_ray import HashingEmbedder, Vault
vault = Vault.open(sys.argv[1], embedder=HashingEmbedder())
print("held", flush=True)
time.sleep(120)
"""
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "HF_HUB_OFFLINE": "1"}


def said(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder()) as v:
        v.agent("a").add_facts([Fact("user.city", "I live in Oslo", value="Oslo", observed_at=T0),
                                Fact("user.diet", "I am vegan", value="vegan", observed_at=T0 + 60)])
    return path


@pytest.fixture
def no_ray(monkeypatch):
    """A refusal must come before Ray starts: starting it here fails the test."""
    import ray

    def refuse(*args, **kwargs):
        raise AssertionError("Ray was started before the held store was refused")

    monkeypatch.setattr(ray, "init", refuse)


def hold(store: Path, as_name: str) -> subprocess.Popen:
    proc = subprocess.Popen(["bash", "-c", 'exec -a "$0" "$@"', as_name, sys.executable, "-c", HOLD, str(store)],
                            stdout=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdout.readline().strip() == "held"  # type: ignore[union-attr]
    return proc


def record(store: Path, head: dict) -> None:
    """What `vault-ray serve --store` (or `up`) records beside the store."""
    (store / "cluster.json").write_text(json.dumps({"epoch": 1, "shards": [], "assignment": {}, "head": head}))


JOBS = (["export", "--out", "{tmp}/x"], ["reindex", "--embedder", "hashing", "--dim", "128"],
        ["normalize", "--embedder", "hashing", "--out", "{tmp}/plan"], ["import", "{export}"])


def test_every_job_refuses_a_served_store_before_ray_starts_and_names_its_address(store, tmp_path, no_ray):
    with Vault.open(store, embedder=HashingEmbedder()) as v:
        v.export(tmp_path / "exp")
    before = {p.name for p in store.rglob("*")} - {"cluster.json"}
    proc = hold(store, "ray::ControlActor")  # how a Ray worker (the store's control actor) is named
    try:
        record(store, {"address": "127.0.0.1:45111", "namespace": "team", "by": "serve"})
        for job in JOBS:
            args = [a.format(tmp=tmp_path, export=tmp_path / "exp") for a in job]
            started = time.monotonic()
            result = CliRunner().invoke(app, [*args, "--store", str(store)], env={"COLUMNS": "300"})
            text = said(result)
            assert result.exit_code == 4, (job, result.output)
            assert "--address 127.0.0.1:45111 --namespace team" in text and "vault-ray serve" in text, text
            assert time.monotonic() - started < 10, job  # no Ray start-up (tens of seconds under load)
        result = CliRunner().invoke(app, ["eval", "--from-store", str(store), "--out", str(tmp_path / "ev")],
                                    env={"COLUMNS": "300"})
        text = said(result)
        assert result.exit_code == 4, result.output
        assert "vault-ray export --address 127.0.0.1:45111 --namespace team --out DIR" in text, text
        assert "Vault.export(dir)" not in text
    finally:
        proc.kill()
        proc.wait()
    assert not (tmp_path / "x").exists() and not (tmp_path / "plan").exists() and not (tmp_path / "ev").exists()
    assert {p.name for p in store.rglob("*")} - {"cluster.json"} == before  # nothing made in the store


def test_a_held_store_without_a_recorded_address_says_to_stop_the_holder(store, tmp_path, no_ray):
    for name in ("ray::ControlActor", "python"):  # a serve that recorded nothing; an embedded open
        proc = hold(store, name)
        try:
            for job in (["export", "--out", str(tmp_path / "x")], ["reindex", "--embedder", "hashing", "--dim", "64"]):
                result = CliRunner().invoke(app, [*job, "--store", str(store)], env={"COLUMNS": "300"})
                text = said(result)
                assert result.exit_code == 4 and "held by another process" in text, (name, text)
                assert "stopped first" in text or "stop the holder first" in text, text
            result = CliRunner().invoke(app, ["eval", "--from-store", str(store), "--out", str(tmp_path / "ev")])
            assert result.exit_code == 4 and "stop the holder first" in said(result), result.output
        finally:
            proc.kill()
            proc.wait()
    result = CliRunner().invoke(app, ["export", "--store", str(store), "--out", str(tmp_path / "x2")])
    assert result.exit_code == 0, result.output  # let go: the store exports


def test_the_check_sees_a_store_open_in_this_process_and_lets_a_free_one_be(store):
    from vault_ray.errors import StoreLocked
    from vault_ray.storage.layout import check_not_held

    check_not_held(store)
    check_not_held(store.parent / "new-store")  # no store yet: nothing to refuse, nothing made
    assert not (store.parent / "new-store").exists()
    with Vault.open(store, embedder=HashingEmbedder()), pytest.raises(StoreLocked, match="already open in this process"):
        check_not_held(store)
    check_not_held(store)
    with Vault.open(store, embedder=HashingEmbedder()) as v:  # the check left the lock free
        assert [c.value for c in v.get("user.city").active] == ["Oslo"]


def test_rays_token_notice_is_filtered_and_its_other_warnings_are_not():
    from ray._private.authentication import authentication_token_setup as setup

    import vault_ray.backends.connect  # noqa: F401  (installs the filter)

    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger = logging.getLogger(setup.__name__)
    handler = Keep()
    logger.addHandler(handler)
    try:
        setup._warn_token_auth_enabled()
        setup._warn_token_auth_disabled()
    finally:
        logger.removeHandler(handler)
    assert not [m for m in seen if "is enabled" in m]
    assert [m for m in seen if "is disabled" in m]  # a security warning stays


def test_eval_help_does_not_say_one_policy_is_the_default():
    text = said(CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "300"})).replace("│", "")
    text = " ".join(text.split())
    assert "(the default)" not in text and "every policy of the mode" in text, text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sessions(ray_tmp: Path) -> list[str]:
    return sorted(p.name for p in (ray_tmp / "ray").iterdir() if p.name.startswith("session"))


def _follow(proc: subprocess.Popen) -> queue.Queue[str | None]:
    """The command's output lines as they come (None once it closed its output)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _read_until(proc: subprocess.Popen, lines: queue.Queue[str | None], marker: str, timeout: float) -> str:
    """The command's output up to a line holding `marker` (AssertionError after `timeout`)."""
    out, end = [], time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        out.append(line)
        if marker in line:
            return "".join(out)
    raise AssertionError(f"no {marker!r} within {timeout:.0f} s; output: {''.join(out)[-2000:]}")


def _rest(lines: queue.Queue[str | None]) -> str:
    """What the command printed after `_read_until`, once it has ended."""
    out = []
    while (line := lines.get(timeout=30)) is not None:
        out.append(line)
    return "".join(out)


def test_serve_store_prints_the_ray_address_the_jobs_join(tmp_path, no_ray):
    """One real `serve --store --hashing` on a free port: it names the Ray address and namespace (and
    records them beside the store), a job given --store is refused with them, a job given them
    exports the served store with no token notice (and leaves the service's Ray session alone);
    on Ctrl-C the record goes, and so does the session directory of its Ray (no other one), quietly.
    The store's hashing vectors are 128 wide (a `reindex --embedder hashing --dim 128` made it so):
    the replicas embed at the store's size, so HTTP reads, writes and searches work (QA9 F2's other
    half: a 384-wide embedder was refused)."""
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(128)) as v:
        v.agent("a").add_facts([Fact("user.city", "I live in Oslo", value="Oslo", observed_at=T0),
                                Fact("user.diet", "I am vegan", value="vegan", observed_at=T0 + 60)])
    token, _ = TokenStore.for_store(store).add("scheduler")
    port = _free_port()
    ray_tmp = Path(tempfile.mkdtemp(prefix="vrs", dir="/tmp"))  # short: Ray's socket paths have a length limit
    other = ray_tmp / "ray" / "session_2026-01-01_00-00-00_000000_1"  # another run's, as on a shared host
    (other / "logs").mkdir(parents=True)
    env = {**ENV, "RAY_TMPDIR": str(ray_tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "vault_ray.cli", "serve", "--store", str(store), "--port", str(port),
                             "--hashing", "--shards", "1", "--namespace", "svc", "--num-cpus", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**env, "COLUMNS": "400", "PYTHONUNBUFFERED": "1"},
                            start_new_session=True)
    try:
        lines = _follow(proc)
        shown = _read_until(proc, lines, "Ctrl-C stops it", timeout=300)
        found = re.search(r"Ray at (127\.0\.0\.1:\d+), namespace 'svc'", shown)
        assert found, shown
        address = found[1]
        assert f"--address {address} --namespace svc" in shown and "Token authentication is enabled" not in shown
        head = json.loads((store / "cluster.json").read_text())["head"]
        assert head["address"] == address and head["namespace"] == "svc"
        refused = CliRunner().invoke(app, ["export", "--store", str(store), "--out", str(tmp_path / "x")],
                                     env={"COLUMNS": "300"})
        assert refused.exit_code == 4 and f"--address {address} --namespace svc" in said(refused), refused.output
        job = subprocess.run([sys.executable, "-m", "vault_ray.cli", "export", "--address", address, "--namespace", "svc",
                              "--out", str(tmp_path / "exp")], capture_output=True, text=True, env=env, timeout=240)
        assert job.returncode == 0, job.stderr
        assert "exported 2 claims" in " ".join(job.stdout.split()), job.stdout
        assert "Token authentication" not in job.stderr, job.stderr
        assert len(_sessions(ray_tmp)) == 3  # the job joined the service's Ray: its session (and session_latest) stay
        # Serve's start is quiet too: no "Connecting to existing Serve app" (actors/serve/starting.py)
        assert "Connecting to existing Serve app" not in shown, shown
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"},
                          timeout=60) as http:  # the replicas embed at the store's size (128)
            view = http.get("/v1/entities/user.city")
            assert view.status_code == 200 and [c["value"] for c in view.json()["active"]] == ["Oslo"], view.text
            wrote = http.post("/v1/facts", json={"facts": [{"entity": "user.pet", "text": "I have a cat", "value": "cat"}]})
            assert wrote.status_code == 200, wrote.text
            found = http.get("/v1/search", params={"q": "cat"})
            assert found.status_code == 200 and any(h["claim"]["value"] == "cat" for h in found.json()), found.text
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        left = _sessions(ray_tmp)
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert proc.returncode == 0
    rest = _rest(lines)  # what it printed as it stopped
    assert "graceful_shutdown failed" not in rest, rest  # a normal stop is quiet (actors/serve/stopping.py)
    assert left == [other.name], left  # its own session (and session_latest) gone, the other run's kept
    assert json.loads((store / "cluster.json").read_text())["head"] == {}  # stopped: nothing to name any more
    with Vault.open(store, embedder=HashingEmbedder(128)) as v:
        assert [c.value for c in v.get("user.diet").active] == ["vegan"]
        assert [c.value for c in v.get("user.pet").active] == ["cat"]  # the write over HTTP
