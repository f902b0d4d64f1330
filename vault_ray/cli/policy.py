"""`vault-ray policy show | apply FILE`: a store's conflict policy as a reviewable file.

`vault-ray eval --recommend` writes a proposal as a policy file (vault_ray.policy_file);
`policy apply` shows what it would change and applies it (`--dry-run`: only shows)."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from ..engine.cardinality import ThroughVault
from ..engine.control import check_narrowing, check_rules
from ..policy import Policy
from ..policy_file import policy_changes, policy_to_file_data, read_policy_file, removed_settings
from .common import (
    ADDRESS,
    HASHING,
    NAMESPACE,
    STORE,
    console,
    err_console,
    handle_errors,
    made_with_hashing,
    open_vault,
    require_input,
)

FILE = typer.Argument(..., help="Policy file (JSON), e.g. proposal.json written by `vault-ray eval --recommend`.")
DRY_RUN = typer.Option(False, "--dry-run", help="Show what would change; apply nothing.")


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Show a store's conflict policy, or apply a policy file (e.g. a proposal of "
                             "`vault-ray eval --recommend`).", no_args_is_help=True)
    app.add_typer(group, name="policy")

    @group.command("show")
    @handle_errors
    def show(store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
        """Print the store's policy as a policy file (JSON): edit it, then `policy apply` it."""
        with open_vault(store, address, namespace, hashing or made_with_hashing(store)) as vault:  # no model to load
            typer.echo(json.dumps(policy_to_file_data(vault.policy), indent=2, sort_keys=True, ensure_ascii=False))

    @group.command("apply")
    @handle_errors
    def apply(file: Path = FILE, dry_run: bool = DRY_RUN, store: str = STORE, address: str = ADDRESS,
              namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
        """Apply the policy in FILE to the store: it replaces the whole policy (strategies, authority
        weights, thresholds...). Every change is listed first; a bad file changes nothing. The store
        must exist: a policy applied to a mistyped path would leave the real store's unchanged."""
        require_input(file, "policy file")  # not found, as a mistyped --store
        new = read_policy_file(file)  # before the store is opened: a bad file touches nothing
        with open_vault(store, address, namespace, hashing or made_with_hashing(store)) as vault:  # no vectors touched
            old = vault.policy
            check_rules(new, old, vault.registry)  # as set_policy checks it: a dry run approves only what applies
            check_narrowing(ThroughVault(vault), (old, vault.registry), (new, vault.registry))
            changes = policy_changes(old, new)
            console.print(f"{file}: {len(changes)} change{'s' if len(changes) != 1 else ''} to the store's policy",
                          highlight=False)
            if changes:
                table = Table()
                for column in ("setting", "now", "after"):
                    table.add_column(column, overflow="fold")
                for name, before, after in changes:
                    table.add_row(Text(name), Text(_show(before)), Text(_show(after)))  # no markup: [..] is data
                console.print(table)
                _warn_removed(old, new, store or "PATH")
            if dry_run or not changes:
                console.print("dry run: nothing applied" if dry_run else "the store already runs this policy")
                return
            vault.set_policy(replace(new, version=old.version + 1))
            console.print(f"applied {file}: policy version {old.version} -> {old.version + 1}")


def _warn_removed(old: Policy, new: Policy, store: str) -> None:
    """Say which of the store's own settings the file drops (`policy apply` replaces the whole
    policy; a proposal of synthetic scenarios starts from the default policy, not the store's)."""
    removed = removed_settings(old, new)
    if removed:
        err_console.print(Text(
            f"note: this file removes {len(removed)} setting{'s' if len(removed) != 1 else ''} the store has now "
            f"({', '.join(removed)}): `policy apply` replaces the whole policy. To keep them, edit the file, or "
            f"make the proposal from the store's policy: "
            f"`vault-ray policy show --store {shlex.quote(str(store))} > current.json`, "
            f"then `vault-ray eval --recommend --current current.json --out DIR`."))


def _show(value: object) -> str:
    return "-" if value is None else str(value)
