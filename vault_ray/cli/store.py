"""Reading and deciding on a store: get, history, search, explain, disputes, resolve,
authority, strategy, high-stakes. Each takes `--store PATH` (embedded) or `--address ADDR` (cluster mode)."""

from __future__ import annotations

import typer
from rich.table import Table

from ..engine.disputes import check_resolution
from ..errors import ClaimNotFound, InvalidInput
from ..render import claims_table, disputes_table, hits_table, view_table
from ..vault import Vault
from .common import (
    ADDRESS,
    AS_OF,
    HASHING,
    JSON,
    NAMESPACE,
    STORE,
    console,
    err_console,
    handle_errors,
    open_vault,
    parse_time,
    print_json,
)
from .common import made_with_hashing as settings_only

WEIGHTED = ("authority", "consensus")
"""The strategies that read authority weights (consensus weighs each agent's vote by them)."""


def get(entity: str, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
        hashing: bool = HASHING, as_of: str = AS_OF, as_json: bool = JSON) -> None:
    """Show the current view of ENTITY (both values while a dispute is open)."""
    when = parse_time(as_of)
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.get(entity, as_of=when)
        print_json(found) if as_json else console.print(view_table(found))


def history(entity: str, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
            hashing: bool = HASHING, as_json: bool = JSON) -> None:
    """Show every claim ever made on ENTITY, with status and provenance."""
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.history(entity)
        hint = f"no claims; {found.did_you_mean}" if found.suggestions else ""  # a typo? the closest keys
        if as_json and hint:  # stdout keeps the JSON list; the hint goes to stderr, as errors do
            err_console.print(f"{entity}: {hint}", highlight=False)
        print_json(found) if as_json else console.print(claims_table(found, f"history({entity!r})", empty=hint))


def search(query: str, k: int = typer.Option(5, "-k", help="How many hits."), store: str = STORE,
           address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING, as_of: str = AS_OF,
           as_json: bool = JSON) -> None:
    """Semantic search over active claims."""
    when = parse_time(as_of)
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.search(query, k=k, as_of=when)
        print_json(found) if as_json else console.print(hits_table(query, found))


def explain(claim_id: str = typer.Argument(..., help="Id of the claim to explain."),
            as_json: bool = typer.Option(False, "--json", help="Print the explanation as JSON data."),
            store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Explain CLAIM_ID: every decision behind its status (pass, op, strategy, weights,
    judge rationale, dispute and resolution)."""
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.explain(_whole(claim_id, vault))
        if as_json:
            print_json(found)  # times as the HTTP API writes them (ISO 8601, "Z")
        else:
            # piped: its own lines, unwrapped (a log or `grep` reads one entry per line)
            console.print(found.text(), highlight=False, markup=False, soft_wrap=not console.is_terminal)


def disputes(status: str = typer.Option("open", help="open, resolved or all."), store: str = STORE,
             address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING, as_json: bool = JSON) -> None:
    """List disputes with both sides."""
    if status not in ("open", "resolved", "all"):
        raise typer.BadParameter(f"{status!r}: use open, resolved or all", param_hint="--status")
    with open_vault(store, address, namespace, hashing) as vault:
        found = vault.disputes(None if status == "all" else status)
        if as_json:
            print_json(found)
        else:
            console.print(disputes_table(found, vault) if found else f"no {status} disputes")


def resolve(dispute_id: str, winner: str = typer.Option(None, "--winner", help="Claim id that wins."),
            keep_both: bool = typer.Option(False, "--keep-both", help="Keep every value ('many'), not with --winner."),
            decided_by: str = typer.Option("user", "--by", help="Who decided."),
            note: str = typer.Option("", "--note", help="Why."), store: str = STORE, address: str = ADDRESS,
            namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Resolve DISPUTE_ID: the winner becomes active, the others superseded (or --keep-both: every value stays)."""
    check_resolution(dispute_id, winner, decided_by, note, keep_both)  # before the store opens: bad input first
    with open_vault(store, address, namespace, hashing) as vault:
        dispute_id = _whole(dispute_id, vault, [d.id for d in vault.disputes(None)], "disputes")
        if winner is not None:
            d = vault.dispute(dispute_id)
            winner = _whole(winner, vault, [d.challenger, *d.incumbents, *d.supporters], "claims of the dispute")
        d = vault.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both)
        console.print(f"resolved {d.id}: winner {d.resolution.winner if d.resolution else None}")


