"""`vault-ray events` (the event stream, once or `--follow`ing it) and `vault-ray
webhook add | list | remove | status` (webhook registrations, in the store's
webhooks.json, like tokens)."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.table import Table

from ..errors import InvalidInput, NotFound
from ..events import KINDS, NOW, START, VaultEvent
from ..webhooks import WebhookStore, check_registration
from ..wire import encode
from .common import (
    ADDRESS,
    HASHING,
    NAMESPACE,
    STOP_CODES,
    STORE,
    console,
    err_console,
    handle_errors,
    id_column,
    iso,
    not_a_directory,
    open_vault,
    print_table,
    require_store,
    stop_on_signals,
)

POLL_S = 0.5
KINDS_OPTION = typer.Option(None, "--kinds", help=f"Only these kinds, comma-separated: {', '.join(KINDS)}.")
ENTITY_OPTION = typer.Option(None, "--entity", help="Only this entity key or pattern (e.g. user.budget.*).")
webhook_app = typer.Typer(help="Webhooks told of events: add (prints its secret once), list, remove, status.",
                          no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command(help=events.__doc__)(handle_errors(events))
    for command in (add, list_webhooks, remove, status):
        webhook_app.command(name=command.__name__.replace("list_webhooks", "list"), help=command.__doc__)(
            handle_errors(command))
    app.add_typer(webhook_app, name="webhook")


def _kinds(kinds: str | None) -> list[str] | None:
    """--kinds as a list (None: left out, every kind); one that names no kind (",") is refused, as an
    empty one is, not read as every kind."""
    if kinds is None:
        return None
    found = [k.strip() for k in kinds.split(",") if k.strip()]
    if not found:
        raise InvalidInput(f"--kinds names no kind, got {kinds!r}: give {', '.join(KINDS[:2])}, ... or leave it out "
                           "for every kind")
    return found


def events(
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing events as they happen; Ctrl-C "
                                "(exit code 130) or SIGTERM (143) stops it and names the cursor to go on from."),
    since: str = typer.Option(None, "--since", help="A cursor, 'start' or 'now' (default: start, or now with --follow)."),
    kinds: str = KINDS_OPTION,
    needs_user: bool = typer.Option(False, "--needs-user", help="Only events of disputes waiting for a person."),
    entity: str = ENTITY_OPTION,
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line (with its cursor)."),
    url: str = typer.Option(None, "--url", help="Read from a running HTTP service (with --token)."),
    token: str = typer.Option(None, "--token", envvar="VAULT_RAY_TOKEN", help="Bearer token for --url (or VAULT_RAY_TOKEN)."),
    store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING,
) -> None:
    """Print the store's events (claims added and superseded, disputes opened, challenged
    and resolved); --follow keeps printing new ones. Every event has a cursor: --since
    CURSOR resumes right after it.

    --follow with --store keeps the store open, so other processes that open it get StoreLocked
    while it runs: to watch a store that agents write, follow a service (--url) or a cluster (--address)."""
    start = since or (NOW if follow else START)
    filters = {"kinds": _kinds(kinds), "needs_user": True if needs_user else None, "entity": entity}
    if url and not token:
        raise InvalidInput("--url needs --token (or VAULT_RAY_TOKEN)")
    stream = Stream()
    with stop_on_signals() if follow and url else nullcontext([]) as asked:  # a service's stream: Ctrl-C raises
        try:
            if url:
                _print(_from_service(url, token, start, follow, filters), as_json, stream)
            else:
                with open_vault(store, address, namespace, hashing) as vault:
                    _print(_from_vault(vault, start, follow, filters, stream), as_json, stream)
        except KeyboardInterrupt:
            if not follow:
                raise
            stream.signal = stream.signal or (asked[0] if asked else signal.SIGINT)
    if stream.signal is not None:
        err_console.print(stream.stopped(), highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(STOP_CODES[signal.Signals(stream.signal)])


@dataclass
class Stream:
    """Where a printed stream stands: the cursor it read up to (of the last event printed, or of
    the last page of a store, past events the filters left out) and the signal that stopped it."""

    cursor: str | None = None
    signal: int | None = None

    def stopped(self) -> str:
        how = "Ctrl-C" if self.signal == signal.SIGINT else "SIGTERM"
        if self.cursor is None:
            return f"stopped ({how}) before any event came"
        return f"stopped ({how}): --since {self.cursor} goes on after the last event read"


def _following(start: str, follow: bool) -> None:
    """With --follow, one line on stderr (stdout stays the events: `--json | jq`) once the store or
    service is open and the first read begins: from then on Ctrl-C stops cleanly (`events`)."""
    if follow:
        where = {NOW: "from now", START: "from the start"}.get(start, f"after cursor {start}")
        err_console.print(f"following events {where}; Ctrl-C stops", highlight=False, markup=False)


def _from_vault(vault, start: str, follow: bool, filters: dict,  # type: ignore[no-untyped-def]
                stream: Stream | None = None) -> Iterator[VaultEvent]:
    stream = stream or Stream()
    with _stopped_between_reads(follow, stream) as stop:
        _following(start, follow)
        cursor = start
        while not stop.is_set():
            page = vault.events(since=cursor, **filters)
            yield from page
            cursor = stream.cursor = page.cursor
            if not page.more:
                if not follow:
                    return
                stop.wait(POLL_S)


@contextmanager
def _stopped_between_reads(follow: bool, stream: Stream) -> Iterator[threading.Event]:
    """Following a store, Ctrl-C or SIGTERM asks the poll loop to stop between reads rather than
    raising inside one: an interrupted DuckDB read leaves an aborted transaction for the close to
    wait on. The signal is kept in `stream` (the exit code says which); a second one raises as usual."""
    stop = threading.Event()
    if not follow or threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_signal(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stream.signal = signum
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in STOP_CODES}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


def _from_service(url: str, token: str, start: str, follow: bool, filters: dict) -> Iterator[VaultEvent]:
    from ..client import VaultClient  # noqa: PLC0415

    with VaultClient(url, token) as client:
        _following(start, follow)
        if follow:
            yield from client.follow(start, **filters)
            return
        cursor = start
        while True:
            page = client.events(cursor, **filters)
            yield from page
            cursor = page.cursor
            if not page.more:
                return


def _print(found: Iterable[VaultEvent], as_json: bool, stream: Stream) -> None:
    for e in found:
        if as_json:
            typer.echo(json.dumps(encode(e), ensure_ascii=False))
        else:
            console.print(_line(e), highlight=False, markup=False, soft_wrap=True)  # one event, one line
        stream.cursor = e.cursor


def _line(e: VaultEvent) -> str:
    """One event of the table: a claim event names its claim (and the dispute it was decided in),
    a dispute event its dispute; whole ids, as `explain` and `resolve` take them."""
    who = f"by {e.decided_by} ({e.how})" if e.kind == "dispute_resolved" else e.agent or ""
    if e.kind.startswith("claim_"):
        ids = (e.claim_id or "") + (f" (dispute {e.dispute_id})" if e.dispute_id else "")
    else:
        ids = e.dispute_id or e.claim_id or ""
    flag = " NEEDS USER" if e.needs_user else ""
    return f"{e.ts:%Y-%m-%d %H:%M:%S} {e.kind:<18} {e.entity} {ids} {who}{flag}  {e.cursor}"


# -- webhooks ---------------------------------------------------------------------------------
WEBHOOKS = typer.Option(None, "--webhooks", help="The webhook file (default: STORE/webhooks.json).")


def _hooks(store: str | None, webhooks: str | None, *, existing: bool = False) -> WebhookStore:
    """`existing` (list, remove): a --webhooks FILE that is not there is a typo, not a file with no webhooks."""
    if webhooks:
        not_a_directory(webhooks, "--webhooks", "webhook")
        if existing and not Path(webhooks).exists():
            raise NotFound(f"no webhook file at {webhooks} (`vault-ray webhook add URL --webhooks FILE` makes one)")
        return WebhookStore(webhooks)
    if store:
        require_store(store)
        return WebhookStore.for_store(store)
    raise InvalidInput("give --store PATH (its webhooks.json) or --webhooks FILE")


def add(url: str = typer.Argument(..., help="Where to POST each event (http:// or https://)."),
        kinds: str = KINDS_OPTION,
        needs_user_only: bool = typer.Option(False, "--needs-user-only", help="Only disputes waiting for a person."),
        entity: str = ENTITY_OPTION,
        secret: str = typer.Option(None, "--secret", help="The signing secret (default: a new one, printed once)."),
        since: str = typer.Option(NOW, "--since", help="'now' (events from now on) or 'start' (the whole history first)."),
        store: str = STORE, webhooks: str = WEBHOOKS) -> None:
    """Register URL to be told of events; prints its signing secret (once) and its id."""
    check_registration(url, secret=secret, kinds=_kinds(kinds), entity=entity, since=since)  # before the file is looked for
    hook = _hooks(store, webhooks).add(url, secret=secret, kinds=_kinds(kinds), needs_user_only=needs_user_only,
                                       entity=entity, since=since)
    typer.echo(hook.secret)
    typer.echo(f"webhook {hook.id} -> {hook.url} (kinds: {', '.join(hook.kinds or ('all',))}"
               f"{', needs the user only' if hook.needs_user_only else ''})", err=True)


def _when(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def list_webhooks(store: str = STORE, webhooks: str = WEBHOOKS,
                  as_json: bool = typer.Option(False, "--json", help="As JSON (never the secret).")) -> None:
    """List the webhooks: id, URL, what they want, when made (never the secret)."""
    hooks = _hooks(store, webhooks, existing=True).list()
    if as_json:
        typer.echo(json.dumps([{**h.public(), "created_at": iso(h.created_at)} for h in hooks], indent=1, ensure_ascii=False))
        return
    t = Table(title="webhooks")
    id_column(t, "id", [h.id for h in hooks])
    for col in ("url", "kinds", "needs user", "entity", "created"):
        t.add_column(col)
    for h in hooks:
        t.add_row(h.id, h.url, ", ".join(h.kinds or ("all",)), "yes" if h.needs_user_only else "",
                  h.entity or "", _when(h.created_at))
    print_table(t)


def remove(hook_id: str = typer.Argument(..., help="The webhook's id."), store: str = STORE,
           webhooks: str = WEBHOOKS) -> None:
    """Remove a webhook; its deliveries stop."""
    hook = _hooks(store, webhooks, existing=True).remove(hook_id)
    console.print(f"removed {hook.id} ({hook.url})", highlight=False)


def status(store: str = typer.Option(..., "--store", "-s", help="The store directory."),
           as_json: bool = typer.Option(False, "--json", help="As JSON.")) -> None:
    """Delivery status of each webhook: delivered, failed (given up), the event being
    retried, the last answer or error, and the recent failures."""
    from ..delivery import delivery_status  # noqa: PLC0415

    require_store(store)  # a mistyped path is an error, not a store with no deliveries
    found = delivery_status(store)
    if as_json:
        typer.echo(json.dumps(found, indent=1, ensure_ascii=False))
        return
    t = Table(title="webhook deliveries")
    id_column(t, "id", [s["id"] for s in found])
    for col in ("url", "delivered", "failed", "retrying", "last answer", "last success"):
        t.add_column(col)
    for s in found:
        retrying = f"{s['head']} (attempt {s['attempts']})" if s["head"] else ""
        last = str(s["last_status"] or "") if s["last_error"] is None else s["last_error"]
        t.add_row(s["id"], s["url"], str(s["delivered"]), str(s["failed"]), retrying, last, _when(s["last_success_at"]))
    print_table(t)
    for s in found:
        for f in s["failures"]:
            console.print(f"  {s['id']} gave up on {f['event']} ({f['kind']}) after {f['attempts']} attempts: "
                          f"{f['error']}", highlight=False)
