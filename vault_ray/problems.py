"""The one mapping between the error tree and HTTP: RFC 9457 problem details.

The server turns any `VaultError` into an `application/problem+json` answer with
`to_problem` (status from `STATUS`, the error's class as the problem `type`, its
fields as extension members); the client turns such an answer back into the same
exception class with the same fields (`from_problem`). Both sides import this
module; neither has a table of its own.

::

    {"type": "tag:vault-ray,2026:problem:InvalidEntity", "title": "Invalid entity",
     "status": 422, "detail": "invalid entity 'User Diet!': fact 0 ...",
     "instance": "/v1/facts", "entity": "User Diet!"}
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from .errors import (
    ClusterError,
    DisputeError,
    Forbidden,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    PolicyConflict,
    RateLimited,
    ReasonerError,
    RestoreUnfinished,
    StoreError,
    UnknownAgent,
    VaultError,
)

MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "tag:vault-ray,2026:problem:"
STANDARD_MEMBERS = frozenset({"type", "title", "status", "detail", "instance"})

STATUS: dict[type[VaultError], int] = {
    UnknownAgent: 401,
    PayloadTooLarge: 413,
    InvalidInput: 422,
    Forbidden: 403,
    NotFound: 404,
    DisputeError: 409,
    PolicyConflict: 409,
    RestoreUnfinished: 409,  # before StoreError: not to retry, the store waits for its restore to be finished
    RateLimited: 429,
    ClusterError: 503,  # before StoreError: what a client assumes of an unknown 503
    StoreError: 503,
    ReasonerError: 503,
    VaultError: 500,
}
"""Status per class; an error takes the entry of its nearest ancestor (most specific wins)."""

MAX_RETRY_AFTER_S = 86_400
RETRYABLE = frozenset({503})
"""Statuses a client may retry as is (the request changed nothing, or is idempotent)."""


def status_of(error: VaultError | type[VaultError]) -> int:
    cls = error if isinstance(error, type) else type(error)
    return next(STATUS[c] for c in cls.__mro__ if c in STATUS)


def type_uri(cls: type[VaultError]) -> str:
    return TYPE_PREFIX + cls.__name__


def title_of(cls: type[VaultError]) -> str:
    """"InvalidEntity" -> "Invalid entity"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).capitalize()


def error_classes() -> dict[str, type[VaultError]]:
    """Every class of the tree by name (subclasses found by walking, not listed)."""
    found: dict[str, type[VaultError]] = {}
    todo: list[type[VaultError]] = [VaultError]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def to_problem(error: VaultError, instance: str | None = None) -> dict[str, Any]:
    """The problem details of `error`: standard members, then the error's fields."""
    cls = type(error)
    body: dict[str, Any] = {"type": type_uri(cls), "title": title_of(cls), "status": status_of(error),
                            "detail": str(error)}
    if instance is not None:
        body["instance"] = instance
    for name, value in vars(error).items():
        if not name.startswith("_") and name not in STANDARD_MEMBERS:
            body[name] = _jsonable(value)
    return body


def headers_for(error: VaultError) -> dict[str, str]:
    """Headers HTTP asks for with some statuses: Retry-After with 429, WWW-Authenticate with 401."""
    if isinstance(error, RateLimited):
        wait = error.retry_after
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not math.isfinite(wait):
            wait = MAX_RETRY_AFTER_S  # a rate so low that the budget never comes back in practice
        return {"Retry-After": str(max(1, min(MAX_RETRY_AFTER_S, math.ceil(wait))))}
    if isinstance(error, UnknownAgent):
        return {"WWW-Authenticate": 'Bearer realm="vault-ray"'}
    return {}


def from_problem(body: Mapping[str, Any] | None, status: int) -> VaultError:
    """The error a problem-details answer describes, rebuilt with its fields. An
    unknown type (a newer server, a proxy's own answer) gets the class its status
    names in `STATUS`."""
    body = body if isinstance(body, Mapping) else {}
    kind = body.get("type")
    cls = None
    if isinstance(kind, str) and kind.startswith(TYPE_PREFIX):
        cls = error_classes().get(kind[len(TYPE_PREFIX):])
    if cls is None:
        cls = fallback_class(status)
    detail = body.get("detail")
    error = cls.__new__(cls)
    error.args = (detail if isinstance(detail, str) else f"HTTP {status}",)
    error.__dict__.update({k: v for k, v in body.items() if k not in STANDARD_MEMBERS and isinstance(k, str)})
    return error


def fallback_class(status: int) -> type[VaultError]:
    named = next((cls for cls, s in STATUS.items() if s == status), None)
    if named is not None:
        return named
    return ClusterError if status >= 500 else InvalidInput


def _jsonable(value: Any) -> Any:
    if isinstance(value, str):  # a lone surrogate (refused input) cannot travel as UTF-8: escaped
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return repr(value)[:500]