def authority(agent: str = typer.Argument(None, help="Agent to set a weight for."),
              pattern: str = typer.Argument(None, help="Entity pattern, e.g. user.timezone or user.schedule.*"),
              weight: float = typer.Argument(None, help="Weight in [0, 1]."), store: str = STORE,
              address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Show the authority table, or set AGENT's WEIGHT on PATTERN."""
    if misread := next((a for a in (agent, pattern) if a is not None and a.startswith("-")), None):
        raise InvalidInput(f"no such option: {misread}; see `vault-ray authority --help`")  # unknown options: arguments here
    with open_vault(store, address, namespace, hashing or settings_only(store), create=agent is not None,
                    announce=True) as vault:
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
        if agent is not None and (used := _strategy_of(vault, pattern)) not in WEIGHTED:
            console.print(f"note: {pattern} is decided by {used}, which does not use authority weights (they apply "
                          f"under {' or '.join(WEIGHTED)}): `vault-ray strategy {pattern} authority` to use them",
                          highlight=False)


def strategy(pattern: str = typer.Argument(None, help="Entity pattern, e.g. user.timezone, user.schedule.* or *."),
             name: str = typer.Argument(None, help="recency, authority, consensus or judge."), store: str = STORE,
             address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Show the strategy table, or set PATTERN's conflict strategy to NAME (Vault.set_strategy)."""
    with open_vault(store, address, namespace, hashing or settings_only(store), create=pattern is not None,
                    announce=True) as vault:
        if pattern is not None:
            if name is None:
                raise InvalidInput("give PATTERN NAME to set a strategy (recency, authority, consensus or judge)")
            vault.set_strategy(pattern, name)
        policy = vault.policy
        t = Table(title="Strategy")
        for col in ("pattern", "strategy"):
            t.add_column(col)
        t.add_row("(default)", policy.default_strategy)
        for p, used in sorted(policy.strategies.items()):
            t.add_row(p, used)
        console.print(t)


def high_stakes(pattern: str = typer.Argument(None, help="Entity pattern, e.g. user.calendar.* or user.medication."),
                remove: bool = typer.Option(False, "--remove", help="Remove PATTERN instead of adding it."),
                store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING) -> None:
    """Show the high-stakes patterns (their conflicts always wait for a person), or add PATTERN
    to them, keeping the others (Vault.add_high_stakes); --remove removes it."""
    if remove and pattern is None:
        raise InvalidInput("give the PATTERN to remove (vault-ray high-stakes PATTERN --remove)")
    with open_vault(store, address, namespace, hashing or settings_only(store), create=pattern is not None,
                    announce=True) as vault:
        if pattern is not None:
            (vault.remove_high_stakes if remove else vault.add_high_stakes)(pattern)
        t = Table(title="High stakes")
        t.add_column("pattern")
        for p in vault.policy.high_stakes:
            t.add_row(p)
        console.print(t)


def _strategy_of(vault: Vault, pattern: str) -> str:
    """The strategy that decides the entities `pattern` names (the default for '*')."""
    policy = vault.policy
    return policy.default_strategy if pattern == "*" else policy.strategies.get(pattern) or policy.strategy_for(pattern)


def _whole(given: str, vault: Vault, among: list[str] | None = None, what: str = "claims") -> str:
    """The id `given` starts (the tables show the first 12 characters of a claim id), when
    exactly one matches; `given` itself when it is whole, blank (no prefix: the call refuses
    it as empty) or matches none (the call then says what is missing)."""
    if not given.strip():
        return given
    if among is None:
        try:
            vault.claim(given)
            return given
        except ClaimNotFound:
            among = [c.id for c in vault.claims()]
    if given in among:
        return given
    found = [i for i in among if i.startswith(given)]
    if len(found) > 1:
        shown = ", ".join(sorted(found)[:3]) + (", ..." if len(found) > 3 else "")
        raise InvalidInput(f"{given!r} starts the ids of {len(found)} {what} ({shown}): give more of it")
    return found[0] if found else given


def register(app: typer.Typer) -> None:
    for command in (get, history, search, explain, disputes, resolve):
        app.command(help=command.__doc__)(handle_errors(command))
    # a negative WEIGHT (-0.1) is the argument, so the library says what a weight must be: click read it as option -0
    app.command(help=authority.__doc__, context_settings={"ignore_unknown_options": True})(handle_errors(authority))
    app.command(help=strategy.__doc__)(handle_errors(strategy))
    app.command("high-stakes", help=high_stakes.__doc__)(handle_errors(high_stakes))
