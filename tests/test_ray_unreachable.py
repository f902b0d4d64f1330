"""A Ray that cannot be reached or started is one clear error, in seconds, from every entry point.

`Vault.connect` raises ClusterError (a VaultError) that says what failed and what to try;
`vault-ray serve`, `vault-ray up` and the cluster commands print one `error:` line with exit
code 4, no traceback, and create nothing. The failures are real: a closed port, a port where
something listens that is no Ray cluster (silent, or a web server), and a Ray temporary
directory that is a file. Each runs in a fresh process: ensure_ray does nothing in a process
that has joined Ray already (the two addresses of one listener share a process: a failed connect
is checked to leave Ray unjoined)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("ray")

CONNECT = """
import json, sys, time
from vault_ray import HashingEmbedder, Vault, VaultError
for address in sys.argv[1:]:
    began = time.monotonic()
    try:
        Vault.connect(address, embedder=HashingEmbedder())
        said = {"error": None}
    except VaultError as exc:
        said = {"error": type(exc).__name__, "message": str(exc)}
    import ray
    said.update(seconds=time.monotonic() - began, ray_joined=ray.is_initialized())
    print(json.dumps(said), flush=True)
    if said["ray_joined"]:
        break  # a process that joined Ray tries no other address: ensure_ray would do nothing there
"""


def free_port() -> int:
    """A port nothing listens on, outside the ranges a Ray head keeps for itself."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not (10001 <= port <= 19999 or port in (8265, 52365)):
            return port


def env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}, "COLUMNS": "300", **extra}


def connect(*addresses: str) -> list[dict]:
    """What `Vault.connect` did at each address, tried in turn in one fresh process (each attempt
    that fails leaves Ray unjoined, as the tests assert, so the next starts as a fresh process would)."""
    ran = subprocess.run([sys.executable, "-c", CONNECT, *addresses], env=env(), capture_output=True, text=True,
                         timeout=240)
    assert "Traceback" not in ran.stderr, ran.stderr
    said = [json.loads(line) for line in ran.stdout.strip().splitlines() if line.startswith("{")]
    assert len(said) == len(addresses), ran.stdout + ran.stderr
    return said


def cli(*args: str, cwd, **extra: str) -> tuple[int, str]:
    began = time.monotonic()
    ran = subprocess.run([sys.executable, "-m", "vault_ray.cli", *args], cwd=cwd, env=env(**extra),
                         capture_output=True, text=True, timeout=300)
    said = " ".join(ran.stderr.split())
    assert "Traceback" not in ran.stderr and "Traceback" not in ran.stdout, ran.stderr
    assert time.monotonic() - began < 120, said
    return ran.returncode, said[said.find("error:"):] if "error:" in said else said


