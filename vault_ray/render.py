"""Rich tables of what the store answers: decisions, claims, views, hits, disputes.
Shared by the CLI, the interactive chat and the demo.

Each is a `Rows`: a table when it fits the terminal (or the terminal is wide), one block of
labelled lines per row otherwise, so an 80-column terminal never folds cells into slivers."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from .engine.explain import retracted_from
from .models import Claim, Decision, Dispute, EntityView, Hit, Kind, Status
from .vault import Vault


def short(cid: str | None) -> str:
    return (cid or "")[:12]


ID_COLUMNS = frozenset({"id", "superseded_by", "dispute"})
"""Columns of ids: never wrapped or cut, whatever the terminal's width (they are copied)."""
WIDE = 120
"""From this width a table is printed even when some of its cells fold."""


class Rows:
    """A titled table of string cells that prints as one block per row on a narrow terminal
    (empty cells left out there). Ids are never wrapped or cut: they are copied into commands."""

    def __init__(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *, empty: str = "") -> None:
        self.title, self.columns, self.rows = title, tuple(columns), [list(r) for r in rows]
        self.empty = empty
        """What to say instead of an empty table."""

    def table(self) -> Table:
        t = Table(title=self.title)
        for i, col in enumerate(self.columns):
            if col in ID_COLUMNS:
                widest = max((len(line) for r in self.rows for line in r[i].split("\n")), default=0)
                t.add_column(col, no_wrap=True, overflow="ignore", min_width=max(widest, len(col)))
            else:
                t.add_column(col, overflow="fold")
        for r in self.rows:
            t.add_row(*r)
        return t

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.rows and self.empty:
            yield Text.from_markup(f"{self.title}: ").append(self.empty)
            return
        table = self.table()
        natural = Measurement.get(console, options.update_width(10_000), table).maximum
        if options.max_width >= WIDE or natural <= options.max_width:
            yield table
            return
        yield Text.from_markup(self.title, style="italic", justify="center")
        for r in self.rows:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="bold", no_wrap=True)
            grid.add_column(overflow="fold")
            for col, cell in zip(self.columns, r, strict=True):
                if cell:
                    grid.add_row(col, Text(cell, no_wrap=col in ID_COLUMNS, overflow="ignore" if col in ID_COLUMNS else "fold"))
            yield Text("")
            yield grid


def _when(c: Claim) -> str:
    return c.observed_at.strftime("%Y-%m-%d %H:%M:%S")


def decision_table(rows: list[tuple[str, str, Decision]], title: str = "What the store decided") -> Rows:
    out = []
    for agent, said, d in rows:
        entity = d.entity if not d.aligned_from else f"{d.entity}\n(aligned from {d.aligned_from})"
        why = d.reason + (f"\nsuperseded {', '.join(short(s) for s in d.superseded)}" if d.superseded else "")
        why += f"\ndispute {d.dispute_id}" if d.dispute_id else ""
        out.append((agent, said, entity, str(d.op), str(d.outcome), why))
    return Rows(title, ("agent", "said", "entity", "op", "outcome", "why"), out)


def claims_table(claims: list[Claim], title: str, *, empty: str = "") -> Rows:
    return Rows(title, ("id", "agent", "text", "value", "status", "observed_at", "superseded_by"),
                [(short(c.id), c.agent, c.text, c.value or "", str(c.status), _when(c), short(c.superseded_by))
                 for c in claims], empty=empty or "no claims")


def view_table(view: EntityView) -> Rows:
    title = f"get({view.entity!r})" + ("  [bold red]CONTESTED[/bold red]" if view.contested else "")
    if view.contested:
        rows = [(c.claim.value or c.claim.text, c.claim.agent, f"{c.weight:.2f}", str(c.claim.status), _when(c.claim),
                 c.claim.session or "", c.dispute_id or "") for c in view.candidates]
    else:
        rows = [(c.value or c.text, c.agent, "", str(c.status), _when(c), c.session or "", "") for c in view.active
                if c.kind != Kind.EPISODIC]
    # events after the values, labelled: what happened at observed_at, not a value of the entity
    rows += [(f"event: {c.value or c.text}", c.agent, "", str(c.status), _when(c), c.session or "", "") for c in view.events]
    return Rows(title, ("value", "agent", "weight", "status", "observed_at", "session", "dispute"), rows,
                empty=f"no claim was ever made on this key; {view.did_you_mean}" if view.suggestions else
                "no current value (nothing stored, or every claim was superseded or retracted; see its history)")


def hits_table(query: str, hits: list[Hit]) -> Rows:
    rows = []
    for h in hits:
        also = f" (also {', '.join(sorted({c.agent for c in h.agreeing}))})" if h.agreeing else ""
        entity = h.claim.entity + (f"\n(event, {_when(h.claim)})" if h.claim.kind == Kind.EPISODIC else "")
        rows.append((f"{h.score:.3f}", h.claim.text, h.claim.agent + also, entity, "yes" if h.contested else "",
                     "; ".join(f"{a.text} ({a.agent})" for a in h.alternatives)))
    return Rows(f"search({query!r})", ("score", "text", "agent", "entity", "contested", "alternatives"), rows,
                empty="no hits")


def disputes_table(disputes: list[Dispute], vault: Vault) -> Rows:
    rows = []
    for d in disputes:
        ch = vault.claim(d.challenger)
        inc = [vault.claim(i) for i in d.incumbents]
        rows.append((d.id, d.entity, f"{ch.value or ch.text} ({ch.agent}) {short(ch.id)}",
                     "\n".join(_incumbent(c, vault) if d.resolution is None else f"{c.value or c.text} ({c.agent}) {short(c.id)}"
                               for c in inc) or _none_standing(d, vault), d.reason,
                     _status(d, vault), "yes" if d.needs_user else "", str(d.challenges)))
    return Rows("Disputes", ("id", "entity", "challenger", "incumbent(s)", "reason", "status", "needs user", "challenges"),
                rows)


def _none_standing(d: Dispute, vault: Vault) -> str:
    """The incumbent cell of a dispute with none left: what a person retracted from it."""
    gone = [(vault.claim(cid), by) for cid, by in retracted_from(vault.events(entity=d.entity), d.id)]
    said = "; ".join(f"{c.value or c.text} ({c.agent}) {short(c.id)} by {by}" for c, by in gone
                     if c.id != d.challenger and c.id not in d.supporters)
    return f"none standing (retracted: {said})" if said else "none standing"


def _incumbent(c: Claim, vault: Vault) -> str:
    """An open dispute's incumbent, and the claim that replaced it if its agent has since
    (resolve with that one: the replaced claim can no longer win)."""
    said = f"{c.value or c.text} ({c.agent}) {short(c.id)}"
    if c.status == Status.DISPUTED:  # written since its incumbents were retracted: held for the person
        return f"{said}, held (none standing)"
    if c.superseded_by is None:
        return said
    new = vault.claim(c.superseded_by)
    return f"{said}, replaced by {new.value or new.text} ({new.agent}) {short(new.id)}"


def _status(d: Dispute, vault: Vault) -> str:
    """"open", or how it ended: the winner's value (or every value kept) and who decided."""
    r = d.resolution
    if r is None:
        return str(d.status)
    won = "every value kept" if r.keep_both else "no winner"
    if r.winner:
        c = vault.claim(r.winner)
        won = f"won by {c.value or c.text} ({c.agent}) {short(c.id)}"
    return f"{d.status}: {won}, decided by {r.decided_by}"
