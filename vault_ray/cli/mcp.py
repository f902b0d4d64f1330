"""`vault-ray mcp`: the MCP server over stdio, for one LLM agent (docs/mcp.md).

The MCP client (Claude Desktop, an IDE, an agent framework) starts this command and
speaks MCP over its stdin and stdout, so nothing else is written to stdout: the
start-up line and any error go to stderr. Three ways to reach the memory:

- `--store PATH --agent NAME`: an embedded store (one process holds it); a path that holds
  no store is refused unless `--create` is given (a typo in a client's config would give
  the agent an empty memory without a word);
- `--address ADDR --agent NAME`: a cluster-mode store (`vault-ray up`);
- `--url URL --token T`: the HTTP service (`vault-ray serve`); the token names the agent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import typer
from rich.console import Console
from rich.markup import escape

from ..errors import InvalidInput, NotFound, VaultError
from ..texts import check_agent
from ..tokens import ROLES, Principal, role_rank
from .common import ADDRESS, HASHING, NAMESPACE, STORE, exit_code, open_vault, require_store
from .names import as_typed, command_line_names

stderr = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def errors_to_stderr(fn: F) -> F:
    """One line on stderr (stdout is the MCP wire) and the CLI's exit code; the options named as typed."""
    names = command_line_names(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VaultError as exc:
            said = escape(as_typed(str(exc), names))
            stderr.print(f"[red]error:[/red] {said}", highlight=False, soft_wrap=True)  # one line, however long
            raise typer.Exit(exit_code(exc)) from None

    return wrapper  # type: ignore[return-value]


def register(app: typer.Typer) -> None:
    app.command(name="mcp", help=mcp.__doc__)(errors_to_stderr(mcp))


def mcp(
    store: str = STORE,
    address: str = ADDRESS,
    namespace: str = NAMESPACE,
    agent: str = typer.Option(None, "--agent", "-a", help="The agent name this server writes as (--store/--address)."),
    role: str = typer.Option("agent", "--role", help=f"The agent's role (--store/--address): one of {list(ROLES)}; "
                                                     "'resolver' and 'admin' may resolve disputes."),
    url: str = typer.Option(None, "--url", help="Base URL of a vault-ray HTTP service (vault-ray serve)."),
    token: str = typer.Option(None, "--token", envvar="VAULT_RAY_TOKEN",
                              help="Bearer token for --url (or VAULT_RAY_TOKEN); it names the agent."),
    hashing: bool = HASHING,
    create: bool = typer.Option(False, "--create", help="Make a new store at --store PATH if none is there (default: "
                                                        "refuse a path that holds no store, as a typo)."),
) -> None:
    """Serve the memory to an LLM agent over MCP (stdio): --store/--address with --agent, or --url with --token."""
    if url is not None:
        if store or address or agent:
            raise InvalidInput("--url takes --token only: the token names the agent (no --store, --address, --agent)")
        if not token:
            raise InvalidInput("--url needs --token (or VAULT_RAY_TOKEN): make one with `vault-ray token add AGENT`")
        anyio.run(_serve_client, url, token)
        return
    if not agent:
        raise InvalidInput("give --agent NAME (the agent this server writes as) with --store or --address; "
                           "or --url URL --token T")
    check_agent(agent)
    role_rank(role)
    if store and not address and not create:
        try:
            require_store(store)
        except NotFound as exc:
            raise NotFound(f"{exc} `vault-ray mcp` makes one only with --create.") from None
    from ..mcp import VaultMemory, build_server  # noqa: PLC0415  (the MCP SDK only when this command runs)

    with open_vault(store, address, namespace, hashing, create=create) as vault:
        memory = VaultMemory(vault, Principal(agent, role, token_id=""))
        server = build_server(lambda: memory)
        where = store or f"cluster {address} (namespace {namespace})"
        stderr.print(f"vault-ray mcp: serving {where} over stdio as {agent} ({role})", highlight=False)
        anyio.run(server.run_stdio_async)


async def _serve_client(url: str, token: str) -> None:
    from ..client import AsyncVaultClient  # noqa: PLC0415
    from ..mcp import build_server  # noqa: PLC0415

    async with AsyncVaultClient(url, token) as client:
        who = await client.whoami()  # a bad token or URL fails here, before any MCP message
        server = build_server(lambda: client)
        stderr.print(f"vault-ray mcp: serving {url} over stdio as {who['principal']} ({who['role']})",
                     highlight=False)
        await server.run_stdio_async()
