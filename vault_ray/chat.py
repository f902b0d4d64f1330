"""`vault-ray chat`: an interactive agent on a store."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from .errors import VaultError
from .models import Decision
from .render import claims_table, decision_table, disputes_table, hits_table, view_table
from .vault import Vault

HELP = "statements are stored as this agent's claims; commands: /search Q, /get ENTITY, /history ENTITY, /disputes, /quit"


SAID_CHARS = 120
"""The longest message a decision table repeats; a longer one is cut with "…"."""
USAGE = {"/search": "/search QUERY", "/get": "/get ENTITY", "/history": "/history ENTITY"}


def folded(decisions: list[Decision]) -> list[tuple[Decision, int]]:
    """The decisions with repeats folded: one long message saying the same thing 300 times
    makes one stored claim and 299 NOOPs naming it, shown as one row with its count."""
    out: dict[tuple[str, str, str, str], list] = {}
    for d in decisions:
        key = (d.claim_id, str(d.op), str(d.outcome), d.reason)
        if key in out:
            out[key][1] += 1
        else:
            out[key] = [d, 1]
    return [(d, n) for d, n in out.values()]


def run_chat(vault: Vault, agent: str, console: Console, *, session: str | None = None, read=input,  # type: ignore[no-untyped-def]
             errors: Console | None = None) -> None:
    """Read lines from `read` and store or answer them; errors and usage go to `errors`
    (standard error by default), answers to `console`."""
    errors = errors or Console(stderr=True)
    mem = vault.agent(agent)
    console.print(f"[bold]{agent}[/bold] — {HELP}")
    previous: str | None = None  # the statement before: what a line that only corrects ("Sorry, Dallas") corrects
    while True:
        try:
            line = read(f"{agent}> ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not line:
            continue
        cmd, _, arg = line.partition(" ")
        arg = arg.strip()
        try:
            if cmd in ("/quit", "/exit"):
                return
            if cmd in USAGE and not arg:
                errors.print(f"usage: {USAGE[cmd]}", highlight=False)
            elif cmd == "/search":
                console.print(hits_table(arg, vault.search(arg, k=5)))
            elif cmd == "/get":
                console.print(view_table(vault.get(arg)))
            elif cmd == "/history":
                found = vault.history(arg)
                console.print(claims_table(found, f"history({arg!r})",
                                           empty=f"no claims; {found.did_you_mean}" if found.suggestions else ""))
            elif cmd == "/disputes":
                found = vault.disputes()
                console.print(disputes_table(found, vault) if found else "no open disputes")
            elif cmd.startswith("/"):
                console.print(HELP)
            else:
                turns = [{"role": "user", "content": t} for t in (previous, line) if t]
                previous = line
                result = mem.add(turns, session=session)
                if result.decisions:
                    said = line if len(line) <= SAID_CHARS else line[: SAID_CHARS - 1] + "…"
                    rows = folded(list(result.decisions))
                    table = decision_table([(agent, said if i == 0 else "", d) for i, (d, _) in enumerate(rows)])
                    for row, (_, n) in zip(table.rows, rows, strict=True):
                        if n > 1:
                            row[3] = f"{row[3]} ×{n}"
                    console.print(table)
                for missed in result.unextracted:
                    kept = f" (kept as note {missed.note_id})" if missed.note_id else ""
                    console.print(f"[yellow]not extracted:[/yellow] {missed.text!r}: {missed.reason}{kept}")
                if not result.decisions and not result.unextracted:
                    console.print("[yellow]no statement about the user recognized[/yellow] (try 'I'm in PST', 'I love sushi')")
        except VaultError as exc:
            errors.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
