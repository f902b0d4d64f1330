"""What the HTTP clients (`vault_ray.client`) send: one request (`Call`) and how to read its answer,
ids as path segments, times as ISO strings, the service's base URL checked before any request."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx

from .errors import InvalidInput
from .models import as_utc, routable
from .policy import Policy
from .policy_file import replaced_whole, warn_removed
from .problems import TYPE_PREFIX
from .wire import decode

SUGGESTIONS = "Vault-Suggestions"
"""The header of a list answer (history, search with `entity`) for a key no claim was ever made on: the stored
keys most like it, best first, comma-separated (entity keys hold no comma); `Found.suggestions` in Python."""


def suggested(header: str | None) -> tuple[str, ...]:
    """The keys a `Vault-Suggestions` header names."""
    return tuple(k.strip() for k in (header or "").split(",") if k.strip())


@dataclass(frozen=True)
class Call:
    """One request, and how to read its answer."""
    method: str
    path: str
    read: Callable[[Any], Any]
    params: dict[str, Any] | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    idempotent: bool = True  # safe to send again after a timeout or a 503 (a write whose ids are fixed, a read)
    found: bool = False  # a list answer read as `Found`, with the keys its `Vault-Suggestions` header names


def read_as(tp: Any) -> Callable[[Any], Any]:
    return lambda data: decode(tp, data)


def read_policy_noting(patch: Mapping[str, Any]) -> Any:
    """A policy answer read, with a warning of what `patch` dropped by a list (as `Vault.patch_policy`)."""
    def read(data: Any) -> Policy:
        warn_removed(replaced_whole(data.get("removed", []) if isinstance(data, Mapping) else [], patch))
        return decode(Policy, data)
    return read


def check_settings(token: object, timeout: object, retries: object) -> None:
    """A client's token, timeout and retries, or InvalidInput naming the one at fault, before any request."""
    if not isinstance(token, str) or not token:
        raise InvalidInput(f"token must be a non-empty string (vault-ray token add prints one), got {type(token).__name__}")
    if not token.isascii() or not token.isprintable():
        raise InvalidInput("token must be printable ASCII (vault-ray tokens are; it travels as a header)")
    if timeout is not None and not isinstance(timeout, httpx.Timeout) and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0):
        raise InvalidInput(f"timeout must be a number of seconds above 0, or None (no limit), got {timeout!r}")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidInput(f"retries must be a whole number of at least 0, got {retries!r}")


def count(value: object, name: str, most: int | None = None) -> int:
    """`value` as `Vault` takes a count (`search`'s k, `events`' limit: an int, not a bool or a string),
    or the InvalidInput `Vault` raises, before anything is sent."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (most is not None and value > most):
        raise InvalidInput(f"{name} must be a positive integer, got {value!r}" if most is None
                           else f"{name} must be an integer from 1 to {most}, got {value!r}")
    return value


def segment(value: str) -> str:  # an id as one path segment; one no route can take is refused here, not a bare 404
    if not routable(value):
        raise InvalidInput(f"an id must be a non-blank string without '/' (nor '.' or '..'), got {value!r}")
    return quote(value, safe="")


def wire_time(value: datetime | float | None, name: str) -> str | None:
    at = as_utc(value, field_name=name)
    return at.isoformat() if at is not None else None


def base_url(url: object) -> str:
    """The service's base URL, or InvalidInput before any request is made."""
    try:
        parsed = httpx.URL(url.strip()) if isinstance(url, str) else None
    except httpx.InvalidURL:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise InvalidInput(f"url must be an http:// or https:// address with a host, e.g. http://127.0.0.1:8000; "
                           f"got {str(url)[:100]!r}")
    return str(url).strip().rstrip("/")


def unrouted(body: Any, status: int, base: str, call: Call) -> Any:
    """`body` of a refused answer, but for a 404 that is no problem of vault-ray's own (FastAPI's `about:blank`
    for a path it has no route for, another server's page): the URL given is not the service's base URL (it
    names `/mcp` or `/v1`, another service), which a bare "Not Found" would not say."""
    if status != 404 or (isinstance(body, Mapping) and str(body.get("type", "")).startswith(TYPE_PREFIX)):
        return body
    return {"detail": f"{call.method} {base}{call.path} answered 404 Not Found: no vault-ray API there. Give the "
                      f"service's base URL as `vault-ray serve` printed it (http://HOST:PORT, without /v1 or /mcp)"}
