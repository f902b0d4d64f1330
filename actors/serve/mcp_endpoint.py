"""The MCP endpoint of the app: vault-ray's MCP server (`vault_ray.mcp`) over streamable
HTTP at `/mcp`. The bearer token gives the identity, from the same token store as
the REST routes; MCP writes are batched with the REST writes (`Service.write`).

The MCP SDK is imported, and the server built and started, on the first request to `/mcp`
(`LazyMcp`): importing it is about 0.75 s of CPU, which every replica (and `vault-ray serve`)
paid at start, also where no agent speaks MCP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.routing import Route

from vault_ray.errors import VaultError
from vault_ray.models import AddResult, WriteRequest

from .service import Service

PATH = "/mcp"


class LazyMcp:
    """The ASGI app of the `/mcp` route: on its first request it builds the MCP server and runs
    its session manager in a task of its own until the app's lifespan ends (`lifespan`)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self._app: Any = None
        self._starting: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._app is None:
            if self._starting is None:  # one start, whichever request comes first
                self._starting = asyncio.ensure_future(self._start())
            starting = self._starting
            try:
                await asyncio.shield(starting)  # a request that goes away does not cut the start short
            except Exception:
                if self._starting is starting:
                    self._starting = None  # the next request tries again
                raise
        await self._app(scope, receive, send)

    async def _start(self) -> None:
        from vault_ray.mcp.http import http_app, http_server  # noqa: PLC0415  (see the module docstring)

        service = self.service

        async def write(request: WriteRequest) -> AddResult | VaultError:
            return (await service.write(request)).result

        server = http_server(service.vault, service.tokens, write=write)
        # POST only: a stateless server has no stream to offer on GET (405, as the transport allows),
        # so no idle stream holds a replica's request slot
        app = http_app(server, path=PATH, max_body_bytes=service.settings.max_body_bytes)
        running = asyncio.Event()

        async def hold() -> None:  # enters and leaves the session manager's task group in one task
            async with server.session_manager.run():
                running.set()
                await self._stop.wait()

        holder = asyncio.create_task(hold())
        started = asyncio.ensure_future(running.wait())
        await asyncio.wait({started, holder}, return_when=asyncio.FIRST_COMPLETED)
        if not running.is_set():  # the session manager did not start: its error, to the request
            started.cancel()
            await holder
            raise RuntimeError("the MCP session manager stopped as it started")
        self._holder, self._app = holder, app

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Any) -> AsyncIterator[None]:
        """The app's lifespan: stops the session manager (if a request started it) when the app stops."""
        try:
            yield
        finally:
            if self._holder is not None:
                self._stop.set()
                await self._holder


def mcp_endpoint(service: Service) -> tuple[Route, Callable[[Any], AbstractAsyncContextManager[None]]]:
    """The route to add to the app, and the lifespan the app must run (it stops the MCP
    session manager that the route's first request starts)."""
    endpoint = LazyMcp(service)
    return Route(PATH, endpoint, methods=["POST"]), endpoint.lifespan
