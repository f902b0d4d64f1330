"""What every `vault-ray` command shares: the console, the options naming a store,
opening a vault, and the mapping of the error tree to exit codes (2 bad input,
3 not found, 4 store or cluster problem, 1 anything else of ours)."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import logging
import re
import shlex
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from vault_ray.storage.layout import read_meta

from ..backends import ray_session
from ..backends.unfinished import UnfinishedRestoreWarning
from ..embedders import HashingEmbedder, LocalEmbedder
from ..errors import (
    ClusterError,
    DisputeError,
    InvalidInput,
    NotFound,
    StoreError,
    StoreLocked,
    StoreMismatch,
    VaultError,
)
from ..models import EPOCH_TEXT, as_utc
from ..texts import shown
from ..vault import Vault
from ..wire import encode
from .names import as_typed, command_line_names

console = Console()
err_console = Console(stderr=True)  # errors and notices: stdout stays the answer (`X=$(vault-ray ...)`)
F = TypeVar("F", bound=Callable[..., Any])

STORE = typer.Option(None, "--store", "-s", help="Path of an embedded store.")
ADDRESS = typer.Option(None, "--address", help="Ray address of a cluster-mode store: the one `vault-ray up` printed "
                       "('auto': the only Ray cluster on this machine).")
NAMESPACE = typer.Option("vault", "--namespace", help="Ray namespace of the cluster-mode store.")
HASHING = typer.Option(False, "--hashing", help="Use the deterministic hashing embedder instead of the local model.")
JSON = typer.Option(False, "--json", help="Print JSON data (as the HTTP API sends it: times in ISO 8601 UTC).")
AS_OF = typer.Option(None, "--as-of", help="Answer as the store stood at this time (ISO 8601, e.g. 2026-05-01T12:00:00Z, "
                                           "or epoch seconds, e.g. 1777636800).")


def print_json(obj: Any) -> None:
    """`obj` (models, lists of them) as the HTTP API encodes it, on stdout."""
    typer.echo(json.dumps(encode(obj), indent=2, ensure_ascii=False))


def iso(ts: float | None) -> str | None:
    """Epoch seconds as --json writes times (ISO 8601 UTC, "Z"), None for none."""
    return None if ts is None else encode(datetime.fromtimestamp(ts, UTC))


def print_table(table: Table) -> None:
    """A table on stdout. Piped (a log, `| grep`, no terminal to fit) it is printed at its natural
    width: no cell cut to "…" and no column wrapped, so the ids it shows can be copied whole."""
    if console.is_terminal:
        console.print(table)
        return
    natural = Measurement.get(console, console.options.update(max_width=1 << 16), table).maximum
    Console(width=max(natural, console.width), highlight=False).print(table)


def id_column(table: Table, header: str, ids: list[str]) -> None:
    """A column of ids the user types next (`webhook remove ID`): never wrapped nor cut, on a terminal too."""
    table.add_column(header, no_wrap=True, overflow="ignore", min_width=max((len(i) for i in ids), default=len(header)))


def parse_time(value: str | None) -> datetime | None:
    """--as-of: ISO 8601 or epoch seconds, as `Vault.get(as_of=...)` and HTTP's `as_of` take it."""
    return None if value is None else time_from_text(value, field_name="--as-of")


def exit_code(exc: VaultError) -> int:
    if isinstance(exc, InvalidInput) or (isinstance(exc, DisputeError) and (exc.winner is not None or exc.keep_both)):
        return 2  # bad input; a winner that is no claim of its dispute, or --keep-both of a 'one' entity, too
    if isinstance(exc, NotFound):
        return 3
    if isinstance(exc, StoreError | ClusterError):
        return 4
    return 1


RAY_DATA_RETRIES = re.compile(r"\nFailed to .* attempts \(total backoff ")
"""Where Ray Data's note on its retries begins, which it appends to a failed task's error message."""


def handle_errors(fn: F, *, as_options: bool = True) -> F:
    """One line on stderr and an exit code for every error of the tree, naming the command's
    options where the library's message names a Python parameter (names.py; not `as_options`:
    a command whose settings also come from a file, whose keys are those names)."""
    names = command_line_names(fn) if as_options else {}

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VaultError as exc:
            cause = getattr(exc, "cause", None)  # a Ray task's error (quiet_ray_data): what the task raised
            exc = cause if isinstance(cause, VaultError) else exc
            said = RAY_DATA_RETRIES.split(str(exc), maxsplit=1)[0] if cause is exc else str(exc)
            print_error(as_typed(said, names))
            raise typer.Exit(exit_code(exc)) from None

    return wrapper  # type: ignore[return-value]


