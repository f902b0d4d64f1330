"""Reaching a running cluster-mode store: `join` (what `Vault.connect` calls) and the
Ray connection it needs. Creating a store's actors is `vault_ray.actors.connect`
(or `vault-ray up`); this side needs only their names."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
from pathlib import Path
from typing import Any

import ray

from vault_ray.storage.layout import REINDEX_HINT, recorded_head

from ..embedders import Embedder
from ..errors import ClusterError, StoreMismatch
from . import head_auth, ray_session
from .cluster import RETRY_TIMEOUT_S, ClusterBackend
from .ray_calls import _get, _Retry
from .routing import CONTROL_NAME

TOKEN_LOGGER = "ray._private.authentication.authentication_token_setup"
TOKEN_NOTICE = "Token authentication is enabled for this Ray cluster"


class _NoTokenNotice(logging.Filter):
    """Drops Ray's "Token authentication is enabled for this Ray cluster. Set RAY_AUTH_MODE=disabled
    to opt out" notice: printed on every join and local start, it asks nothing of the user but
    suggests turning security off. Ray's other warnings (token authentication *disabled*, a missing
    token) still print, and token authentication itself is untouched."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(TOKEN_NOTICE)


def quiet_token_notice() -> None:
    """Filter Ray's token-authentication notice (once per process; see `_NoTokenNotice`)."""
    logger = logging.getLogger(TOKEN_LOGGER)
    if not any(isinstance(f, _NoTokenNotice) for f in logger.filters):
        logger.addFilter(_NoTokenNotice())


quiet_token_notice()  # every path to Ray in this package imports this module first


def ensure_ray(address: str | None = "auto", namespace: str = "vault", store: str | Path | None = None) -> None:
    """Connect this process to Ray unless it already is (then `address` is not
    looked at: a process talks to one Ray cluster). `address=None` or "local" starts
    a private Ray instance in this process (a notebook, a single machine). "auto":
    the one Ray cluster running on this machine (`one_ray_here`; `store`, when given,
    names the address its `vault-ray up` recorded in the error). A failure is one
    ClusterError (`init_ray`), in seconds when nothing (or no Ray) answers at the address."""
    if ray.is_initialized():
        return
    address = from_environment(address)
    if address == "auto":
        one_ray_here(store)
    options: dict[str, Any] = {"namespace": namespace, "logging_level": logging.WARNING, "log_to_driver": False}
    if address in (None, "local"):
        init_ray("local", include_dashboard=False, **options)
    else:
        init_ray(address, advice=JOIN_ADVICE, **options)


JOIN_ADVICE = ("Check the address (`vault-ray up` prints it: HOST:PORT of the Ray head, not the HTTP port of "
               "`vault-ray serve`) and that the cluster runs; to start one: `vault-ray up --store PATH`")


def init_ray(address: str | None, *, advice: str | None = None, **options: Any) -> None:
    """`ray.init(address=...)` ("local" or None: a Ray started in this process), with a failure as
    one ClusterError that says what failed and what to do (`advice`, when given, replaces the
    command-line advice), not Ray's traceback: a busy machine can time a local Ray's start-up out
    ("The current node timed out during startup"), a temporary directory may not be writable,
    nothing may answer at an address, or something that is no Ray cluster (`prepare_address`
    finds both in seconds; Ray would retry for minutes). `Vault.connect`, `vault-ray serve`,
    the bulk jobs and `eval` start or join Ray through it."""
    local = address in (None, "local")
    try:
        if not local:
            address = prepare_address(address)  # type: ignore[arg-type]
        _ray_init(address=address or "local", **options)
        if local:
            ray_session.note_started()  # its session directory: removed at exit when the caller asks
    except ClusterError:  # said already (a token authentication mismatch)
        with contextlib.suppress(Exception):
            ray.shutdown()
        raise
    except Exception as exc:  # noqa: BLE001  (Ray raises bare Exception for a start-up timeout)
        with contextlib.suppress(Exception):  # what a half-done start left running
            ray.shutdown()
        said = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if local:
            raise ClusterError(f"Ray could not start on this machine ({type(exc).__name__}: {said}); nothing was "
                               "changed. " + (advice or "Retry (a busy machine can make Ray's start-up time out; "
                               "check RAY_TMPDIR is a writable directory), or pass --address of a running Ray "
                               "cluster (`vault-ray up`, `ray start --head`)")) from exc
        raise ClusterError(f"cannot join the Ray cluster at {address!r} ({type(exc).__name__}: {said}); nothing "
                           "was changed. " + (advice or "Check the address (`vault-ray up` prints it) and that the "
                           "cluster runs, or leave --address out to start Ray on this machine")) from exc


