"""The `vault-ray` command line (typer + rich).

Errors from the VaultError tree print one line and exit with code 2 (bad input),
3 (not found), 4 (store or cluster problem) or 1 (anything else of ours)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from .embedders import HashingEmbedder, LocalEmbedder
from .errors import ClusterError, InvalidInput, NotFound, StoreError, VaultError
from .models import Claim, Decision, Dispute, EntityView, Hit
from .vault import Vault

app = typer.Typer(help="vault-ray: shared memory for fleets of AI agents that does not silently overwrite itself.",
                  no_args_is_help=True, add_completion=False)
console = Console()
F = TypeVar("F", bound=Callable[..., Any])

STORE = typer.Option(None, "--store", "-s", help="Path of an embedded store.")
ADDRESS = typer.Option(None, "--address", help="Ray address of a cluster-mode store (e.g. 'auto').")
NAMESPACE = typer.Option("vault", "--namespace", help="Ray namespace of the cluster-mode store.")
HASHING = typer.Option(False, "--hashing", help="Use the deterministic hashing embedder instead of the local model.")
AS_OF = typer.Option(None, "--as-of", help="Answer as the store stood at this time (ISO 8601, e.g. 2026-05-01T12:00:00Z).")


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"--as-of must be an ISO 8601 time, got {value!r}") from None


def exit_code(exc: VaultError) -> int:
    if isinstance(exc, InvalidInput):
        return 2
    if isinstance(exc, NotFound):
        return 3
    if isinstance(exc, StoreError | ClusterError):
        return 4
    return 1


def handle_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VaultError as exc:
            console.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(exit_code(exc)) from None

    return wrapper  # type: ignore[return-value]


@contextmanager
def open_vault(store: str | None, address: str | None, namespace: str = "vault", hashing: bool = False) -> Iterator[Vault]:
    embedder = HashingEmbedder() if hashing else LocalEmbedder()
    if address:
        vault = Vault.connect(address, namespace=namespace, embedder=embedder)
    elif store:
        vault = Vault.open(store, embedder=embedder)
    else:
        raise InvalidInput("give --store PATH (embedded) or --address ADDR (cluster mode)")
    try:
        yield vault
    finally:
        vault.close()


# -- rendering ---------------------------------------------------------------------
def short(cid: str | None) -> str:
    return (cid or "")[:12]


def decision_table(rows: list[tuple[str, str, Decision]], title: str = "What the store decided") -> Table:
    t = Table(title=title, show_lines=False)
    for col in ("agent", "said", "entity", "op", "outcome", "why"):
        t.add_column(col, overflow="fold")
    for agent, said, d in rows:
        entity = d.entity if not d.aligned_from else f"{d.entity}\n(aligned from {d.aligned_from})"
        why = d.reason + (f"\nsuperseded {', '.join(short(s) for s in d.superseded)}" if d.superseded else "")
        why += f"\ndispute {d.dispute_id}" if d.dispute_id else ""
        t.add_row(agent, said, entity, str(d.op), str(d.outcome), why)
    return t


def claims_table(claims: list[Claim], title: str) -> Table:
    t = Table(title=title)
    for col in ("id", "agent", "text", "value", "status", "observed_at", "superseded_by"):
        t.add_column(col, overflow="fold")
    for c in claims:
        t.add_row(short(c.id), c.agent, c.text, c.value or "", str(c.status),
                  c.observed_at.strftime("%Y-%m-%d %H:%M:%S"), short(c.superseded_by))
    return t


def view_table(view: EntityView) -> Table:
    title = f"get({view.entity!r})" + ("  [bold red]CONTESTED[/bold red]" if view.contested else "")
    t = Table(title=title)
    for col in ("value", "agent", "weight", "status", "observed_at", "session", "dispute"):
        t.add_column(col, overflow="fold")
    if view.contested:
        for cand in view.candidates:
            c = cand.claim
            t.add_row(c.value or c.text, c.agent, f"{cand.weight:.2f}", str(c.status),
                      c.observed_at.strftime("%H:%M:%S"), c.session or "", cand.dispute_id or "")
    else:
        for c in view.active:
            t.add_row(c.value or c.text, c.agent, "", str(c.status), c.observed_at.strftime("%H:%M:%S"),
                      c.session or "", "")
    return t


def hits_table(query: str, hits: list[Hit]) -> Table:
    t = Table(title=f"search({query!r})")
    for col in ("score", "text", "agent", "entity", "contested", "alternatives"):
        t.add_column(col, overflow="fold")
    for h in hits:
        t.add_row(f"{h.score:.3f}", h.claim.text, h.claim.agent, h.claim.entity, "yes" if h.contested else "",
                  "; ".join(f"{a.text} ({a.agent})" for a in h.alternatives))
    return t


def disputes_table(disputes: list[Dispute], vault: Vault) -> Table:
    t = Table(title="Disputes")
    for col in ("id", "entity", "challenger", "incumbent(s)", "reason", "status", "needs user", "challenges"):
        t.add_column(col, overflow="fold")
    for d in disputes:
        ch = vault.claim(d.challenger)
        inc = [vault.claim(i) for i in d.incumbents]
        t.add_row(d.id, d.entity, f"{ch.value or ch.text} ({ch.agent}) {short(ch.id)}",
                  "\n".join(f"{c.value or c.text} ({c.agent}) {short(c.id)}" for c in inc), d.reason,
                  str(d.status), "yes" if d.needs_user else "", str(d.challenges))
    return t


# -- commands ---------------------------------------------------------------------------
@app.command()
@handle_errors
def demo(hashing: bool = HASHING) -> None:
    """Run the two seed scenarios offline on a temporary store and show what happened."""
    from .demo import run_demo

    run_demo(console, hashing=hashing)


@app.command()
@handle_errors
def get(entity: str, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
        hashing: bool = HASHING, as_of: str = AS_OF) -> None:
    """Show the current view of ENTITY (both values while a dispute is open)."""
    when = parse_time(as_of)
    with open_vault(store, address, namespace, hashing) as vault:
        console.print(view_table(vault.get(entity, as_of=when)))


@app.command()
@handle_errors
def history(entity: str, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
            hashing: bool = HASHING) -> None:
    """Show every claim ever made on ENTITY, with status and provenance."""
    with open_vault(store, address, namespace, hashing) as vault:
        console.print(claims_table(vault.history(entity), f"history({entity!r})"))


@app.command()
@handle_errors
def search(query: str, k: int = typer.Option(5, "-k", help="How many hits."), store: str = STORE,
           address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING, as_of: str = AS_OF) -> None:
    """Semantic search over active claims."""
    when = parse_time(as_of)
    with open_vault(store, address, namespace, hashing) as vault:
        console.print(hits_table(query, vault.search(query, k=k, as_of=when)))


@app.command()
@handle_errors
def disputes(status: str = typer.Option("open", help="open, resolved or all."), store: str = STORE,
             address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """List disputes with both sides."""
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.disputes(None if status == "all" else status)
        console.print(disputes_table(found, vault) if found else f"no {status} disputes")


@app.command()
@handle_errors
def resolve(dispute_id: str, winner: str = typer.Option(None, "--winner", help="Claim id that wins."),
            keep_both: bool = typer.Option(False, "--keep-both", help="Keep every value ('many' entities)."),
            decided_by: str = typer.Option("user", "--by", help="Who decided."),
            note: str = typer.Option("", "--note", help="Why."), store: str = STORE, address: str = ADDRESS,
            namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Resolve DISPUTE_ID: the winner becomes active, the others superseded."""
    with open_vault(store, address, namespace, hashing) as vault:
        d = vault.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both)
        console.print(f"resolved {d.id}: winner {d.resolution.winner if d.resolution else None}")


