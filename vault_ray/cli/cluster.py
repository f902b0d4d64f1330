"""`vault-ray up | down | rebalance | status`: run a cluster-mode store.

`up` starts a local Ray head (`ray start --head --block`, in its own session so it
outlives this command) unless `--address` names a running cluster, creates the
store's actors and prints how to join. `down` stops the actors, releases the store
and, when `up` started the head on this machine, stops that head too (by the pid
`up` recorded, never `ray stop`, which would stop every Ray on the machine) and then
removes that head's session directory (`--keep-ray`: the head and its directory stay).

Ray is imported inside the commands: the rest of the CLI runs without it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ..embedders import HashingEmbedder, LocalEmbedder
from ..errors import ClusterError, InvalidInput
from ..policy_file import read_policy_file
from ..storage.layout import check_index, check_not_held, check_partitions
from . import head_logs
from .common import console, err_console, handle_errors, id_column, print_table, require_input, stopped, warned_on_stderr

HEAD_START_TIMEOUT_S = 120.0
HEAD_STOP_TIMEOUT_S = 60.0

NAMESPACE = typer.Option("vault", "--namespace", help="Ray namespace of the store (one store per namespace).")
CLUSTER = typer.Option("auto", "--address", help="Ray address of the cluster, as `vault-ray up` printed it "
                       "('auto': the only one on this machine).")
POLICY_FILE = typer.Option(None, "--policy", help="Policy file to start with (JSON: Policy.to_dict(), or a file of "
                                                  "`vault-ray policy show` / `eval --recommend`).")
ACTOR_OPTIONS = typer.Option(
    None, "--actor-options",
    help='Ray actor options for the store\'s actors, as JSON, e.g. \'{"resources": {"vault_store": 1}}\' to '
         "place them on the nodes that mount the store.",
)


def register(app: typer.Typer) -> None:
    """Add the cluster commands to the `vault-ray` app."""
    for command in (stopped(UP_INTERRUPTED)(up), down, rebalance, status):
        app.command(help=command.__doc__)(handle_errors(command))


UP_INTERRUPTED = ("interrupted: the Ray head this `up` started, if any, is stopped; nothing else runs. With "
                  "--address, store actors it created may run there: `vault-ray down --address ADDR` stops them, or "
                  "run the same `up` again")


def up(
    store: str = typer.Option(..., "--store", "-s", help="Store directory (created if new); every node must reach it."),
    shards: int = typer.Option(2, "--shards", help="How many shard actors own the partitions."),
    partitions: int = typer.Option(None, "--partitions", help="Partition count of a new store (default 16)."),
    namespace: str = NAMESPACE,
    address: str = typer.Option(None, "--address", help="Join this running Ray cluster instead of starting a head."),
    port: int = typer.Option(6379, "--port", help="Port of the local Ray head started when no --address is given "
                             "(1-65535, but not 10001-19999, 52365 or 8265: Ray's own processes take those)."),
    num_cpus: int = typer.Option(None, "--num-cpus", min=0, help="CPUs the local Ray head offers (default: all)."),
    temp_dir: str = typer.Option(None, "--temp-dir", help="Ray's temp/session directory for the local head."),
    hashing: bool = typer.Option(False, "--hashing", help="The store uses the hashing embedder (clients pass --hashing)."),
    index: str = typer.Option(None, "--index", help="Vector index: flat (exact, the default) or hnsw (approximate, "
                              "faster on large stores); kept in the store's settings."),
    policy_file: Path = POLICY_FILE,
    actor_options: str = ACTOR_OPTIONS,
) -> None:
    """Start a cluster-mode store: a local Ray head (unless --address) and the store's actors.

    Ray listens on every interface (its GCS on --port; raylet, workers: random ports).

    Ray cannot keep them on 127.0.0.1: firewall them where others reach the machine.

    See docs/cluster.md, "Network exposure"."""
    if policy_file:
        require_input(policy_file, "policy file")  # not found, as a mistyped --store
    policy = read_policy_file(policy_file) if policy_file else None
    options = _read_json(actor_options, "--actor-options") if actor_options else None
    embedder = HashingEmbedder() if hashing else LocalEmbedder()  # only its name and size are needed here
    from vault_ray.actors import attach, check_shards, connect  # noqa: PLC0415  (Ray only when the command runs)

    check_shards(shards, store, partitions)  # bad input: before a Ray head starts
    if partitions is not None:
        check_partitions(partitions)
    if index is not None:
        check_index(index)
    check_not_held(store)  # served already (`up` twice), or open elsewhere: refused before a head starts
    head: dict[str, Any] = {}
    if address is None:
        check_head_port(port)
        head = _start_head(port, num_cpus, temp_dir)
        address = head["address"]
    try:
        _progress(f"creating the store's actors in namespace {namespace!r} on the Ray cluster at {address} "
                  f"(opening {store}) ...")
        with warned_on_stderr():  # a store whose restore is unfinished: one line, and it is served
            vault = connect(address, namespace=namespace, store=store, shards=shards, partitions=partitions,
                            embedder=embedder, policy=policy, actor_options=options, index=index)
        if head:  # joined: its log goes beside Ray's own logs of that head
            head["log"] = str(head_logs.settle(Path(head["log"])))
        # the head it started (for `down` to stop), or only the cluster it joined: where to reach the store
        attach(address, namespace=namespace).note_head({**head, "address": address, "namespace": namespace})
    except BaseException:
        if head:
            _progress(f"stopping the Ray head `up` started (pid {head['pid']}; up to {HEAD_STOP_TIMEOUT_S:.0f} s) ...")
            _stop_head(head)
            err_console.print(f"note: the log of the Ray head `up` started is kept: {head['log']}", highlight=False,
                              soft_wrap=True)
        raise
    info = vault.info()
    flag = " --hashing" if hashing else ""
    embedder_arg = ", embedder=HashingEmbedder()" if hashing else ""
    for line in (
        f"[green]vault-ray is up[/green]: store {info.store} · namespace {namespace!r} · "
        f"{shards} shard(s) over {info.partitions} partitions · {info.index} index · Ray at {address}",
        "join from any terminal (or any machine that reaches this Ray cluster and the store):",
        f"  vault-ray chat --agent NAME --address {address} --namespace {namespace}{flag}",
        f"  Vault.connect({address!r}, namespace={namespace!r}{embedder_arg})",
        f"stop it with: vault-ray down --address {address} --namespace {namespace}",
        *([f"the Ray head's log: {head['log']}"] if head else []),
    ):
        console.print(line, highlight=False, soft_wrap=True)


def down(
    address: str = CLUSTER, namespace: str = NAMESPACE,
    keep_ray: bool = typer.Option(False, "--keep-ray", help="Leave the Ray head `up` started running."),
    force: bool = typer.Option(False, "--force", help="Stop them even under a running `vault-ray serve`: its HTTP "
                               "app is removed first (its clients then get errors) and its process waits for Ctrl-C."),
) -> None:
    """Stop the store's actors (closing every log) and the Ray head `vault-ray up` started.

    Refused while a `vault-ray serve` uses them (or runs on the head it would stop): stop that first."""
    from vault_ray.actors import shutdown  # noqa: PLC0415

    from .cluster_serve import check_not_served  # noqa: PLC0415

    check_not_served(address, namespace, keep_ray=keep_ray, force=force)
    head = shutdown(address, namespace=namespace)
    console.print(f"stopped the vault-ray actors of namespace {namespace!r}; the store is free", highlight=False)
    if head and head.get("pid") and not keep_ray:  # a head `up` started (one it joined records no pid)
        if head.get("host") != socket.gethostname():
            console.print(f"the Ray head at {head.get('address')} runs on {head.get('host')}: stop it there")
            return
        import ray  # noqa: PLC0415

        from vault_ray.backends import ray_session  # noqa: PLC0415

        if _stop_serve():
            console.print("stopped Ray Serve on that head (left running by `vault-ray serve --address`)",
                          highlight=False)
        session = ray_session.connected_session()  # the head's: this process joined its cluster
        ray.shutdown()
        _stop_head(head)
        console.print(f"stopped the Ray head at {head['address']}", highlight=False)
        _discard_session(session, head)


def _discard_session(session: Path | None, head: dict[str, Any]) -> None:
    """Remove the session directory of the head `down` stopped (Ray never does: one per `up` piled
    up in /tmp/ray), once its processes are gone, with the head's log `up` kept (in it, or where
    `head_logs.settle` left it); kept while it still runs (they write there)."""
    from vault_ray.backends import ray_session  # noqa: PLC0415

    if session is None or not session.is_dir():
        return
    if _is_ray_start(int(head["pid"])):
        err_console.print(f"note: the Ray head (pid {head['pid']}) has not stopped within {HEAD_STOP_TIMEOUT_S:.0f} s: "
                      f"its session directory {session} is kept", highlight=False, soft_wrap=True)
        return
    if ray_session.discard(session, f"the Ray head at {head['address']}"):
        console.print(f"removed its session directory {session}", highlight=False, soft_wrap=True)
        head_logs.discard(head.get("log"))


def _stop_serve() -> bool:
    """Shut down Ray Serve in the connected cluster, if it runs there. `serve --address`
    removes only its app on Ctrl-C and leaves Serve's controller and HTTP proxy to the
    cluster; stopping the head with them still alive waits out Ray's grace period (about
    30 s) instead of about 2 s."""
    from vault_ray.actors.serve.running import serve_runs  # noqa: PLC0415
    from vault_ray.actors.serve.stopping import shutdown_serve  # noqa: PLC0415

    if not serve_runs():  # no Serve controller there
        return False
    shutdown_serve()
    return True


def rebalance(
    shards: int = typer.Option(..., "--shards", min=1, help="How many shard actors should own the partitions."),
    address: str = CLUSTER, namespace: str = NAMESPACE,
) -> None:
    """Move partitions between shard actors (logs closed by the old owner, opened by the new)."""
    from vault_ray.actors import rebalance as move  # noqa: PLC0415

    result = move(address, namespace=namespace, shards=shards)
    t = Table(title=f"rebalance to {shards} shard(s): epoch {result['epoch']}")
    for col in ("partition", "from", "to"):
        t.add_column(col)
    for p, (old, new) in sorted(result["moved"].items()):
        t.add_row(str(p), old or "", new)
    print_table(t) if result["moved"] else console.print("nothing to move")
    if result["retired"]:
        console.print(f"retired: {', '.join(result['retired'])}")


def status(address: str = CLUSTER, namespace: str = NAMESPACE,
           as_json: bool = typer.Option(False, "--json", help="As JSON (shards, partitions, versions).")) -> None:
    """Show the store's shards: the partitions each owns, its process and the epoch.

    policy version: the policy's own version, as GET /v1/policy answers and PATCH expects.

    control version: internal, every policy or entity registry change pushed to the shards."""
    from vault_ray.actors import status as read_status  # noqa: PLC0415

    found = read_status(address, namespace=namespace)
    if as_json:
        typer.echo(json.dumps(found, indent=1, default=str, ensure_ascii=False))
        return
    t = Table(title=f"{found['store']}  ·  namespace {namespace!r}  ·  epoch {found['epoch']}")
    id_column(t, "shard", [info["name"] for info in found["shards"]])
    for col in ("pid", "partitions", "pending", "active claims", "policy version", "control version"):
        t.add_column(col)
    for info in found["shards"]:
        t.add_row(info["name"], str(info["pid"]), ",".join(map(str, info["owned"])), ",".join(map(str, info["pending"])),
                  str(info["active"]), str(info.get("policy_version", "?")), str(info["control_version"]))
    print_table(t)


# -- the local Ray head ------------------------------------------------------------------------
def _read_json(text: str, option: str) -> dict[str, Any]:
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{option} must be a JSON object: {exc}") from exc
    if not isinstance(found, dict):
        raise InvalidInput(f"{option} must be a JSON object, got {text!r}")
    return found


def _ray_executable() -> str:
    beside = Path(sys.executable).with_name("ray")
    found = str(beside) if beside.exists() else shutil.which("ray")
    if not found:
        raise ClusterError("the `ray` command is not installed (pip install 'vault-ray[cluster]')")
    return found


RAY_PORTS = ((10001, 10001, "its client server"), (10002, 19999, "its worker processes"),
             (52365, 52365, "its dashboard agent"), (8265, 8265, "its dashboard (even with the dashboard off)"))
"""Ports a Ray head started by `up` takes for itself (Ray's defaults): a GCS port among them fails
only after Ray has started, with a long traceback."""


def check_head_port(port: int) -> None:
    """InvalidInput for a `--port` the local Ray head cannot use, before anything starts."""
    if not 1 <= port <= 65535:
        raise InvalidInput(f"--port must be a TCP port (1-65535), got {port}")
    for low, high, what in RAY_PORTS:
        if low <= port <= high:
            span = f"port {low}" if low == high else f"ports {low}-{high}"
            raise InvalidInput(f"--port {port} is taken by Ray itself: a Ray head keeps {span} for {what}; "
                               f"choose a port outside 10001-19999, 52365 and 8265 (e.g. the default 6379, or 26379)")


def _start_head(port: int, num_cpus: int | None, temp_dir: str | None) -> dict[str, Any]:
    """`ray start --head --block` in its own session; returns once the head is up."""
    with socket.socket() as probe:
        probe.settimeout(2)
        if probe.connect_ex(("127.0.0.1", port)) == 0:  # Ray would fail after a while, with a traceback
            raise ClusterError(f"something listens on 127.0.0.1:{port} already (a Ray head?): join it with "
                               f"`--address 127.0.0.1:{port}`, or start a head on another `--port`")
    cmd = [_ray_executable(), "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
           "--include-dashboard=false", "--disable-usage-stats"]
    if num_cpus is not None:
        cmd.append(f"--num-cpus={num_cpus}")
    if temp_dir:
        cmd.append(f"--temp-dir={Path(temp_dir).resolve()}")
    log_path = head_logs.starting_path(port, temp_dir)
    _progress(f"starting a Ray head on 127.0.0.1:{port} (up to {HEAD_START_TIMEOUT_S:.0f} s; its log: {log_path}) ...")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        _wait_for_head(proc, port, log_path)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (`stopped`) meanwhile: the head runs in a session of its own
        _progress(f"stopping the Ray head `up` started (pid {proc.pid}; up to {HEAD_STOP_TIMEOUT_S:.0f} s) ...")
        _stop_head({"pid": proc.pid})
        err_console.print(f"note: the log of the Ray head `up` started is kept: {log_path}", highlight=False,
                          soft_wrap=True)
        raise
    return {"pid": proc.pid, "host": socket.gethostname(), "address": f"127.0.0.1:{port}", "log": str(log_path)}


def _wait_for_head(proc: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    deadline = time.monotonic() + HEAD_START_TIMEOUT_S
    while "Ray runtime started" not in log_path.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            timed_out = proc.poll() is None
            if timed_out:
                _stop_head({"pid": proc.pid})
            said = (f"it did not start within {HEAD_START_TIMEOUT_S:.0f} s" if timed_out
                    else why_it_stopped(log_path.read_text(errors="replace")))
            raise ClusterError(f"could not start a Ray head on port {port} ({said}); nothing was changed. Its log: "
                               f"{log_path}. Retry (a busy machine can make Ray's start-up time out), check --temp-dir "
                               "(or RAY_TMPDIR) is a writable directory, or join a running Ray cluster with --address")
        time.sleep(0.2)


def _progress(line: str) -> None:
    """What `up` waits for (a head's start and the actors' creation take seconds to a minute), on
    stderr: stdout keeps only the lines to join with."""
    err_console.print(line, highlight=False, soft_wrap=True)


def why_it_stopped(log: str) -> str:
    """The line of a failed `ray start`'s log that says why (the exception ending its traceback,
    `FileExistsError: [Errno 17] File exists: ...`), else its last line: one line, not the traceback."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^[\w.]*(Error|Exception|Exit)\b.*:", line)]
    return (errors or lines or ["its log is empty"])[-1][:300]


def _is_ray_start(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"start" in cmdline and any(part.endswith(b"ray") for part in cmdline)


def _stop_head(head: dict[str, Any]) -> None:
    """SIGTERM to the `ray start --block` process `up` started: it stops what it started."""
    pid = int(head["pid"])
    if not _is_ray_start(pid):  # already gone (or the pid now names another program)
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + HEAD_STOP_TIMEOUT_S
    while _is_ray_start(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