HOLDS_SIGTERM = "vault_ray_holds_sigterm"
"""The attribute (True) of a SIGTERM handler that `ray.init` must not replace (cli/common.py `resumable`)."""


def _ray_init(**options: Any) -> None:
    """`ray.init`, which installs Ray's own SIGTERM handlers (exit; a Ray started here: stop its
    processes and exit 1; and a fault handler that dumps the stack and aborts). A handler this
    process holds for SIGTERM (marked HOLDS_SIGTERM: a bulk job's, which ends it as Ctrl-C does)
    is put back after, in Python and for the process, and the Ray processes started here get a
    process group of their own (`_apart`); Ray's processes still stop at exit. (A SIGTERM during
    the start-up itself still meets Ray's: blocking it meanwhile would leave it blocked in the
    processes Ray starts.)"""
    main = threading.current_thread() is threading.main_thread()
    held = signal.getsignal(signal.SIGTERM) if main else None
    holds = getattr(held, HOLDS_SIGTERM, False)
    try:
        with _apart() if holds else contextlib.nullcontext():
            ray.init(**options)
    finally:
        if holds:
            signal.signal(signal.SIGTERM, held)


@contextlib.contextmanager
def _apart() -> Any:
    """The processes `ray.init` starts (GCS, raylet and their helpers) in a process group of their
    own, so that a SIGTERM to the job's group (`kill -TERM -PGID`, a supervisor's group stop) reaches
    the job alone: it stops as Ctrl-C stops it, and its Ray stops with it (at exit, and by the
    parent-death signal Ray sets). Without this the raylet could die first and Ray's driver
    ends the process with exit 1 at its next raylet call, before the job's handler runs. (Ray
    already keeps SIGINT from them; a signal to every process of a cgroup still reaches them.)"""
    try:
        from ray._private import services  # noqa: PLC0415
    except ImportError:  # another Ray: started as it starts them
        yield
        return
    popen = services.ConsolePopen

    class Apart(popen):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("process_group", 0)
            super().__init__(*args, **kwargs)

    services.ConsolePopen = Apart
    try:
        yield
    finally:
        services.ConsolePopen = popen


PASS_ADDRESS = ("pass the address `vault-ray up` printed: `Vault.connect('HOST:PORT', namespace=...)`, "
                "`--address HOST:PORT` on the command line (or RAY_ADDRESS=HOST:PORT)")


def from_environment(address: str | None) -> str | None:
    """"auto" with RAY_ADDRESS set is that address, joined exactly as when it is given (this
    machine's token sent to a head on 127.0.0.1: Ray sends it for neither); any other address
    (or None) as it is."""
    named = os.environ.get("RAY_ADDRESS", "").strip()
    return named if address == "auto" and named else address


def one_ray_here(store: str | Path | None = None) -> None:
    """Before joining "auto": ClusterError when several Ray clusters run on this machine (a shared
    host, a test's Ray beside `vault-ray up`'s). Ray would pick one of them (the last `ray start`)
    and could attach to another user's; an address names the one meant. RAY_ADDRESS, when set,
    is that address (Ray reads it instead of "auto")."""
    if os.environ.get("RAY_ADDRESS"):
        return
    try:
        from ray._private.services import find_gcs_addresses  # noqa: PLC0415
    except ImportError:  # another Ray: it finds its cluster itself
        return
    find_gcs_addresses.cache_clear()  # Ray caches what it found: the clusters running now
    running = sorted(find_gcs_addresses())
    if len(running) > 1:
        head = recorded_head(store) if store is not None else None
        theirs = f" (`vault-ray up` recorded {str(store)!r}'s at {head})" if head else ""
        raise ClusterError(f"address 'auto' is ambiguous: {len(running)} Ray clusters run on this machine "
                           f"({', '.join(running)}) and 'auto' could join another one's; {PASS_ADDRESS}{theirs}")


