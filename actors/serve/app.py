"""The FastAPI app factory: `create_app(service)`.

The same app runs as the ingress of the Ray Serve deployment (`deployment.py`, one
per replica, writes batched) and under any ASGI server (`local_service`: writes one
by one). Routers are per area (health, writes, reads, admin); a new area is a new
router included here, a new role a new entry of `vault_ray.tokens.ROLES`.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

import vault_ray
from vault_ray.errors import PayloadTooLarge

from . import errors
from .mcp_endpoint import mcp_endpoint
from .metrics import CountRequests
from .routes import admin, events, health, inbox, reads, writes
from .service import Service

DESCRIPTION = """Shared memory for fleets of AI agents: claims with provenance, conflict policies, disputes.

Every `/v1` route takes a bearer token (`vault-ray token add AGENT [--admin]`); the token names the agent, so
no body names one. Errors are RFC 9457 problem details (`application/problem+json`) whose `type` names the
error class; see docs/http.md."""


DOCS_ASSETS = "/docs-assets"


def create_app(service: Service) -> FastAPI:
    mcp_route, mcp_lifespan = mcp_endpoint(service)
    # /docs (Swagger UI) and /redoc from files the package ships (fastapi-offline), not a CDN:
    # the service runs where there is no network
    app = FastAPIOffline(title=service.settings.title, version=vault_ray.__version__, description=DESCRIPTION,
                         lifespan=mcp_lifespan, static_url=DOCS_ASSETS)
    app.state.service = service
    errors.install(app)
    for router in (health.router, writes.router, reads.router, events.router, admin.router, inbox.router):
        app.include_router(router)
    app.router.routes.append(mcp_route)  # MCP over streamable HTTP (docs/mcp.md)
    app.add_middleware(BodyLimit, limit=service.settings.max_body_bytes)
    app.add_middleware(HeadAsGet)
    def templates() -> list[str]:
        return [*app.openapi()["paths"], *(r.path for r in app.router.routes if isinstance(getattr(r, "path", None), str))]

    app.add_middleware(CountRequests, metrics=service.metrics, templates=templates)  # outermost: it sees every answer
    return app


class HeadAsGet:
    """HEAD answered as GET without the body (RFC 9110 9.3.2): FastAPI routes a GET route's
    HEAD to 405. A stream (SSE) ends after its headers: the app is told the client left."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)
        done = False

        async def heard() -> dict[str, Any]:
            return {"type": "http.disconnect"} if done else await receive()

        async def headers_only(message: dict[str, Any]) -> None:
            nonlocal done
            if message["type"] == "http.response.start":
                await send(message)
            elif not done:
                done = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, heard, headers_only)


class BodyLimit:
    """413 for a request body over `limit` bytes, declared or streamed, before the app
    parses any of it. The body is read here and handed on whole."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            return await self._reject(scope, receive, send, int(declared))
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return None
            body += message.get("body", b"")
            if len(body) > self.limit:
                return await self._reject(scope, receive, send, None)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()  # type: ignore[no-any-return]

        await self.app(scope, replay, send)

    async def _reject(self, scope: dict[str, Any], receive: Any, send: Any, size: int | None) -> None:
        response = errors.problem_response(PayloadTooLarge(self.limit, size), scope.get("path"))
        response.headers["Connection"] = "close"
        await response(scope, receive, send)
