"""Taking claims back: `vault-ray retract CLAIM_ID --by NAME`, `vault-ray forget ENTITY --by NAME` and
`vault-ray erase ENTITY --by NAME [--yes]` (`Vault.retract`, `Vault.forget`, `Vault.erase`). Exit codes as
every command: 2 bad input, 3 not found, 4 store problem; 1 when an erasure is not confirmed."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import typer

from ..engine.retract import check_retraction
from ..models import Retraction, validate_entity
from .common import ADDRESS, HASHING, NAMESPACE, STORE, console, err_console, handle_errors, open_vault
from .store import _whole

BY = typer.Option(..., "--by", help="Who retracts (kept with the retraction).")
NOTE = typer.Option("", "--note", help="Why.")


def retract(claim_id: str = typer.Argument(..., help="Id of the claim (or the start of it, as the tables show)."),
            decided_by: str = BY, note: str = NOTE, store: str = STORE, address: str = ADDRESS,
            namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Retract CLAIM_ID: it is no longer read (get, search); history and explain keep it, with who and when.
    An open dispute it was in goes on without it. What it had replaced does not come back."""
    with open_vault(store, address, namespace, hashing) as vault:
        done = vault.retract(_whole(claim_id, vault), decided_by=decided_by, note=note)
        _report(done)


def forget(entity: str = typer.Argument(..., help="Entity key, e.g. user.diet."), decided_by: str = BY,
           note: str = NOTE, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
           hashing: bool = HASHING) -> None:
    """Retract every live claim of ENTITY (see `retract`)."""
    with open_vault(store, address, namespace, hashing) as vault:
        done = vault.forget(entity, decided_by=decided_by, note=note)
        for r in done:
            _report(r)
        if not done:
            console.print(f"{entity}: no live claim to retract", highlight=False)


def erase(entity: str = typer.Argument(..., help="Entity key, e.g. user.health."),
          decided_by: str = typer.Option(..., "--by", help="Who erases (kept with the erasure)."),
          note: str = typer.Option("", "--note", help="Why (kept: say which request, not what was stored)."),
          yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
          store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Erase ENTITY for good (a privacy request): every claim of it is retracted and its content (text,
    value, source message, meta, embedding; what receipts, events and disputes quoted of it) is removed
    from the store's files. History keeps the skeleton: ids, agents, times, and who erased it. Asks
    first unless --yes; cannot be undone."""
    validate_entity(entity)
    check_retraction(decided_by, note)
    try:
        sure = yes or typer.confirm(f"Erase every claim of {entity} and its content? This cannot be undone",
                                    default=False, err=True)
    except typer.Abort:  # no answer: stdin at its end (a script, `< /dev/null`) or Ctrl-C at the question
        err_console.print("\nnothing erased: no answer to the question (--yes erases without asking)", highlight=False)
        raise typer.Exit(1) from None
    if not sure:
        err_console.print(("" if sys.stdin.isatty() else "\n") + "nothing erased", highlight=False)  # piped: no echoed newline
        raise typer.Exit(1)
    with open_vault(store, address, namespace, hashing) as vault:
        before = {c.id: c.meta["erased"] for c in vault.history(entity) if isinstance(c.meta.get("erased"), dict)}
        done = vault.erase(entity, decided_by=decided_by, note=note)
        _report_erasure(entity, done, before)


def _report_erasure(entity: str, done: list[Retraction], before: dict[str, dict]) -> None:
    """What `erase` did: the claims it erased now, by whom; the ones erased before this run (which
    changes nothing for them) with the first erasure's who, when and why, never this caller's."""
    new = [r for r in done if r.claim.id not in before]
    for r in done:
        c = r.claim
        line = f"{c.id} ({c.entity}, by {c.agent}, {c.recorded_at:%Y-%m-%d %H:%M:%S})"
        if (first := before.get(c.id)) is None:
            console.print(f"erased {line}", highlight=False, markup=False)
            continue
        when = datetime.fromtimestamp(float(first.get("at") or 0), UTC).strftime("%Y-%m-%d %H:%M:%S")
        why = f": {first['note']}" if first.get("note") else ""
        console.print(f"already erased {line}: by {first.get('by')} at {when}{why}", highlight=False, markup=False)
    if new:
        r = new[0]
        console.print(f"{entity}: {len(new)} claim(s) erased by {r.claim.meta.get('erased', {}).get('by', r.decided_by)}"
                      + (f": {r.claim.meta['erased']['note']}" if r.claim.meta.get("erased", {}).get("note") else ""),
                      highlight=False, markup=False)
    if len(new) < len(done):
        console.print(f"{entity}: {len(done) - len(new)} claim(s) erased before; nothing changed for them" if new else
                      f"{entity}: nothing new to erase: its {len(done)} claim(s) were erased before; nothing changed",
                      highlight=False, markup=False)
    if not done:
        console.print(f"{entity}: no claim to erase", highlight=False)


def _report(r: Retraction) -> None:
    c = r.claim
    when = r.at.strftime("%Y-%m-%d %H:%M:%S")
    head = "already retracted" if r.already else "retracted"
    line = f"{head} {c.id} ({c.entity} = {c.value or c.text!r}, by {c.agent}): by {r.decided_by} at {when}"
    console.print(line + (f": {r.note}" if r.note else ""), highlight=False, markup=False)
    for d in r.disputes:
        console.print(f"  left dispute {d}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    for command in (retract, forget, erase):
        app.command(help=command.__doc__)(handle_errors(command))
