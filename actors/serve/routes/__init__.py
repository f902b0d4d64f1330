"""The routers of the app, one per area: health, writes, reads, admin. Each route is
a thin face: request model -> one `Vault` call (off the event loop) -> response model."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from fastapi import Request

from vault_ray.errors import InvalidInput

from ..errors import unauthenticated
from ..schemas import Problem

PROBLEM_TEXT = {
    401: "No token, or not a token of this server (UnknownAgent)",
    403: "The token's role does not allow this (Forbidden)",
    404: "No such claim, dispute or route (NotFound)",
    409: "A dispute conflict, the open-dispute cap, a policy change against a version it has left, or a "
         "change of a store whose restore is unfinished (DisputeError, DisputeCapExceeded, PolicyConflict, "
         "RestoreUnfinished)",
    413: "The request body is over the server's limit (PayloadTooLarge)",
    422: "Invalid input (InvalidInput and its subclasses); nothing was changed",
    429: "The agent's write budget is spent; see Retry-After (RateLimited)",
    503: "The store or the cluster is not available (StoreError, ClusterError, ReasonerError)",
}


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI answers for these statuses: problem details (application/problem+json)."""
    return {s: {"model": Problem, "description": PROBLEM_TEXT[s],
                "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
            for s in statuses}


READ = problems(401, 404, 422, 503)
WRITE = problems(401, 409, 413, 422, 429, 503)
ADMIN = problems(401, 403, 404, 409, 413, 422, 503)


_QUERY_NAMES: dict[int, frozenset[str]] = {}
_LISTS: dict[int, frozenset[str]] = {}


async def known_query_only(request: Request) -> None:
    """A query parameter the route does not take is a 422, not silently ignored
    (`?entiy=user.diet` would otherwise search everything)."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    if id(route) not in _QUERY_NAMES:
        _QUERY_NAMES[id(route)] = frozenset(_query_names(dependant))
        _LISTS[id(route)] = frozenset(_query_names(dependant, lists=True))
    allowed, lists = _QUERY_NAMES[id(route)], _LISTS[id(route)]
    unknown = sorted(set(request.query_params) - allowed)
    # a parameter that takes one value given twice (`k=5&k=6`) would be read as its last
    repeated = sorted({name for name in request.query_params
                       if len(request.query_params.getlist(name)) > 1} - set(unknown) - lists)
    if unknown or repeated:
        stranger = unauthenticated(request)  # who asks comes first: a stranger learns no parameter names
        if stranger is not None:
            raise stranger
        error = InvalidInput(f"unknown query parameter(s) {unknown}; this route takes {sorted(allowed)}" if unknown
                             else f"query parameter(s) {repeated} given more than once; each takes one value")
        error.errors = [{"loc": ["query", name], "msg": "unknown query parameter", "type": "extra_forbidden"}  # type: ignore[attr-defined]
                        for name in unknown] + [{"loc": ["query", name], "msg": "given more than once", "type": "repeated"}
                                                for name in repeated]  # as FastAPI's own 422s carry them
        raise error


def _many(annotation: Any) -> bool:
    """Whether a parameter's type takes several values (`list[str] | None`)."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(_many(a) for a in get_args(annotation))
    return origin in (list, tuple, set, frozenset)


def _query_names(dependant: Any, *, lists: bool = False) -> set[str]:
    """The query parameters a route and its dependencies declare (`lists`: those that take
    several values)."""
    names = {p.alias for p in dependant.query_params if not lists or _many(p.field_info.annotation)}
    for sub in dependant.dependencies:
        names |= _query_names(sub, lists=lists)
    return names