@pytest.fixture
def silent_port():
    """Something listens, accepts the connection and never says a word (no Ray)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield s.getsockname()[1]


@pytest.fixture
def web_port():
    """A web server (HTTP/1), as `vault-ray serve`'s own port is: a likely wrong address."""

    class Hello(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_connect_to_a_closed_port_is_a_cluster_error_in_seconds():
    port = free_port()
    (said,) = connect(f"127.0.0.1:{port}")
    assert said["error"] == "ClusterError" and not said["ray_joined"], said
    assert f"cannot join the Ray cluster at '127.0.0.1:{port}'" in said["message"]
    assert "nothing answers" in said["message"] and "vault-ray up" in said["message"]
    assert said["seconds"] < 30


@pytest.mark.parametrize(("listener", "why"), [("silent_port", "sends no reply"), ("web_port", "answers HTTP/1")])
def test_connect_to_a_port_that_is_no_ray_cluster_says_so_in_seconds(request, listener, why):
    """Ray itself would retry such an address for many minutes."""
    port = request.getfixturevalue(listener)
    addresses = (f"127.0.0.1:{port}", f"localhost:{port}")
    for address, said in zip(addresses, connect(*addresses), strict=True):
        assert said["error"] == "ClusterError" and not said["ray_joined"], said
        assert f"something listens at {address}, but no Ray cluster" in said["message"] and why in said["message"]
        assert "not the HTTP port of `vault-ray serve`" in said["message"]
        assert said["seconds"] < 60


def test_cluster_commands_at_a_wrong_address_are_one_error_line(tmp_path, silent_port):
    from concurrent.futures import ThreadPoolExecutor

    closed = f"127.0.0.1:{free_port()}"
    commands = (["serve", "--address", closed, "--hashing", "--port", str(free_port())],
                ["up", "--store", str(tmp_path / "store"), "--address", closed, "--hashing"],
                ["status", "--address", f"127.0.0.1:{silent_port}"],
                ["down", "--address", closed],  # down when nothing runs
                ["get", "user.city", "--address", closed, "--hashing"])
    with ThreadPoolExecutor(len(commands)) as pool:  # side by side: the silent port's wait overlaps the others
        done = list(pool.map(lambda args: cli(*args, cwd=tmp_path), commands))
    for args, (code, said) in zip(commands, done, strict=True):
        assert code == 4 and said.startswith("error: cannot join the Ray cluster at"), (args, said)
        assert "nothing was changed" in said and "vault-ray up" in said, said
    assert list(tmp_path.iterdir()) == []


def test_serve_whose_ray_cannot_start_is_one_error_line_and_creates_no_store(tmp_path):
    (tmp_path / "not-a-dir").write_text("")
    code, said = cli("serve", "--store", str(tmp_path / "store"), "--hashing", "--port", str(free_port()),
                     cwd=tmp_path, RAY_TMPDIR=str(tmp_path / "not-a-dir"))
    assert code == 4 and said.startswith("error: Ray could not start on this machine (NotADirectoryError"), said
    assert "RAY_TMPDIR" in said and "--address" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-dir"]


def test_up_whose_ray_head_cannot_start_is_one_error_line_and_creates_no_store(tmp_path):
    (tmp_path / "not-a-dir").write_text("")
    (tmp_path / "tmp").mkdir()  # where the head's log goes (TMPDIR)
    port = free_port()
    code, said = cli("up", "--store", str(tmp_path / "store"), "--hashing", "--port", str(port),
                     "--temp-dir", str(tmp_path / "not-a-dir"), cwd=tmp_path, TMPDIR=str(tmp_path / "tmp"))
    assert code == 4 and said.startswith(f"error: could not start a Ray head on port {port} (FileExistsError"), said
    assert "nothing was changed" in said and "--temp-dir" in said and "--address" in said
    assert said.count("error:") == 1 and 'File "' not in said  # the log's reason, not its traceback
    log = tmp_path / "tmp" / f"vault-ray-head-{port}.log"
    assert str(log) in said and "Traceback" in log.read_text()  # the traceback is in the log it names
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-dir", "tmp"]
    with socket.socket() as s:  # and no head was left running on the port
        assert s.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture
def grpc_port():
    """A gRPC server that is no Ray head (another program's port, a gRPC proxy): it answers every
    call UNIMPLEMENTED, where `ray.init` would retry for about 20 s."""
    from concurrent import futures

    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield port
    server.stop(None)


def test_connect_to_a_grpc_server_that_is_no_ray_head_says_so_at_once(grpc_port):
    (said,) = connect(f"127.0.0.1:{grpc_port}")
    assert said["error"] == "ClusterError" and not said["ray_joined"], said
    assert f"something listens at 127.0.0.1:{grpc_port}, but no Ray cluster" in said["message"], said
    assert "answers gRPC, but has no Ray head's services" in said["message"] and "vault-ray up" in said["message"]
    assert said["seconds"] < 15, said  # Ray's own retries: about 20 s, then "Failed to connect"


def test_up_of_a_store_another_process_holds_is_refused_before_a_head_starts(tmp_path):
    store, tmp = tmp_path / "store", tmp_path / "tmp"
    store.mkdir()
    tmp.mkdir()
    hold = ("import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, str(os.getpid()).encode()); print('held', flush=True); "
            "time.sleep(120)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(store / ".lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        port = free_port()
        began = time.monotonic()
        code, said = cli("up", "--store", str(store), "--hashing", "--port", str(port), "--temp-dir", str(tmp),
                         cwd=tmp_path, TMPDIR=str(tmp))
        assert code == 4 and said.startswith(f"error: store {str(store)!r} is held by another process"), said
        assert time.monotonic() - began < 30  # no Ray head started (its start alone takes seconds)
        assert list(tmp.iterdir()) == [] and sorted(p.name for p in store.iterdir()) == [".lock"]  # no head, no log
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0
    finally:
        holder.kill()
        holder.wait()
