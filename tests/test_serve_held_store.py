"""`vault-ray serve --store PATH` on a store another process holds (an embedded open, another
`serve`, `vault-ray up`) is refused at once, before Ray starts: one error line, exit code 4, no
Ray session directory, no Serve line; with --hashing too, where the embedder check came first.
And a normal stop of `serve` does not print Ray's "(raylet) Task ServeController.graceful_shutdown
failed ... killed by `ray.kill`" line (actors/serve/stopping.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vault_ray import Fact, HashingEmbedder, Vault

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "HF_HUB_OFFLINE": "1", "COLUMNS": "400"}
HOLD = """
import sys, time
from vault_ray import HashingEmbedder, Vault
vault = Vault.open(sys.argv[1], embedder=HashingEmbedder())
print("held", flush=True)
time.sleep(120)
"""


class ModelNamed(HashingEmbedder):
    """Vectors under the local model's name: a store `--hashing` does not fit (no model loaded here)."""

    def __init__(self) -> None:
        super().__init__(384)
        self.name = "all-MiniLM-L6-v2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(store: Path, ray_tmp: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "vault_ray.cli", "serve", "--store", str(store), "--port", str(free_port()),
                           "--num-cpus", "1", *extra], capture_output=True, text=True, timeout=120,
                          env={**ENV, "RAY_TMPDIR": str(ray_tmp)})
    return done, time.monotonic() - started


def refused_at_once(done: subprocess.CompletedProcess[str], took: float, ray_tmp: Path) -> str:
    """The refusal's one line, after checking it came as a refusal before Ray (exit 4, seconds, no session)."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 4, done.stdout + done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: store ") and "held by another process" in lines[0], lines
    assert not done.stdout.strip(), done.stdout  # no "Nothing to shut down", no URL
    assert took < 15, took  # Ray's start-up alone took about 13 s before
    assert not (ray_tmp / "ray").exists() or not any((ray_tmp / "ray").iterdir()), list((ray_tmp / "ray").iterdir())
    return lines[0]


@pytest.mark.parametrize("embedder", [HashingEmbedder, ModelNamed])
def test_serve_refuses_a_store_open_elsewhere_before_ray_starts(tmp_path, embedder):
    store, ray_tmp = tmp_path / "fleet", tmp_path / "rt"
    ray_tmp.mkdir()
    with Vault.open(store, embedder=embedder()) as held:  # this test process holds the store
        held.agent("crm").add_facts([Fact("user.city", "I live in Oslo", value="Oslo")])
        for extra in ((), ("--hashing",)):  # --hashing on a store of the model: the lock still comes first
            line = refused_at_once(*serve(store, ray_tmp, *extra), ray_tmp)
            assert "embedder" not in line and "stop the holder first" in line, line
        assert [c.value for c in held.get("user.city").active] == ["Oslo"]  # the holder works on, untouched
    assert not (store / "cluster.json").exists()


def test_serve_on_a_store_another_serve_holds_names_the_address_that_reaches_it(tmp_path):
    store, ray_tmp = tmp_path / "fleet", tmp_path / "rt"
    ray_tmp.mkdir()
    with Vault.open(store, embedder=HashingEmbedder()) as v:
        v.agent("crm").add_facts([Fact("user.city", "I live in Oslo", value="Oslo")])
    head = {"address": "127.0.0.1:45111", "namespace": "team", "by": "serve"}  # what a running serve records
    (store / "cluster.json").write_text(json.dumps({"epoch": 1, "shards": [], "assignment": {}, "head": head}))
    holder = subprocess.Popen(["bash", "-c", 'exec -a "$0" "$@"', "ray::ControlActor", sys.executable, "-c", HOLD,
                               str(store)], stdout=subprocess.PIPE, text=True, env=ENV)  # named as the store's actor is
    try:
        assert holder.stdout.readline().strip() == "held"  # type: ignore[union-attr]
        line = refused_at_once(*serve(store, ray_tmp, "--hashing"), ray_tmp)
        assert "--address 127.0.0.1:45111 --namespace team" in line, line
    finally:
        holder.kill()
        holder.wait()


def test_the_line_of_serves_own_shutdown_is_dropped_and_other_lines_of_ray_are_not(capsys):
    from ray._private import worker

    from vault_ray.actors.serve.stopping import quiet_shutdown_line

    noise = ("Task ServeController.graceful_shutdown failed. There are infinite retries remaining, so the task will "
             "be retried. Error: The actor is dead because it was killed by `ray.kill`.")
    other = "Task Shard.write failed. There are 2 retries remaining, so the task will be retried. Error: oom"
    quiet_shutdown_line()
    quiet_shutdown_line()  # once per process: a second call wraps nothing again
    worker.print_to_stdstream({"lines": [noise], "pid": "raylet", "is_err": False}, ignore_prefix=False)
    worker.print_to_stdstream({"lines": [other, noise], "pid": "raylet", "is_err": False}, ignore_prefix=False)
    worker.print_to_stdstream({"lines": [noise], "pid": 4242, "is_err": False}, ignore_prefix=False)  # a worker's
    out = capsys.readouterr().out
    assert out.count("graceful_shutdown") == 1 and "(pid=4242)" in out, out  # only the worker's own print stays
    assert out.count("Shard.write failed") == 1, out


def test_a_store_taken_after_ray_started_is_a_refusal_that_keeps_no_session(monkeypatch, tmp_path):
    """The store's actors refuse a store taken between the check and their open (after Ray's start-up):
    a refusal like the early one, whose Ray logs help no bug report; a failure keeps them."""
    from vault_ray.backends import ray_session
    from vault_ray.cli.common import removes_ray_session
    from vault_ray.errors import StorageFailure, StoreLocked

    monkeypatch.setattr(ray_session, "_kept_because", None)
    monkeypatch.setattr(ray_session, "_remove", False)

    def raises(exc: Exception) -> None:
        raise exc

    wrapped = removes_ray_session(raises, what="service")
    with pytest.raises(StoreLocked):
        wrapped(StoreLocked(str(tmp_path), holder="process"))
    assert ray_session._kept_because is None  # noqa: SLF001
    with pytest.raises(StorageFailure):
        wrapped(StorageFailure("disk full", partition=0))
    assert ray_session._kept_because == "the service failed: StorageFailure"  # noqa: SLF001
