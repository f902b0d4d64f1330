"""`vault-ray demo` and `vault-ray chat`: the seed scenarios, and an interactive agent."""

from __future__ import annotations

import typer

from ..models import MAX_SESSION
from ..texts import check_agent, check_line
from .common import ADDRESS, HASHING, NAMESPACE, STORE, console, handle_errors, open_vault


def demo(hashing: bool = HASHING) -> None:
    """Run the two seed scenarios offline on a temporary store and show what happened."""
    from ..demo import run_demo  # noqa: PLC0415

    run_demo(console, hashing=hashing)


def chat(agent: str = typer.Option(..., "--agent", "-a", help="This agent's name."), store: str = STORE,
         address: str = ADDRESS, namespace: str = NAMESPACE, hashing: bool = HASHING,
         session: str = typer.Option(None, "--session", help="Session id recorded on claims.")) -> None:
    """Interactive agent: type statements, see decisions; /search, /get, /history, /disputes, /quit."""
    from ..chat import run_chat  # noqa: PLC0415

    check_agent(agent)  # bad input: one line and exit 2 before the prompt, not an error on every statement
    check_line(session, "--session", limit=MAX_SESSION, optional=True)  # one line too, refused before the store opens
    with open_vault(store, address, namespace, hashing, create=True) as vault:
        run_chat(vault, agent, console, session=session)


def register(app: typer.Typer) -> None:
    for command in (demo, chat):
        app.command(help=command.__doc__)(handle_errors(command))
