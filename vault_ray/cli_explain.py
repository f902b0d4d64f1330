"""`vault-ray explain ID`: why a claim has its status, as text or JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from .cli import ADDRESS, HASHING, NAMESPACE, STORE, console, handle_errors, open_vault


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def explain(claim_id: str = typer.Argument(..., help="Id of the claim to explain."),
                as_json: bool = typer.Option(False, "--json", help="Print the explanation as JSON data."),
                store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
                hashing: bool = HASHING) -> None:
        """Explain CLAIM_ID: every decision behind its status (pass, op, strategy, weights,
        judge rationale, dispute and resolution)."""
        with open_vault(store, address, namespace, hashing) as vault:
            found = vault.explain(claim_id)
            if as_json:
                typer.echo(json.dumps(asdict(found), default=str, indent=2))
            else:
                console.print(found.text(), highlight=False, markup=False)
