"""The MCP endpoint of the app: vault-ray's MCP server (`vault_ray.mcp`) over streamable
HTTP at `/mcp`. The bearer token gives the identity, from the same token store as
the REST routes; MCP writes are batched with the REST writes (`Service.write`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.routing import Route

from vault_ray.errors import VaultError
from vault_ray.mcp.http import http_app, http_server
from vault_ray.models import AddResult, WriteRequest

from .service import Service

PATH = "/mcp"


def mcp_endpoint(service: Service) -> tuple[Route, Callable[[Any], AbstractAsyncContextManager[None]]]:
    """The route to add to the app, and the lifespan the app must run (it starts the
    MCP session manager)."""

    async def write(request: WriteRequest) -> AddResult | VaultError:
        return (await service.write(request)).result

    server = http_server(service.vault, service.tokens, write=write)
    # POST only: a stateless server has no stream to offer on GET (405, as the transport allows),
    # so no idle stream holds a replica's request slot
    route = Route(PATH, http_app(server, path=PATH, max_body_bytes=service.settings.max_body_bytes), methods=["POST"])
    return route, lambda app: server.session_manager.run()
