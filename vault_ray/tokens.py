"""Bearer tokens of the HTTP service: who an agent is, and what its role allows.

A token names one principal (the agent name its writes carry) and one role. The
store keeps only the SHA-256 of each token (`STORE/tokens.json`, rewritten
atomically, mode 0600): a token is 256 random bits, so a fast hash is enough, and
it is compared in constant time (`hmac.compare_digest`). The file is reread when
it changes, so `vault-ray token add | revoke` take effect in a running server
without a restart.

A token reads `vr_<id>_<secret>`: the id is public (listed, used to revoke), the
secret is shown once, when the token is made.

Roles are ordered by what they allow; a role allows everything the roles below it
do (`Principal.allows`, the one check): `agent` < `resolver` (settles disputes) <
`admin` (changes policy). A new role goes in its place in `ROLES`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import InvalidInput, NotFound, StoreError, UnknownAgent
from .jsonfile import RecordFile
from .texts import RESERVED_PREFIXES, check_agent

log = logging.getLogger(__name__)

ROLES: tuple[str, ...] = ("agent", "resolver", "admin")
"""Weakest first: an agent reads and writes as itself; a resolver may also settle
disputes (the person answering the inbox), but not change policy; an admin may do
everything."""
TOKENS_FILE = "tokens.json"
PREFIX = "vr_"


def role_rank(role: str) -> int:
    try:
        return ROLES.index(role)
    except ValueError:
        raise InvalidInput(f"role must be one of {list(ROLES)}, got {role!r}") from None


@dataclass(frozen=True)
class Principal:
    """Who sent a request: the agent name its writes carry, and its role."""

    name: str
    role: str
    token_id: str

    def allows(self, needed: str) -> bool:
        return role_rank(self.role) >= role_rank(needed)


@dataclass(frozen=True)
class TokenRecord:
    id: str
    agent: str
    role: str
    sha256: str
    created_at: float
    revoked_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


RESERVED_WHY = (f"starts with a prefix reserved for the store's built-in rules and strategies "
                f"({', '.join(RESERVED_PREFIXES)}): revoke it and issue a token under another name")
"""Why a token issued under such a name (before they were reserved) is refused."""


def check_name(agent: object) -> str:
    return check_agent(agent)  # the name every write of the token carries: as `Vault.agent` takes it


class TokenStore(RecordFile[TokenRecord]):
    """The tokens of one service, in one JSON file (owner-only; hashes, never the tokens)."""

    key, what = "tokens", "token"

    def _decode(self, row: dict[str, Any]) -> TokenRecord:
        return TokenRecord(**row)

    @classmethod
    def for_store(cls, store: str | Path) -> TokenStore:
        return cls(Path(store) / TOKENS_FILE)

    # -- managing (the CLI) -------------------------------------------------------------
    def add(self, agent: str, role: str = "agent") -> tuple[str, TokenRecord]:
        """A new token for `agent`; returns (the token, shown only now, and its record)."""
        check_name(agent)
        role_rank(role)
        with self._editing() as records:
            token_id = secrets.token_hex(4)
            while token_id in records:
                token_id = secrets.token_hex(4)
            token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
            record = TokenRecord(token_id, agent, role, digest(token), time.time())
            records[token_id] = record
        return token, record

    def list(self) -> list[TokenRecord]:
        return sorted(self._read().values(), key=lambda r: (r.created_at, r.id))

    def revoke(self, id_or_agent: str) -> list[TokenRecord]:
        """Revoke the token with this id, or else every active token of this agent."""
        self._chosen(self._read(), id_or_agent)  # none: refused before the file is locked (nothing made beside it)
        with self._editing() as records:
            chosen = self._chosen(records, id_or_agent)
            now = time.time()
            for r in chosen:
                records[r.id] = TokenRecord(**{**asdict(r), "revoked_at": now})
        return [records[r.id] for r in chosen]

    def _chosen(self, records: dict[str, TokenRecord], id_or_agent: str) -> list[TokenRecord]:
        by_id = [records[id_or_agent]] if id_or_agent in records else []
        chosen = [r for r in by_id or records.values() if r.active and (by_id or r.agent == id_or_agent)]
        if not chosen:
            raise NotFound(f"no active token with id or agent {id_or_agent!r} in {self.path}")
        return chosen

    # -- checking (the server) -------------------------------------------------------------
    def authenticate(self, token: str | None) -> Principal:
        """The principal of an active token, or UnknownAgent (missing, malformed, unknown, revoked)."""
        if not token:
            raise UnknownAgent(why="no bearer token")
        token_id = _token_id(token)
        try:
            records = self._current()
        except StoreError as exc:  # the operator reads the file's path and the cause in the log; a caller, neither
            log.error("%s", exc)
            raise StoreError("the server cannot read its token file: an operator must repair it (the server log "
                             "says why)") from None
        record = records.get(token_id) if token_id else None
        # compare even when the id is unknown, so the answer takes the same time
        expected = record.sha256 if record is not None else "0" * 64
        if not hmac.compare_digest(digest(token), expected) or record is None:
            raise UnknownAgent(why="not a token of this server")
        if not record.active:
            raise UnknownAgent(record.id, "revoked")
        if record.agent.casefold().startswith(RESERVED_PREFIXES):  # issued before the prefixes were reserved
            raise UnknownAgent(record.id, f"its name {record.agent!r} {RESERVED_WHY}")
        return Principal(record.agent, record.role, record.id)

    def recheck(self, who: Principal) -> None:
        """UnknownAgent once `who`'s token is revoked (or gone): what a long request (an event
        stream) asks again while it runs, since it authenticated only when it began."""
        try:
            record = self._current().get(who.token_id)
        except StoreError as exc:
            log.error("%s", exc)
            raise StoreError("the server cannot read its token file: an operator must repair it") from None
        if record is None or not record.active:
            raise UnknownAgent(who.token_id, "revoked")


def _token_id(token: str) -> str | None:
    if not token.startswith(PREFIX):
        return None
    token_id, sep, secret = token[len(PREFIX):].partition("_")
    return token_id if sep and secret else None
