"""`vault-ray serve` (the HTTP service for agent fleets) and `vault-ray token add | list
| revoke` (its bearer tokens).

`serve --store PATH` starts Ray in this process, the store's cluster-mode actors and
the Ray Serve app on `--host:--port`, prints the base and docs URLs and the Ray address
and namespace other processes join it with (`--address ADDR --namespace NS`: the bulk
jobs, `Vault.connect`; also recorded beside the store, where a refused open finds it),
and runs until Ctrl-C (or SIGTERM), then stops what it started and removes the session directory
of its Ray (kept when it failed: backends/ray_session.py). `serve --address ADDR` attaches to
a running cluster (and its store, started by `vault-ray up`) and, on exit, removes
its app (and Serve, when it holds no other app, so the port is free for a restart).
Ray and the Serve app are imported inside the command.
"""

from __future__ import annotations

import contextlib
import errno
import json
import shlex
import signal
import socket
import threading
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType

import typer
from rich.table import Table

from ..embedders import LocalEmbedder
from ..errors import ClusterError, InvalidInput, NotFound
from ..storage.layout import check_not_held, check_partitions, read_meta
from ..tokens import TokenStore, check_name, role_rank
from .common import (
    HASHING,
    NAMESPACE,
    console,
    handle_errors,
    hashing_embedder,
    id_column,
    iso,
    not_a_directory,
    print_table,
    removes_ray_session,
    require_store,
    warned_on_stderr,
)

TOKENS = typer.Option(None, "--tokens", help="The token file (default: STORE/tokens.json).")
STORE = typer.Option(None, "--store", "-s", help="The store whose tokens these are (its tokens.json).")

token_app = typer.Typer(help="Bearer tokens of the HTTP service: add (printed once), list, revoke.",
                        no_args_is_help=True)


def register(app: typer.Typer) -> None:
    # the session directory of the Ray `serve --store` starts: removed at exit, kept when it failed
    app.command(help=serve.__doc__)(handle_errors(removes_ray_session(serve, what="service")))
    for command in (add, list_tokens, revoke):
        token_app.command(name=command.__name__.replace("list_tokens", "list"), help=command.__doc__)(
            handle_errors(command))
    app.add_typer(token_app, name="token")


def serve(
    store: str = typer.Option(None, "--store", "-s", help="Store directory: start Ray here and serve this store."),
    address: str = typer.Option(None, "--address", help="Attach to this running Ray cluster (its store from `vault-ray up`)."),
    namespace: str = NAMESPACE,
    shards: int = typer.Option(2, "--shards", min=1, help="Shard actors of a store created now."),
    partitions: int = typer.Option(None, "--partitions", min=1, help="Partition count of a new store (default 16)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface the HTTP service listens on (the HTTP port only: Ray's "
                                 "own ports listen on every interface, see docs/cluster.md)."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, envvar="VAULT_RAY_PORT", help="HTTP port (or VAULT_RAY_PORT)."),
    replicas: int = typer.Option(1, "--replicas", min=1, help="Serve replicas of the app."),
    max_ongoing_requests: int = typer.Option(64, "--max-ongoing-requests", min=1, help="Requests one replica takes at once."),
    replica_cpus: float = typer.Option(1.0, "--replica-cpus", min=0.0, help="CPUs Ray reserves for each replica (it embeds)."),
    num_cpus: int = typer.Option(None, "--num-cpus", min=1, help="CPUs of the Ray started here (default: all)."),
    max_body_bytes: int = typer.Option(1024 * 1024, "--max-body-bytes", min=1, help="Larger request bodies get 413."),
    tokens: str = TOKENS,
    hashing: bool = HASHING,
) -> None:
    """Serve a store over HTTP for agent fleets (Ray Serve + FastAPI); Ctrl-C stops it.

    With --store, Ray runs inside this command and stops with it; it prints the `--address ADDR --namespace NS`
    that other commands (export, reindex, normalize, get, ...) and Vault.connect join it with.

    To keep the store up without the service: `vault-ray up --store PATH`, then `serve --address ADDR`."""
    if (store is None) == (address is None):
        raise InvalidInput("give --store PATH (start Ray here) or --address ADDR (attach to a running cluster)")
    if store is not None:  # a store another process holds: refused at once, before Ray and before --hashing's check
        check_not_held(store)  # (the actors' own open of the store stays the authority: a race is refused there)
        read_meta(store)  # a file as the store, damaged settings: one line now, not after Ray's start-up
        if partitions is not None:
            check_partitions(partitions)

    if tokens:  # a directory or a file that is no token file: one line now, not after Ray's start-up
        not_a_directory(tokens, "--tokens", "token")
        TokenStore(tokens).list()
    elif store is not None:
        TokenStore.for_store(store).list()
    _check_port(host, port)  # before Ray is imported: a wrong --host or a taken port is said at once
    from vault_ray.actors import connect  # noqa: PLC0415
    from vault_ray.backends.connect import ensure_ray, find_control, init_ray  # noqa: PLC0415

    own_ray = address is None
    if own_ray:
        init_ray("local", num_cpus=num_cpus, include_dashboard=False, namespace=namespace, logging_level="WARNING",
                 log_to_driver=False)  # a failed start: one ClusterError (exit code 4), not Ray's traceback
    else:
        ensure_ray(address, namespace)
    # the replicas load the model; --hashing: of the store's size (a reindex may have made it other than 384)
    embedder = hashing_embedder(store, address, namespace) if hashing else LocalEmbedder()
    if not own_ray:
        _check_not_served(host, port)  # before the app's import (seconds): a refusal is said sooner
    from vault_ray.actors.serve.deployment import Scaling, ServeConfig, start  # noqa: PLC0415

    created = find_control(namespace) is None
    stop = _stop_on_signals()
    served = False
    try:
        with warned_on_stderr():  # a store whose restore is unfinished: one line, and it is served
            vault = connect(address or "auto", namespace=namespace, store=store, shards=shards, partitions=partitions,
                            embedder=embedder)
        info = vault.info()
        vault.close()
        joined = _ray_address(address, namespace) if own_ray else address
        token_file = Path(tokens) if tokens else Path(info.store) / "tokens.json"
        config = ServeConfig(namespace=namespace, embedder=embedder if hashing else "local", tokens=str(token_file),
                             max_body_bytes=max_body_bytes)
        scaling = Scaling(replicas=replicas, max_ongoing_requests=max_ongoing_requests,
                          ray_actor_options={"num_cpus": replica_cpus})
        served = True  # from here on there may be an app to remove
        url = start(config, scaling, host=host, port=port)
        _announce(url, info.store, token_file, joined, namespace)
        stop.wait()
        console.print("stopping ...", highlight=False)
    finally:
        _stop_what_was_started(own_ray=own_ray, served=served, created=created, namespace=namespace)
    console.print("stopped", highlight=False)