def no_store_here(namespace: str, *, address: str | None = None, create: str = "") -> ClusterError:
    """No control actor serves `namespace` in the Ray cluster this process joined: which cluster
    that is (the `address` given, and Ray's own name for it when that differs), the namespaces
    where it does serve a store, and what to do."""
    try:
        here = cluster_named(address, ray.get_runtime_context().gcs_address)
        served = sorted({a["namespace"] for a in ray.util.list_named_actors(all_namespaces=True)
                         if a["name"] == CONTROL_NAME})
    except Exception:  # noqa: BLE001  (only a better message is at stake)
        here, served = "", []
    elsewhere = (f" (it serves vault-ray stores in namespace(s) {', '.join(map(repr, served[:5]))}"
                 f"{', ...' if len(served) > 5 else ''}: pass namespace=, or --namespace on the command line)"
                 if served else "")
    return ClusterError(f"no vault-ray cluster serves namespace {namespace!r}{here}{elsewhere}; to join a store "
                        f"`vault-ray up` started, {PASS_ADDRESS}; to start one: `vault-ray up --store PATH`{create}")


def cluster_named(address: str | None, joined: str | None) -> str:
    """" on the Ray cluster at 127.0.0.1:6379 (Ray's name for it: 10.0.0.5:6379)": the cluster as the
    user named it, which they can act on, and as Ray names it (the head's address on its network)
    when that differs, or when this process was joined to a cluster before (`ensure_ray`)."""
    address = from_environment(address)  # "auto" with RAY_ADDRESS set: that address
    if not joined:
        return ""
    if address is None:  # not known here (the delivery actor, inside the cluster)
        return f" on the Ray cluster at {joined}"
    if address == "local":
        return f" on the Ray started in this process ({joined})"
    if address == "auto":
        return f" on the Ray cluster at {joined} (the one address 'auto' found)"
    return f" on the Ray cluster at {address}" + ("" if address == joined else f" (Ray's name for it: {joined})")


def prepare_address(address: str) -> str:
    """Before `ray.init(address=...)`: fail in seconds when nothing answers, and join the head as it
    runs (`head_auth`): this machine's token sent to a head on this machine that asks for one (what
    `ensure_ray` does; the bulk jobs too), none to a head without token authentication, and a
    RAY_AUTH_MODE that contradicts the head a ClusterError. Returns the address to pass to
    `ray.init`: the one given, or for "auto" the head's own when it must be joined without a token
    (for "auto" Ray would send this machine's)."""
    address = from_environment(address) or address
    target = _auto_address() if address == "auto" else address
    if target is None:  # another Ray: it finds its cluster itself
        return address
    _check_reachable(target)
    host, _, port = target.rpartition(":")
    probe = not target.startswith("ray://") and bool(host) and port.isdigit() and not _uses_tls()
    asks = head_auth.asks_for_token(target) if probe else None
    plain = head_auth.match_head(target, local=address == "auto" or _is_loopback(target), asks=asks)
    return target if plain else address


def _auto_address() -> str | None:
    """The address Ray takes for "auto": the last `ray start` here, whose file `vault-ray down`
    (or a crash) leaves behind, pointing at a head that may be gone (ConnectionError when there
    is none); None for another Ray."""
    try:
        from ray._private.services import get_ray_address_from_environment  # noqa: PLC0415
    except ImportError:
        return None
    return get_ray_address_from_environment("auto", None) or ""  # type: ignore[no-any-return]


def _check_reachable(address: str) -> None:
    """Fail in a second, not after Ray's minutes of reconnecting, when nothing listens at
    `address` (for "auto": `_auto_address`)."""
    host, _, port = address.rpartition(":")
    if address.startswith("ray://") or not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5) as conn:
            answer = None if _uses_tls() else _http2_answer(conn)
    except OSError as exc:
        raise ConnectionError(f"nothing answers at {address} ({exc.strerror or exc})") from exc
    if answer is not None and answer[3:4] != b"\x04":  # no HTTP/2 SETTINGS frame: no gRPC server
        said = ("it sends no reply to a gRPC client" if not answer else
                "it answers HTTP/1, as a web server does" if answer.isascii() else "it answers, but not as gRPC does")
        raise ConnectionError(f"something listens at {address}, but no Ray cluster: {said}")


GCS_ANSWER_S = 10.0
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS


