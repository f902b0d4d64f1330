"""Taking claims back: `vault-ray retract CLAIM_ID --by NAME` and `vault-ray forget ENTITY --by NAME`
(`Vault.retract`, `Vault.forget`). Exit codes as every command: 2 bad input, 3 not found, 4 store problem."""

from __future__ import annotations

import typer

from ..models import Retraction
from .common import ADDRESS, HASHING, NAMESPACE, STORE, console, handle_errors, open_vault
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


def _report(r: Retraction) -> None:
    c = r.claim
    when = r.at.strftime("%Y-%m-%d %H:%M:%S")
    head = "already retracted" if r.already else "retracted"
    line = f"{head} {c.id} ({c.entity} = {c.value or c.text!r}, by {c.agent}): by {r.decided_by} at {when}"
    console.print(line + (f": {r.note}" if r.note else ""), highlight=False, markup=False)
    for d in r.disputes:
        console.print(f"  left dispute {d}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    for command in (retract, forget):
        app.command(help=command.__doc__)(handle_errors(command))