def _check_port(host: str, port: int) -> None:
    """Refuse a port something listens on. Ray Serve's proxies bind with SO_REUSEPORT, so a
    second `serve` on the port of a first one would start too, and the two would share
    the port's connections (half the requests to each store); a plain bind fails."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's TIME_WAIT is no owner
        try:
            probe.bind((host, port))
        except socket.gaierror as exc:  # a name that resolves to nothing
            raise InvalidInput(f"--host {host!r} names no address ({exc.strerror}): give one of this machine's, "
                               "e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)") from exc
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                raise InvalidInput(f"--host {host!r} is no address of this machine ({exc.strerror}): give one of "
                                   "its own, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)") from exc
            if exc.errno == errno.EADDRINUSE:
                raise ClusterError(f"{host}:{port} is in use ({exc.strerror}): another server listens there "
                                   "(choose --port, or stop it)") from exc
            raise ClusterError(f"cannot listen on {host}:{port} ({exc.strerror})"
                               + (": ports below 1024 need privileges, choose --port 1024 or above"
                                  if exc.errno == errno.EACCES and port < 1024 else "")) from exc


def _check_not_served(host: str, port: int) -> None:
    """Refuse a cluster whose Serve runs the vault-ray app already: Serve has one HTTP port
    per cluster and one app of a name, so a second `serve --address` would print a URL
    nothing listens on, and remove the first one's app when it stops. Refuse another port
    than the one a running Serve listens on, for the same reason."""
    from ray import serve as ray_serve  # noqa: PLC0415

    from vault_ray.actors.serve.running import APP_NAME  # noqa: PLC0415

    try:
        running = ray_serve.status().applications
    except Exception:  # noqa: BLE001  (Serve is not running in this cluster: nothing to clash with)
        return
    if APP_NAME in running:
        raise ClusterError(f"this cluster serves the {APP_NAME!r} app already (one per cluster): "
                           "use that service, or stop it first")
    try:
        from ray.serve.context import _get_global_client  # noqa: PLC0415  (Serve's own client: its proxy's options)

        http = _get_global_client().http_config
        listening = (http.host, int(http.port))
    except Exception:  # noqa: BLE001  (no such API in this Ray: Serve says so itself in its log)
        return
    if listening != (host, port):
        raise ClusterError(f"Ray Serve in this cluster listens on {listening[0]}:{listening[1]} already (one HTTP "
                           f"port per cluster): serve with --host {listening[0]} --port {listening[1]}")


def _stop_what_was_started(*, own_ray: bool, served: bool, created: bool, namespace: str) -> None:
    """Serve (all of it in our own Ray, else only our app), the store's actors if we
    created them, our own Ray; each step tolerates what never started."""
    import ray  # noqa: PLC0415
    from ray import serve as ray_serve  # noqa: PLC0415

    from vault_ray.actors import shutdown  # noqa: PLC0415
    from vault_ray.actors.serve.running import APP_NAME  # noqa: PLC0415
    from vault_ray.actors.serve.stopping import shutdown_serve  # noqa: PLC0415

    if own_ray and served:  # (Serve never started in our own Ray: nothing to stop, and no "Nothing to shut down" line)
        shutdown_serve()  # waits for Serve's controller to end, without Ray's line about its end (stopping.py)
    elif served:
        with contextlib.suppress(Exception):  # Serve's own error when it never started
            ray_serve.delete(APP_NAME)
            if not ray_serve.status().applications:  # Serve holds no other app: its proxy would keep the port
                shutdown_serve()
    if created and ray.is_initialized():
        with contextlib.suppress(ClusterError):  # nothing was created (a bad --store, say)
            shutdown(namespace=namespace)
    if own_ray:  # its processes gone: they write to the session directory removed at exit
        ray.shutdown(wait_for_processes=True)


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    return stop


def _ray_address(address: str | None, namespace: str) -> str:
    """The address other processes on this machine join the Ray this command started with
    (its GCS port on 127.0.0.1, as `vault-ray up` prints its head's: the GCS listens on every
    interface, and a loopback address gets this machine's Ray token), recorded beside the
    store (STORE/cluster.json, as `up` records its own) so that a job refused the store
    names it; the record goes when the store's actors stop."""
    import ray  # noqa: PLC0415

    from vault_ray.actors import attach  # noqa: PLC0415

    port = ray.get_runtime_context().gcs_address.rpartition(":")[2]
    joined = f"127.0.0.1:{port}"
    attach(address, namespace=namespace).note_head({"address": joined, "namespace": namespace, "by": "serve"})
    return joined


def _announce(url: str, store: str, token_file: Path, address: str | None, namespace: str) -> None:
    active = [t for t in TokenStore(token_file).list() if t.active]
    quoted = shlex.quote(str(token_file))
    ray_line = ([f"  Ray at {address}, namespace {namespace!r}: other commands join it with --address {address} "
                 f"--namespace {namespace} (e.g. vault-ray export --address {address} --namespace {namespace} --out DIR; "
                 "also reindex, normalize, get, ...)"] if address and address != "auto" else [])
    for line in (
        f"[green]vault-ray serves[/green] {store} at {url}",
        f"  API docs: {url}/docs · OpenAPI: {url}/openapi.json · metrics: {url}/metrics",
        f"  tokens: {token_file} ({len(active)} active); make one with: vault-ray token add AGENT --tokens {quoted}",
        f"  inbox: {url}/inbox (sign in with a resolver token: vault-ray token add NAME --role resolver --tokens {quoted})",
        *ray_line,
        "  Ctrl-C stops it",
    ):
        console.print(line, highlight=False, soft_wrap=True)


def _token_store(store: str | None, tokens: str | None, *, existing: bool = False) -> TokenStore:
    """`existing` (list, revoke): a --tokens FILE that is not there is a typo, not a file with no tokens."""
    if tokens:
        not_a_directory(tokens, "--tokens", "token")
        if existing and not Path(tokens).exists():
            raise NotFound(f"no token file at {tokens} (`vault-ray token add AGENT --tokens FILE` makes one)")
        return TokenStore(tokens)
    if store:
        require_store(store)
        return TokenStore.for_store(store)
    raise InvalidInput("give --store PATH (its tokens.json) or --tokens FILE")


def add(agent: str = typer.Argument(..., help="The agent name the token's writes carry."),
        admin: bool = typer.Option(False, "--admin", help="An admin token (resolve disputes, change policy)."),
        role: str = typer.Option(None, "--role", help="agent (default), resolver (may also settle disputes: the "
                                 "inbox page) or admin."),
        store: str = STORE, tokens: str = TOKENS) -> None:
    """Make a token for AGENT and print it (once: only its hash is kept)."""
    if admin and role not in (None, "admin"):
        raise InvalidInput(f"--admin and --role {role} disagree")
    chosen = "admin" if admin else role or "agent"
    check_name(agent), role_rank(chosen)  # bad input is said before the store or file is looked for
    token, record = _token_store(store, tokens).add(agent, chosen)
    typer.echo(token)
    typer.echo(f"token {record.id} for {record.agent} ({record.role})", err=True)


def list_tokens(store: str = STORE, tokens: str = TOKENS,
                as_json: bool = typer.Option(False, "--json", help="As JSON (never the secret nor its hash).")) -> None:
    """List the tokens: id, agent, role, when made, when revoked (never the secret)."""

    def when(ts: float | None) -> str:
        return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%SZ")

    found = _token_store(store, tokens, existing=True).list()
    if as_json:
        typer.echo(json.dumps([{"id": r.id, "agent": r.agent, "role": r.role, "created_at": iso(r.created_at),
                                "revoked_at": iso(r.revoked_at)} for r in found], indent=1, ensure_ascii=False))
        return
    t = Table(title="tokens")
    id_column(t, "id", [r.id for r in found])
    for col in ("agent", "role", "created", "revoked"):
        t.add_column(col)
    for r in found:
        t.add_row(r.id, r.agent, r.role, when(r.created_at), when(r.revoked_at))
    print_table(t)


def revoke(id_or_agent: str = typer.Argument(..., help="A token id, or an agent name (all its tokens)."),
           store: str = STORE, tokens: str = TOKENS) -> None:
    """Revoke a token by id, or every token of an agent; a running server refuses it at once."""
    for r in _token_store(store, tokens, existing=True).revoke(id_or_agent):
        console.print(f"revoked {r.id} ({r.agent}, {r.role})", highlight=False)