def _http2_answer(conn: socket.socket) -> bytes:
    """The first 9 bytes the server at `conn` sends back to an HTTP/2 client's preface (fewer if it
    closes or stays silent for GCS_ANSWER_S). A Ray head's GCS, a gRPC server, answers at once
    with a SETTINGS frame (type 4, its 4th byte); a web server answers "HTTP/1.1 400"; a port
    that is no Ray's at all may say nothing, where `ray.init` would wait for minutes."""
    conn.settimeout(GCS_ANSWER_S)
    conn.sendall(HTTP2_PREFACE)
    got = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while len(got) < 9 and (chunk := conn.recv(9 - len(got))):
            got += chunk
    return got


def _uses_tls() -> bool:
    """Ray's gRPC runs over TLS (RAY_USE_TLS): the plain HTTP/2 probe does not apply."""
    return os.environ.get("RAY_USE_TLS", "0").strip().lower() not in ("", "0", "false", "no")


def _is_loopback(address: str) -> bool:
    host = address.removeprefix("ray://").rsplit(":", 1)[0]
    return host in ("127.0.0.1", "localhost", "::1", "[::1]")


def find_control(namespace: str) -> Any | None:
    """The control actor serving `namespace`, or None."""
    try:
        return ray.get_actor(CONTROL_NAME, namespace=namespace)
    except ValueError:
        return None


def control_info(handle: Any) -> dict[str, Any]:
    """The control actor's settings, or the error that stopped its creation (as a value)."""
    try:
        return _get(handle.info.remote(), timeout=RETRY_TIMEOUT_S + 60)  # type: ignore[no-any-return]
    except _Retry as exc:
        raise ClusterError(f"the vault-ray control actor is not available: {exc}") from None


def backend_of(namespace: str, address: str | None = None) -> ClusterBackend:
    """The backend of the running cluster in `namespace`, without an embedder (operations
    and the event stream only); ClusterError if none serves it (naming the `address` given),
    or the error its creation stopped on."""
    handle = find_control(namespace)
    if handle is None:
        raise no_store_here(namespace, address=address)
    info = control_info(handle)
    if info["error"] is not None:
        raise info["error"]
    return ClusterBackend(handle, info)


def join(address: str | None = "auto", *, namespace: str = "vault", store: str | Path | None = None,
         partitions: int | None = None, embedder: Embedder, retry_timeout: float = RETRY_TIMEOUT_S) -> ClusterBackend:
    """The backend of the store served in `namespace`. Checks that `store`, `partitions`
    and the embedder, when given, match the store's."""
    ensure_ray(address, namespace, store)
    handle = find_control(namespace)
    if handle is None:
        raise no_store_here(namespace, address=address, create=" (or vault_ray.actors.connect(store=PATH) in Python)")
    info = control_info(handle)
    if info["error"] is not None:
        raise info["error"]
    check_join(info, store=store, partitions=partitions, embedder=embedder, namespace=namespace)
    finish_erasures_soon(handle)
    return ClusterBackend(handle, info, retry_timeout=retry_timeout)


def finish_erasures_soon(handle: Any) -> None:
    """A client joins: the control actor finishes, meanwhile, any erasure a dead client left half
    done (the owner shard's part done, the other shards' not: engine/erase.py). Not waited for."""
    handle.finish_erasures.remote()


def check_join(info: dict[str, Any], *, store: str | Path | None, partitions: int | None, embedder: Embedder | None,
               namespace: str) -> None:
    served = info["store"]
    if store is not None and str(Path(store).expanduser().resolve()) != served:
        raise ClusterError(f"namespace {namespace!r} already serves the store {served!r}, not {str(store)!r}; "
                           "use another namespace for another store")
    if partitions is not None and partitions != info["partitions"]:
        raise StoreMismatch(f"store {served!r} has {info['partitions']} partitions, not {partitions} "
                            "(the partition count is fixed when a store is created)", path=served)
    if embedder is not None and (embedder.dim != info["dim"] or embedder.name != info["embedder"]):
        raise StoreMismatch(f"store {served!r} was written with the {info['embedder']!r} embedder "
                            f"({info['dim']} dimensions), not {embedder.name!r} ({embedder.dim}); "
                            f"vectors from different embedders are not comparable. {REINDEX_HINT}", path=served)
