"""The MCP server over streamable HTTP, for a `Vault` behind the HTTP service's tokens.

Identity is the bearer token's, exactly as for the REST routes: the SDK's bearer
middleware asks `TokenStoreVerifier`, which asks the service's `TokenStore` (one
token file, one check: `TokenStore.authenticate`). A missing, unknown or revoked
token is refused with 401 before any MCP message is read. Each tool call then
works on `VaultMemory(vault, <the token's principal>)`, so writes carry the
token's agent and only a role that may resolve disputes settles one.

The app is stateless (any replica answers any request) and answers JSON, not SSE
streams; DNS-rebinding protection is off because every request must carry a token
a web page cannot have (see docs/mcp.md).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from ..errors import UnknownAgent
from ..tokens import Principal, TokenStore
from ..vault import Vault
from .memory import VaultMemory, Write
from .server import build_server

log = logging.getLogger("vault_ray.mcp")

NO_ISSUER = "https://vault-ray.invalid/"
"""`AuthSettings` needs an issuer URL; tokens come from `vault-ray token add`, not from an
OAuth server, and no protected-resource metadata names it (`resource_server_url=None`)."""


class TokenStoreVerifier(TokenVerifier):
    """The service's tokens for the SDK's bearer middleware: a known, active token is an
    `AccessToken` naming its principal; anything else is None (the SDK answers 401)."""

    def __init__(self, tokens: TokenStore) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            who = self.tokens.authenticate(token)
        except UnknownAgent:
            return None
        return AccessToken(token=token, client_id=who.name, subject=who.name, scopes=[who.role],
                           claims={"role": who.role, "token_id": who.token_id})


def principal_of(token: AccessToken | None) -> Principal:
    """The principal the verifier put in the request's access token."""
    if token is None or not token.claims:
        raise UnknownAgent(why="no bearer token on this request")
    return Principal(token.client_id, str(token.claims["role"]), str(token.claims["token_id"]))


def http_server(vault: Vault, tokens: TokenStore, *, write: Write | None = None) -> MCPServer:
    """The MCP server of an HTTP service: each call works as the principal of its bearer token."""
    return build_server(lambda: VaultMemory(vault, principal_of(get_access_token()), write=write),
                        token_verifier=TokenStoreVerifier(tokens),
                        auth=AuthSettings(issuer_url=NO_ISSUER, resource_server_url=None))  # type: ignore[arg-type]


def http_app(server: MCPServer, *, path: str = "/mcp", max_body_bytes: int | None = None) -> Starlette:
    """The streamable-HTTP app of `server`, its endpoint at `path`. Mounted in a bigger
    app, that app's lifespan must enter `server.session_manager.run()`."""
    options: dict[str, Any] = {} if max_body_bytes is None else {"max_request_body_size": max_body_bytes}
    return server.streamable_http_app(
        streamable_http_path=path, stateless_http=True, json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False), **options)