def print_error(said: str) -> None:
    """`error: ...` on stderr, in one line however long (a log keeps it whole; a terminal wraps it)."""
    err_console.print(f"[red]error:[/red] {escape(said)}", highlight=False, soft_wrap=True)


def removes_ray_session(fn: F, *, what: str = "job") -> F:
    """A command that may start Ray in this process (a job; `serve --store`, what="service"): the
    session directory that Ray leaves behind (/tmp/ray/session_*) is removed when the process ends
    (backends/ray_session.py), only that one and only of a Ray started here. One that fails with an
    error keeps it and says where on stderr (Ray's logs help a bug report); one that completes, is
    interrupted, or is refused a store another process holds (StoreLocked: the store's actors found
    it taken after Ray started, past the check made before it) does not. Put it inside `handle_errors`
    (which turns the errors into exit codes) and outside `stopped`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ray_session.remove_at_exit()
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, StoreLocked):  # done (exit 0, 1 for refused claims), interrupted (130, 143), refused
            raise
        except Exception as exc:
            cause = getattr(exc, "cause", None)  # a Ray task's error: what the task raised
            ray_session.keep(f"the {what} failed: {type(cause if isinstance(cause, Exception) else exc).__name__}")
            raise

    return wrapper  # type: ignore[return-value]


def quiet_ray_data(ctx: Any) -> None:
    """A job's Ray Data context (`ray.data.DataContext`): no progress bars of Ray's (the job's own bar
    reports progress), no log lines of a failed task (the job prints one error line), and a task's own
    error raised as itself, not wrapped in Ray Data's UserCodeException: a store or embedder error (an
    unreachable embedding service) reaches `handle_errors` as that error."""
    ctx.enable_progress_bars = False
    ctx.raise_original_map_exception = True
    logging.getLogger("ray.data").setLevel(logging.CRITICAL)


RESUMES = "the store is whole; run the same command again to resume or start over"
INTERRUPTED = f"interrupted: {RESUMES}"
STOP_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
"""A job stopped by Ctrl-C (SIGINT) exits 130, by SIGTERM (`kill`, `timeout`, systemd, Kubernetes) 143."""


def stopped(message: str) -> Callable[[F], F]:
    """A long command's Ctrl-C or SIGTERM: `message` in one line and exit code 130 (143 for
    SIGTERM), not the traceback of whatever the signal cut (DuckDB answers it with 'Query
    interrupted', then an aborted transaction) nor Ray's fault handler (Ray's SIGTERM handlers
    are kept off: backends/connect.py `_ray_init`). A Ray started here stops as the process exits."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with stop_on_signals() as asked:
                try:
                    return fn(*args, **kwargs)
                except (KeyboardInterrupt, Exception) as exc:
                    if not (asked or isinstance(exc, KeyboardInterrupt)) or isinstance(exc, typer.Exit):
                        raise
                    err_console.print(message, highlight=False, soft_wrap=True)
                    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: on to the exit at once
                        settle_ray_data()
                    raise typer.Exit(STOP_CODES[asked[0] if asked else signal.SIGINT]) from None

        return wrapper  # type: ignore[return-value]

    return wrap


RAY_DATA_WAIT_S = 10.0
"""How long a stopped job waits for the Ray Data threads of the run it cut short, at most."""
RAY_DATA_THREADS = ("map_tp_", "iter_threaded", "Prefetcher", "ray-data-metadata-prefetch")
"""The names of the threads a Ray Data iterator starts (Ray 2.60) that call Ray until they stop."""


def settle_ray_data(wait_s: float = RAY_DATA_WAIT_S) -> None:
    """After a stop: the Ray Data threads of the run it cut short (the streaming executor and the
    iterator's prefetch threads: daemon threads nobody joins) stopped and waited for, at most
    `wait_s`. One of them still calling Ray after the process's Ray shut down at exit makes Ray end
    the process with exit code 1 ("The core worker has already been shutdown") instead of 130/143."""
    if "ray.data" not in sys.modules:
        return
    sys.unraisablehook = _quiet_ray_data_del(sys.unraisablehook)
    gc.collect()  # the abandoned iterators closed: their prefetch threads are told to stop
    try:
        from ray.data._internal.execution.streaming_executor import StreamingExecutor  # noqa: PLC0415
    except ImportError:  # another Ray: nothing known to wait for
        return
    ours = [t for t in threading.enumerate() if t is not threading.current_thread()
            and (isinstance(t, StreamingExecutor) or t.name.startswith(RAY_DATA_THREADS))]
    for thread in ours:
        # a Prefetcher thread parks until its owner is stopped (the thread holds the owner: no __del__ stops it)
        owner = getattr(getattr(thread, "_target", None), "__self__", None)
        stop = (functools.partial(thread.shutdown, force=True) if isinstance(thread, StreamingExecutor)
                else getattr(owner, "stop", None))
        if callable(stop):
            with contextlib.suppress(Exception):  # already stopped, or stopping
                stop()
    deadline = time.monotonic() + wait_s
    for thread in ours:
        thread.join(max(0.0, deadline - time.monotonic()))


def _quiet_ray_data_del(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`hook`, silent on a Ray Data `__del__` failing after a stop (a dataset the signal cut in its making has no
    '_current_executor'): Python would print its traceback after the stop's one line."""
    return lambda u: None if (getattr(u.object, "__module__", None) or "").startswith("ray.data") and getattr(
        u.object, "__name__", "") == "__del__" else hook(u)


def resumable(fn: F, then: str = RESUMES) -> F:
    """A bulk job's Ctrl-C or SIGTERM (`stopped`): "interrupted: " and `then`, which must be true of the
    job: the jobs are crash-safe (the store is whole), and the same command resumes or starts again (an
    export removes what it wrote, an import resumes a restore)."""
    return stopped(f"interrupted: {then}")(fn)


@contextmanager
def stop_on_signals() -> Iterator[list[int]]:
    """SIGINT and SIGTERM raise KeyboardInterrupt in the main thread while the block runs (each
    handler is put back after); yields the signals received, in order. The SIGTERM handler is
    marked to outlive `ray.init` (HOLDS_SIGTERM)."""
    asked: list[int] = []
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield asked
        return
    previous = {s: signal.getsignal(s) for s in STOP_CODES}

    def on_signal(signum: int, frame: Any) -> None:
        asked.append(signum)
        before = previous[signal.Signals(signum)]
        if signum == signal.SIGINT and callable(before):
            before(signum, frame)  # Python's own: KeyboardInterrupt
        raise KeyboardInterrupt

    setattr(on_signal, "vault_ray_holds_sigterm", True)  # noqa: B010  (backends.connect.HOLDS_SIGTERM: no Ray here)
    for s in STOP_CODES:
        signal.signal(s, on_signal)
    try:
        yield asked
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


@contextmanager
def open_vault(store: str | None, address: str | None, namespace: str = "vault", hashing: bool = False, *,
               create: bool = False, announce: bool = False) -> Iterator[Vault]:
    """The store a command works on. Only commands that write (`create`) make a new one:
    a read of a path that holds no store (a typo) is an error, not an empty store. `announce`:
    say so on stderr when a new store was made (a policy command on a mistyped path would
    otherwise look as if it had changed the store the user meant)."""
    if store and not address and not create:
        require_store(store)
    fresh = bool(store and not address and create and announce and read_meta(store) is None)
    embedder = hashing_embedder(store, address, namespace) if hashing else LocalEmbedder()
    if not address and not store:
        raise InvalidInput("give --store PATH (embedded) or --address ADDR (cluster mode)")
    with warned_on_stderr():  # a store whose restore is unfinished: reads partial, writes refused
        vault = (Vault.connect(address, namespace=namespace, embedder=embedder) if address
                 else Vault.open(store, embedder=embedder))
    if fresh:
        err_console.print(f"note: there was no vault-ray store at {store}: made a new, empty one with this setting "
                          f"(check the path if you meant an existing store)", highlight=False)
    try:
        yield vault
    finally:
        vault.close()


@contextmanager
def warned_on_stderr() -> Iterator[None]:
    """Our warnings of the block (`UnfinishedRestoreWarning`: the store's restore is unfinished)
    said in one line each on stderr, as "warning: ..."; any other warning goes on as it came."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnfinishedRestoreWarning)
        yield
    for w in caught:
        if issubclass(w.category, UnfinishedRestoreWarning):
            err_console.print(f"[yellow]warning:[/yellow] {escape(str(w.message))}", highlight=False, soft_wrap=True)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def require_store(store: str) -> None:
    """A store that exists: a read of a path that holds none (a typo) is an error, not an
    empty store, and neither is a token or webhook file in a directory that is no store."""
    if Path(store).exists() and not Path(store).is_dir():
        raise StoreError(f"{store!r} is a file, not a store directory")
    if read_meta(store) is None:
        raise NotFound(f"no vault-ray store at {store} (it has no vault.json). Commands that write, such as "
                       f"`vault-ray chat --store {shlex.quote(store)} --agent NAME`, create one; so does Vault.open in Python.")


def made_with_hashing(store: str | None) -> bool:
    """Whether an embedded store's vectors are the hashing embedder's (a command that only
    reads settings opens it so: no model to load, no --hashing to remember)."""
    meta = read_meta(store) if store else None
    return meta is not None and meta.embedder.startswith("hashing-")


def hashing_embedder(store: str | None, address: str | None, namespace: str) -> HashingEmbedder:
    """--hashing: the hashing embedder of the store's size (a reindex may have changed it from
    384), read from an embedded store's vault.json or, with --address, from the cluster's control
    actor; a new store gets 384. A store on another embedder is refused with what to do instead."""
    if address:
        served = _served_embedder(address, namespace)
        where = f"the store served in namespace {namespace!r}"
    else:
        meta = read_meta(store) if store else None
        served = None if meta is None else (meta.embedder, meta.dim)
        where = f"store {store!r}"
    if served is None or served[0].startswith("hashing-"):
        return HashingEmbedder(384 if served is None else served[1])
    name, dim = served
    instead = ("leave --hashing out (the local model opens it)" if name == LocalEmbedder().name else
               "the command line opens stores of the local model or the hashing embedder: move it to one with "
               f"`vault-ray reindex {'--address ADDR' if address else '--store PATH'} --embedder local|hashing`")
    raise StoreMismatch(f"{where} was written with the {name!r} embedder ({dim} dimensions), not the hashing one "
                        f"that --hashing asks for; {instead}", path=store)


def _served_embedder(address: str, namespace: str) -> tuple[str, int] | None:
    """(embedder name, dimension) of the cluster-mode store served in `namespace` at `address`, as
    its control actor says; None when no store is served there (joining gives that error)."""
    from ..backends.connect import control_info, ensure_ray, find_control  # noqa: PLC0415  (Ray when used)

    ensure_ray(address, namespace)
    handle = find_control(namespace)
    info = control_info(handle) if handle is not None else None
    return None if info is None or info["error"] is not None else (info["embedder"], info["dim"])


def check_out_dir(out: Path, *, empty: bool = False) -> None:
    """--out names a directory or a path one can be made at: a file there (or above it) is refused
    before Ray starts, not after the whole job with a traceback, alike on every command that
    writes into a directory (export, normalize, eval); `empty`: one that holds files too (export)."""
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                raise InvalidInput(f"--out {str(out)!r}: {str(path)!r} is a file, not a directory")
            if empty and path == out and any(out.iterdir()):
                raise InvalidInput(f"--out {str(out)!r} is not an empty directory: give a new (or empty) one")
            return


def require_input(path: Path, what: str, hint: str = "") -> None:
    """A file or directory the user named for the command to read (a policy file, a merge plan,
    an export): one that is not there is "not found" (exit code 3), as a mistyped --store is."""
    if not path.exists():
        raise NotFound(f"no {what} at {str(path)!r}{hint}")


def not_a_directory(path: str, option: str, what: str) -> None:
    """A file option (`--tokens`, `--webhooks`) naming a directory: bad input (exit code 2), said before
    anything starts, as an `--out` that is a file is."""
    if Path(path).is_dir():
        raise InvalidInput(f"{option} {str(path)!r} is a directory, not a {what} file: name a file")


def time_from_text(text: str, *, field_name: str) -> datetime | None:
    """Text (a CLI option) as a time: epoch seconds (`EPOCH_TEXT`: 1e12 too) or ISO 8601, as every surface takes it."""
    if EPOCH_TEXT.fullmatch(text):
        return as_utc(float(text), field_name=field_name)
    try:
        return as_utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00")), field_name=field_name)
    except ValueError:
        raise InvalidInput(f"{field_name} must be an ISO 8601 time or epoch seconds, got {shown(text)}") from None