@app.command()
@handle_errors
def authority(agent: str = typer.Argument(None, help="Agent to set a weight for."),
              pattern: str = typer.Argument(None, help="Entity pattern, e.g. user.timezone or user.schedule.*"),
              weight: float = typer.Argument(None, help="Weight in [0, 1]."), store: str = STORE,
              address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Show the authority table, or set AGENT's WEIGHT on PATTERN."""
    with open_vault(store, address, namespace, hashing) as vault:
        if agent is not None:
            if pattern is None or weight is None:
                raise InvalidInput("give AGENT PATTERN WEIGHT to set a weight")
            vault.set_authority(agent, pattern, weight)
        t = Table(title="Authority")
        for col in ("agent", "pattern", "weight"):
            t.add_column(col)
        for a, table in sorted(vault.policy.authority.items()):
            for p, w in sorted(table.items()):
                t.add_row(a, p, f"{w:.2f}")
        console.print(t)


@app.command()
@handle_errors
def chat(agent: str = typer.Option(..., "--agent", "-a", help="This agent's name."), store: str = STORE,
         address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING,
         session: str = typer.Option(None, "--session", help="Session id recorded on claims.")) -> None:
    """Interactive agent: type statements, see decisions; /search, /get, /history, /disputes, /quit."""
    from .chat import run_chat

    with open_vault(store, address, namespace, hashing) as vault:
        run_chat(vault, agent, console, session=session)


def _register_optional() -> None:
    """Commands of optional parts (cluster mode, evaluations) register themselves."""
    for module in ("cli_cluster", "cli_eval", "cli_explain", "cli_policy"):
        try:
            mod = __import__(f"vault_ray.{module}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"vault_ray.{module}":
                raise
            continue
        mod.register(app)


_register_optional()


def main() -> None:
    app(prog_name="vault-ray")


if __name__ == "__main__":
    sys.exit(main())
