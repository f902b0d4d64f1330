"""Who is calling: the bearer token's principal, resolved once per request.

`Agent`, `Resolver`, `Admin` (and any role of `vault_ray.tokens.ROLES`, through `require`) are
route dependencies: a route that takes `who: Agent` runs only for a known token,
and its writes carry `who.name`. A missing, unknown or revoked token is a 401
(UnknownAgent); a known token whose role is too weak is a 403 (Forbidden).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from vault_ray.errors import Forbidden
from vault_ray.tokens import Principal

from .service import Service

bearer = HTTPBearer(auto_error=False, description="A token from `vault-ray token add AGENT [--admin]`")


def service(request: Request) -> Service:
    return request.app.state.service  # type: ignore[no-any-return]


async def principal(request: Request,
                    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Principal:
    token = credentials.credentials if credentials is not None else None
    return service(request).tokens.authenticate(token)


def require(role: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency admitting principals whose role allows `role`."""

    async def check(who: Annotated[Principal, Depends(principal)]) -> Principal:
        if not who.allows(role):
            raise Forbidden(who.name, who.role, role)
        return who

    check.role = role  # type: ignore[attr-defined]  (read by errors.unauthenticated: a 403 comes before a 422)
    return check


Agent = Annotated[Principal, Depends(require("agent"))]
Resolver = Annotated[Principal, Depends(require("resolver"))]
"""May settle disputes (and do what an agent does), not change policy."""
Admin = Annotated[Principal, Depends(require("admin"))]
Svc = Annotated[Service, Depends(service)]
