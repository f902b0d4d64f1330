"""The `vault-ray` command line (typer + rich). One module per group of commands;
each imports the subsystem it drives (Ray, the evaluation jobs) only when it runs."""

from __future__ import annotations

import sys

import typer

from . import cluster, eval, events, jobs, mcp, policy, retract, serve, session, store
from .usage import OneLineUsage

app = typer.Typer(help="vault-ray: shared memory for fleets of AI agents that does not silently overwrite itself.",
                  no_args_is_help=True, add_completion=False, cls=OneLineUsage)
for group in (session, store, retract, events, cluster, serve, mcp, eval, policy, jobs):
    group.register(app)


def _summary(text: str) -> str:
    """A command's line in the listing: its help's first paragraph as one line (the
    docstrings wrap at the code's width), cut after the first sentence when long."""
    first = " ".join(text.strip().split("\n\n")[0].split())
    end = first.find(". ")
    return first[: end + 1] if len(first) > 160 and end > 0 else first


for _info in app.registered_commands:
    _text = _info.help or (_info.callback.__doc__ if _info.callback else None)
    if _info.short_help is None and _text:
        _info.short_help = _summary(_text)


def main() -> None:
    app(prog_name="vault-ray")


if __name__ == "__main__":
    sys.exit(main())
