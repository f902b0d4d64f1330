"""`vault-ray chat`: an interactive agent on a store."""

from __future__ import annotations

from rich.console import Console

from .errors import VaultError
from .render import claims_table, decision_table, disputes_table, hits_table, view_table
from .vault import Vault

HELP = "statements are stored as this agent's claims; commands: /search Q, /get ENTITY, /history ENTITY, /disputes, /quit"


def run_chat(vault: Vault, agent: str, console: Console, *, session: str | None = None, read=input) -> None:  # type: ignore[no-untyped-def]
    mem = vault.agent(agent)
    console.print(f"[bold]{agent}[/bold] — {HELP}")
    while True:
        try:
            line = read(f"{agent}> ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not line:
            continue
        cmd, _, arg = line.partition(" ")
        try:
            if cmd in ("/quit", "/exit"):
                return
            if cmd == "/search":
                console.print(hits_table(arg, vault.search(arg or "user", k=5)))
            elif cmd == "/get":
                console.print(view_table(vault.get(arg.strip())))
            elif cmd == "/history":
                console.print(claims_table(vault.history(arg.strip()), f"history({arg.strip()!r})"))
            elif cmd == "/disputes":
                found = vault.disputes()
                console.print(disputes_table(found, vault) if found else "no open disputes")
            elif cmd.startswith("/"):
                console.print(HELP)
            else:
                result = mem.add(line, session=session)
                if result.decisions:
                    console.print(decision_table([(agent, line, d) for d in result]))
                for missed in result.unextracted:
                    kept = f" (kept as note {missed.note_id})" if missed.note_id else ""
                    console.print(f"[yellow]not extracted:[/yellow] {missed.text!r}: {missed.reason}{kept}")
                if not result.decisions and not result.unextracted:
                    console.print("[yellow]no statement about the user recognized[/yellow] (try 'I'm in PST', 'I love sushi')")
        except VaultError as exc:
            console.print(f"[red]error:[/red] {exc}")
