"""The one exception handler of the app: every `VaultError` becomes problem details
(`vault_ray.problems`), and so do FastAPI's request validation errors (422, as
InvalidInput; InvalidPolicy on the policy and registry routes) and Starlette's own HTTP
errors (an unknown route, a wrong method)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from vault_ray.errors import Forbidden, InvalidInput, InvalidPolicy, VaultError
from vault_ray.problems import MEDIA_TYPE, headers_for, status_of, to_problem

log = logging.getLogger("vault_ray.serve")


def problem_response(error: VaultError, instance: str | None) -> JSONResponse:
    return JSONResponse(to_problem(error, instance), status_code=status_of(error), headers=headers_for(error),
                        media_type=MEDIA_TYPE)


POLICY_ROUTES = ("/v1/policy", "/v1/registry/")
"""Routes whose body is a policy setting or a registry entry: a body they refuse is an InvalidPolicy, the
class `Vault`'s setters raise for the same mistake (`set_strategy("user.x", "bogus")`), so that code
catching it works on `VaultClient` too."""


def invalid_request(exc: RequestValidationError, route: str | None = None) -> InvalidInput:
    """FastAPI's validation errors as the tree's InvalidInput (on a POLICY_ROUTES `route`, InvalidPolicy
    with the body's `field` at fault), with where and why (never the input itself)."""
    errors = [{"loc": [str(part) for part in e.get("loc", ())], "msg": str(e.get("msg", "")),
               "type": str(e.get("type", ""))} for e in exc.errors()]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(first["loc"])
    message = (f"invalid request: {where + ': ' if where else ''}{first['msg']}"
               + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    if route is not None and route.startswith(POLICY_ROUTES):
        field = ".".join(first["loc"][1:]) if first["loc"][:1] == ["body"] else ""
        error: InvalidInput = InvalidPolicy(message, field=field or None)
    else:
        error = InvalidInput(message)
    error.errors = errors  # type: ignore[attr-defined]
    return error


def unauthenticated(request: Request) -> VaultError | None:
    """The 401 of a request to a route that takes a token, when its token is missing,
    unknown or revoked, or the 403 when its role is too weak for the route: FastAPI
    reads the body and the query before the route's dependencies run, so without this
    a bad body from nobody (or from an agent, on an admin route) would get a 422 (and
    the route's parameters) instead."""
    from .auth import principal, service  # noqa: PLC0415  (auth imports the app's service; errors is imported first)

    def takes_token(dependant: Any) -> bool:
        return any(sub.call is principal or takes_token(sub) for sub in getattr(dependant, "dependencies", ()))

    def roles(dependant: Any) -> list[str]:
        subs = getattr(dependant, "dependencies", ())
        return [r for sub in subs if (r := getattr(sub.call, "role", None)) is not None] + [r for sub in subs for r in roles(sub)]

    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if route is None or not takes_token(dependant):
        return None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    try:
        who = service(request).tokens.authenticate(token.strip() if scheme.lower() == "bearer" and token.strip() else None)
    except VaultError as exc:
        return exc
    weak = [role for role in roles(dependant) if not who.allows(role)]
    return Forbidden(who.name, who.role, weak[0]) if weak else None


_VERBS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def install(app: FastAPI) -> None:
    async def vault_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, VaultError)
        return problem_response(exc, request.url.path)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        unknown = unauthenticated(request)  # who is asking comes before what was asked
        error = unknown or invalid_request(exc, getattr(request.scope.get("route"), "path", None))
        sent = request.headers.get("content-type", "")
        if unknown is None and "json" not in sent and any(e.get("loc", ("",))[0] == "body" for e in exc.errors()):
            error.args = (f"{error} (the body is read as JSON: send it with Content-Type: application/json"
                          f"{', not ' + sent if sent else ''})",)
        return problem_response(error, request.url.path)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 400:  # FastAPI could not read the body (not UTF-8, not a form): invalid input
            return problem_response(InvalidInput(f"invalid request: {exc.detail}"), request.url.path)
        body: dict[str, Any] = {"type": "about:blank", "title": HTTPStatus(exc.status_code).phrase,
                                "status": exc.status_code, "detail": str(exc.detail), "instance": request.url.path}
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette names the first route's methods only; one path has a route per method
            template = getattr(request.scope.get("route"), "path", None)
            documented = request.app.openapi().get("paths", {}).get(template, {})
            allowed = {m.upper() for m in documented if m.upper() in _VERBS} | {
                m.strip() for m in headers.get("Allow", "").split(",") if m.strip()}
            allowed |= {"HEAD"} if "GET" in allowed else set()  # answered as GET (app.HeadAsGet)
            headers["Allow"] = ", ".join(sorted(allowed))
        return JSONResponse(body, status_code=exc.status_code, headers=headers, media_type=MEDIA_TYPE)

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        body = {"type": "about:blank", "title": "Internal Server Error", "status": 500,
                "detail": f"unexpected {type(exc).__name__}; the server log has the trace", "instance": request.url.path}
        return JSONResponse(body, status_code=500, media_type=MEDIA_TYPE)

    app.add_exception_handler(VaultError, vault_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
