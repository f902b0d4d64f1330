"""Webhooks: URLs an admin registers to be told of events, and how each delivery is
signed (what a receiver checks with `verify`).

Registrations live in the store, `STORE/webhooks.json` (rewritten atomically under a
file lock, mode 0600: it holds the secrets, which signing needs in the clear), like
the token file. `vault_ray.delivery.Dispatcher` delivers; its state is beside them.

A delivery is one event, its JSON as the body (`VaultEvent`), with these headers:

    Vault-Webhook-Id:         the registration's id
    Vault-Event-Id:           the event's id (`<partition>-<seq>`)
    Vault-Event-Kind:         its kind
    Idempotency-Key:          `<webhook id>.<event id>`: the same on every retry of it
    Vault-Delivery-Attempt:   1, 2, ...
    Vault-Webhook-Timestamp:  unix seconds when this attempt was signed
    Vault-Webhook-Signature:  v1=<hex HMAC-SHA256(secret, "<timestamp>." + body)>

The timestamp is inside the signature, so a receiver that refuses old timestamps
(`verify`'s `tolerance_s`) refuses replays too.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import InvalidInput, NotFound
from .events import NOW, START, EventFilter
from .jsonfile import RecordFile

WEBHOOKS_FILE = "webhooks.json"
SIGNATURE_HEADER = "Vault-Webhook-Signature"
TIMESTAMP_HEADER = "Vault-Webhook-Timestamp"
TOLERANCE_S = 300


@dataclass(frozen=True)
class Webhook:
    id: str
    url: str
    secret: str
    kinds: tuple[str, ...] | None = None
    """None: every kind."""
    needs_user_only: bool = False
    entity: str | None = None
    """An entity key or pattern (`user.budget.*`); None: every entity."""
    since: str = NOW
    """"now": events from its registration on; "start": the whole history first."""
    created_at: float = 0.0

    @property
    def wanted(self) -> EventFilter:
        return EventFilter.of(self.kinds, True if self.needs_user_only else None, self.entity)

    def public(self) -> dict[str, object]:
        """Everything but the secret."""
        return {k: v for k, v in asdict(self).items() if k != "secret"}


def signature(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"v1={mac.hexdigest()}"


def verify(secret: str, body: bytes, headers: Mapping[str, str], *, tolerance_s: float = TOLERANCE_S,
           now: float | None = None) -> bool:
    """Is this delivery from the store that knows `secret`, signed within `tolerance_s`?
    `headers` as received (any mapping; names are matched without regard to case)."""
    found = {str(k).lower(): v for k, v in headers.items()}
    timestamp = found.get(TIMESTAMP_HEADER.lower(), "")
    given = found.get(SIGNATURE_HEADER.lower(), "")
    # anyone can send junk: only ASCII digits of a sane length are a time, only ASCII a signature
    if not isinstance(timestamp, str) or not isinstance(given, str) or not re.fullmatch(r"[0-9]{1,12}", timestamp):
        return False
    if abs((now if now is not None else time.time()) - int(timestamp)) > tolerance_s or not given.isascii():
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), given)


def check_url(url: object) -> str:
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or len(url) > 2000:  # type: ignore[arg-type]
        raise InvalidInput(f"a webhook URL is an http:// or https:// URL with a host, got {url!r}")
    return url  # type: ignore[return-value]


def check_registration(url: object, *, secret: object = None, kinds: list[str] | tuple[str, ...] | None = None,
                       entity: str | None = None, since: object = NOW) -> None:
    """InvalidInput for a registration `WebhookStore.add` would refuse (the CLI asks before it looks for the file)."""
    check_url(url)
    if secret is not None and (not isinstance(secret, str) or len(secret) < 16):
        raise InvalidInput("a webhook secret has at least 16 characters")
    if since not in (NOW, START):
        raise InvalidInput(f"since is '{NOW}' or '{START}', got {since!r}")
    EventFilter.of(kinds, None, entity)  # the same checks the event stream makes


class WebhookStore(RecordFile[Webhook]):
    """The registrations of one store, in one JSON file (owner-only: it holds the secrets)."""

    key, what = "webhooks", "webhook"

    def _decode(self, row: dict[str, Any]) -> Webhook:
        return Webhook(**{**row, "kinds": tuple(row["kinds"]) if row.get("kinds") else None})

    @classmethod
    def for_store(cls, store: str | Path) -> WebhookStore:
        return cls(Path(store) / WEBHOOKS_FILE)

    def add(self, url: str, *, secret: str | None = None, kinds: list[str] | tuple[str, ...] | None = None,
            needs_user_only: bool = False, entity: str | None = None, since: str = NOW) -> Webhook:
        """Register `url`; the secret is generated unless given (at least 16 characters)."""
        check_registration(url, secret=secret, kinds=kinds, entity=entity, since=since)
        with self._editing() as hooks:
            hook = Webhook(f"wh_{secrets.token_hex(6)}", url, secret or f"whsec_{secrets.token_urlsafe(32)}",
                           tuple(kinds) if kinds else None, needs_user_only, entity, since, time.time())
            hooks[hook.id] = hook
        return hook

    def remove(self, hook_id: str) -> Webhook:
        self._known(self._read(), hook_id)  # none: refused before the file is locked (nothing made beside it)
        with self._editing() as hooks:
            return hooks.pop(self._known(hooks, hook_id))

    def _known(self, hooks: dict[str, Webhook], hook_id: str) -> str:
        if hook_id not in hooks:
            raise NotFound(f"no webhook {hook_id!r} in {self.path}")
        return hook_id

    def list(self) -> list[Webhook]:
        """The registrations, reread when the file changed."""
        return sorted(self._current().values(), key=lambda h: (h.created_at, h.id))
