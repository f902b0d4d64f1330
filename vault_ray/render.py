"""Rich tables of what the store answers: decisions, claims, views, hits, disputes.
Shared by the CLI, the interactive chat and the demo."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from .models import Claim, Decision, Dispute, EntityView, Hit
from .vault import Vault


def short(cid: str | None) -> str:
    return (cid or "")[:12]


ID_COLUMNS = frozenset({"id", "superseded_by"})
"""Columns of ids: never wrapped or cut, whatever the terminal's width (they are copied)."""


def _columns(t: Table, names: tuple[str, ...], ids: tuple[str, ...] = ()) -> None:
    """The table's columns: text folds at the terminal's width; id columns keep each id whole."""
    for col in names:
        if col in ID_COLUMNS:
            t.add_column(col, no_wrap=True, overflow="ignore", min_width=max((len(i) for i in ids), default=0))
        else:
            t.add_column(col, overflow="fold")


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
    _columns(t, ("id", "agent", "text", "value", "status", "observed_at", "superseded_by"), ("x" * 12,))
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
                      c.observed_at.strftime("%Y-%m-%d %H:%M:%S"), c.session or "", cand.dispute_id or "")
    else:
        for c in view.active:
            t.add_row(c.value or c.text, c.agent, "", str(c.status), c.observed_at.strftime("%Y-%m-%d %H:%M:%S"),
                      c.session or "", "")
    return t


def hits_table(query: str, hits: list[Hit]) -> Table:
    t = Table(title=f"search({query!r})")
    for col in ("score", "text", "agent", "entity", "contested", "alternatives"):
        t.add_column(col, overflow="fold")
    for h in hits:
        also = f" (also {', '.join(sorted({c.agent for c in h.agreeing}))})" if h.agreeing else ""
        t.add_row(f"{h.score:.3f}", h.claim.text, h.claim.agent + also, h.claim.entity, "yes" if h.contested else "",
                  "; ".join(f"{a.text} ({a.agent})" for a in h.alternatives))
    return t


NARROW = 120
"""Below this width the disputes print as one block each (eight columns fold into slivers)."""


class DisputesView:
    """The disputes as a table on a wide terminal, as one block of labelled lines each below
    `NARROW` columns. Ids are never wrapped or cut (they are copied into `resolve`)."""

    def __init__(self, disputes: list[Dispute], vault: Vault) -> None:
        self.rows = [_dispute_row(d, vault) for d in disputes]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= NARROW:
            yield self._table()
            return
        yield Text("Disputes", style="italic", justify="center")
        for row in self.rows:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="bold", no_wrap=True)
            grid.add_column(overflow="fold")
            for label, value in zip(DISPUTE_COLUMNS, row, strict=True):
                if value:
                    grid.add_row(label, Text(value, no_wrap=label == "id", overflow="ignore" if label == "id" else "fold"))
            yield Text("")
            yield grid

    def _table(self) -> Table:
        t = Table(title="Disputes")
        _columns(t, DISPUTE_COLUMNS, tuple(row[0] for row in self.rows))
        for row in self.rows:
            t.add_row(*row)
        return t


DISPUTE_COLUMNS = ("id", "entity", "challenger", "incumbent(s)", "reason", "status", "needs user", "challenges")


def disputes_table(disputes: list[Dispute], vault: Vault) -> DisputesView:
    return DisputesView(disputes, vault)


def _dispute_row(d: Dispute, vault: Vault) -> tuple[str, ...]:
    ch = vault.claim(d.challenger)
    inc = [vault.claim(i) for i in d.incumbents]
    return (d.id, d.entity, f"{ch.value or ch.text} ({ch.agent}) {short(ch.id)}",
            "\n".join(_incumbent(c, vault) if d.resolution is None else f"{c.value or c.text} ({c.agent}) {short(c.id)}"
                      for c in inc), d.reason,
            _status(d, vault), "yes" if d.needs_user else "", str(d.challenges))


def _incumbent(c: Claim, vault: Vault) -> str:
    """An open dispute's incumbent, and the claim that replaced it if its agent has since
    (resolve with that one: the replaced claim can no longer win)."""
    said = f"{c.value or c.text} ({c.agent}) {short(c.id)}"
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
