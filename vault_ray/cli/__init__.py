"""The `vault-ray` command line (typer + rich). One module per group of commands;
each imports the subsystem it drives (Ray, the evaluation jobs) only when it runs."""

from __future__ import annotations

import sys

import typer

from . import cluster, eval, events, jobs, mcp, policy, serve, session, store

app = typer.Typer(help="vault-ray: shared memory for fleets of AI agents that does not silently overwrite itself.",
                  no_args_is_help=True, add_completion=False)
for group in (session, store, events, cluster, serve, mcp, eval, policy, jobs):
    group.register(app)


def main() -> None:
    app(prog_name="vault-ray")


if __name__ == "__main__":
    sys.exit(main())
