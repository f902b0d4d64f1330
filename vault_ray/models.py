"""Immutable values: facts in, claims and disputes stored, decisions and views out.
Models do no I/O. Times are timezone-aware UTC datetimes."""

from __future__ import annotations

import math
import numbers
import os
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

from .errors import InvalidEntity, InvalidFact, InvalidInput, did_you_mean
from .frozen import EMPTY, ReadOnlyDict, read_only
from .nesting import clipped
from .texts import shown

ENTITY_RE = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*\Z")  # \Z: `$` would let a trailing newline through
MAX_ENTITY_LEN = 128
T = TypeVar("T")
MAX_FUTURE = timedelta(days=1)
"""How far ahead of the vault's clock a fact's observed_at may be (clock skew, a local
time taken for UTC); a later one is refused, as it would outrank every write until then."""
MAX_SESSION = 256  # characters of a write's session name (the HTTP schema's limit too)
MAX_QUERY = 20_000  # characters of a search query (the model reads its first 256 tokens)
MAX_NOTE = 4096  # characters of a dispute resolution's note


class Kind(StrEnum):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"
    RETRACTED = "retracted"
    """Taken back by a person (`Vault.retract`): kept for audit, never read, never brought back."""

    @property
    def live(self) -> bool:
        """Active or disputed: what the partition holds in memory and reads consider."""
        return self is Status.ACTIVE or self is Status.DISPUTED


class Op(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    REPLACE = "REPLACE"
    NOOP = "NOOP"


class Outcome(StrEnum):
    ACTIVE = "active"
    DISPUTED = "disputed"
    SUPERSEDED = "superseded"
    NOOP = "noop"


class DisputeStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | float | int | None, *, field_name: str = "observed_at") -> datetime | None:
    """Normalize a datetime or epoch seconds to an aware UTC datetime; a naive datetime is taken as UTC.
    A bad time is InvalidFact for a fact's observed_at, InvalidInput for a call's (as_of, now): no fact is in it."""
    if value is None:
        return None
    def bad(message: str) -> InvalidInput:
        return InvalidFact(message, field=field_name) if field_name == "observed_at" else InvalidInput(message)

    if isinstance(value, bool) or not isinstance(value, numbers.Integral | float | datetime):  # numpy's ints too, not float32
        raise bad(f"{field_name} must be a datetime or epoch seconds, got {shown(value)}")
    if not isinstance(value, datetime) and not math.isfinite(value):
        raise bad(f"{field_name} must be finite, got {value!r}")
    try:
        if isinstance(value, datetime):
            return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return datetime.fromtimestamp(float(value), UTC)
    except (OverflowError, OSError, ValueError):  # also 0001-01-01 at +05:00: before the first UTC time
        said = value.isoformat() if isinstance(value, datetime) else repr(value)
        ms = not isinstance(value, datetime) and 1e11 < abs(value) < 1e15  # epoch milliseconds (JavaScript's Date.now())
        hint = " (epoch seconds are wanted: milliseconds / 1000)" if ms else ""
        raise bad(f"{field_name} {said} is outside the representable times{hint}") from None


EPOCH_TEXT = re.compile(r"\s*[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|inf|infinity|nan)\s*", re.IGNORECASE)


def to_epoch(value: datetime) -> float:
    return value.timestamp()


def from_epoch(value: float) -> datetime:
    return datetime.fromtimestamp(value, UTC)


def validate_entity(entity: object) -> str:
    if not isinstance(entity, str) or not entity:
        raise InvalidEntity(entity, "must be a non-empty string")
    if len(entity) > MAX_ENTITY_LEN:
        raise InvalidEntity(entity, f"longer than {MAX_ENTITY_LEN} characters")
    if not ENTITY_RE.match(entity):
        raise InvalidEntity(entity)
    return entity


def routable(value: object) -> bool:
    """Whether an id can be one URL path segment: a non-blank string without '/', not '.' or '..'."""
    return isinstance(value, str) and bool(value.strip()) and "/" not in value and value not in (".", "..")


def new_id() -> str:
    return new_ids(1)[0]


def new_ids(n: int) -> list[str]:
    """`n` fresh ids, each what `new_id` gives (a random version-4 UUID in hex), from one
    read of the system's randomness: a bulk write's ids cost 0.3 µs each instead of 2.2."""
    if n <= 0:
        return []
    raw = bytearray(os.urandom(16 * n))
    raw[6::16] = bytes((b & 0x0F) | 0x40 for b in raw[6::16])  # version 4
    raw[8::16] = bytes((b & 0x3F) | 0x80 for b in raw[8::16])  # the RFC 4122 variant
    text = raw.hex()
    return [text[i:i + 32] for i in range(0, 32 * n, 32)]


_KEYED_IDS = uuid.UUID("5b0c4d0e-6a56-4f5e-9a43-7661756c7472")


def keyed_id(agent: str, key: str, position: int) -> str:
    """The claim id of the fact at `position` of `agent`'s request with idempotency `key`."""
    return uuid.uuid5(_KEYED_IDS, f"{agent}\x00{key}\x00{position}").hex


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact to store: what `add_facts` takes and what extraction produces."""

    entity: str
    text: str
    value: str | None = None
    kind: str = "semantic"
    """`semantic`, `procedural`: conflicts apply. `episodic` (an event): never contradicts nor supersedes (policies.md)."""
    observed_at: datetime | float | None = None
    """When it was true (said): a datetime or epoch seconds; a naive datetime is read as UTC
    (`datetime.now()` is local time: pass `datetime.now(UTC)`); None: the write's time."""
    claim_id: str | None = None
    confidence: float = 1.0
    meta: dict[str, Any] | None = None
    source: str | None = None
    """What was said, as said: the user turn an extracted fact came from (set by `add`)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One stored fact with its provenance and lifecycle."""

    id: str
    entity: str
    text: str
    value: str | None
    kind: Kind
    agent: str
    session: str | None
    observed_at: datetime
    recorded_at: datetime
    status: Status
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    confidence: float = 1.0
    meta: dict[str, Any] = field(default_factory=dict)
    aligned_from: str | None = None
    embedding: Any = field(default=None, repr=False, compare=False)
    source: str | None = None
    """The user turn an extracted claim came from, as said (`text` is the rewrite)."""

    def __post_init__(self) -> None:  # meta read-only (frozen.py); one an older store kept too deep: clipped (nesting.py)
        if not isinstance(self.meta, ReadOnlyDict):
            object.__setattr__(self, "meta", read_only(clipped(self.meta)) if self.meta else EMPTY)


@dataclass(frozen=True, slots=True)
class Resolution:
    """How a dispute ended: the `winner` claim (None: `keep_both`, or closed by a merge or join), who, why and when."""
    winner: str | None
    decided_by: str
    note: str
    at: datetime
    keep_both: bool = False


@dataclass(frozen=True, slots=True)
class Retraction:
    """A claim a person took back (`Vault.retract`): who, when, why, and the open disputes it left."""

    claim: Claim
    """The claim as it stands now (status `retracted`)."""
    decided_by: str
    note: str
    at: datetime
    disputes: tuple[str, ...] = ()
    already: bool = False
    """It was retracted before this call, which changed nothing (the first retraction's who and when)."""


@dataclass(frozen=True, slots=True)
class Dispute:
    """A challenger claim contradicting incumbent claim(s), and how it ended."""

    id: str
    entity: str
    challenger: str
    incumbents: tuple[str, ...]
    reason: str
    status: DisputeStatus
    needs_user: bool
    challenges: int
    opened_at: datetime
    resolution: Resolution | None = None
    challenger_agent: str = ""
    supporters: tuple[str, ...] = ()
    """Later claims by other agents asserting the challenger's value."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What the store did with one incoming fact, and why."""

    entity: str
    op: Op
    outcome: Outcome
    claim_id: str
    aligned_from: str | None = None
    superseded: tuple[str, ...] = ()
    dispute_id: str | None = None
    strategy: str | None = None
    reason: str = ""
    value: str | None = None
    """The value of the claim `claim_id` names (the stored one a NOOP names), so a
    caller need not read the claim back; None when the claim has no value."""


@dataclass(frozen=True, slots=True)
class Unextracted:
    """A part of the user turn that reads as a statement about the user but gave no fact."""

    text: str
    reason: str
    note_id: str | None = None
    """The claim id of the free-text note it was kept as (`Policy.unextracted_notes`)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One state change of the store, as the claim log records it.

    `status` is the claim's status after the change (what point-in-time reads replay);
    `detail` carries the decision behind it (pass, op, strategy, weights, reason, ...)."""

    ts: float
    """When it was recorded, as epoch seconds (what the log stores; `at` is the same time as a datetime)."""
    entity: str
    kind: str
    claim_id: str | None = None
    dispute_id: str | None = None
    agent: str | None = None
    status: str | None = None
    superseded_by: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def at(self) -> datetime:
        """`ts` as a timezone-aware UTC datetime, like every other time the API gives (`VaultEvent.ts` of the stream)."""
        return from_epoch(self.ts)


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """One agent's write in `Vault.write_batch`: `facts` (as `add_facts` takes them) or
    `messages` (a user turn to extract from, as `add` takes it), not both."""

    agent: str
    facts: Any = None
    messages: Any = None
    session: str | None = None
    observed_at: datetime | float | None = None
    """Default event time of extracted facts (messages only: with `facts`, InvalidInput); naive = UTC."""
    vectors: Any = None
    """Precomputed embeddings of `facts`, one row per fact."""
    resolve: bool = True
    key: str | None = None
    """An idempotency key: facts without a claim id get ids derived from (agent, key,
    position), so a retried request (extracted facts included) applies once."""


@dataclass(frozen=True, slots=True)
class AddResult:
    """What `add` did: one decision per fact written (in order; `result[0]` is `result.decisions[0]`),
    and each part of the user turn that read as a statement about the user but gave no fact."""

    decisions: tuple[Decision, ...]
    unextracted: tuple[Unextracted, ...] = ()

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.decisions)

    def __len__(self) -> int:
        return len(self.decisions)

    def __getitem__(self, index: int) -> Decision:
        return self.decisions[index]


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result: one value of an entity; other agents' claims of it are `agreeing`."""
    claim: Claim
    score: float
    contested: bool = False
    alternatives: tuple[Claim, ...] = ()
    agreeing: tuple[Claim, ...] = ()


@dataclass(frozen=True, slots=True)
class Candidate:
    """One value competing in an open dispute, with its provenance."""

    claim: Claim
    weight: float
    dispute_id: str | None


@dataclass(frozen=True, slots=True)
class EntityView:
    """The current view of one entity. While a dispute is open, every value shows.

    `active` holds every active claim, facts and events alike (each with its `kind`);
    `values` are the facts' values only, and `events` the events apart (policies.md)."""

    entity: str
    active: tuple[Claim, ...]
    contested: bool
    candidates: tuple[Candidate, ...]
    disputes: tuple[Dispute, ...]
    events: tuple[Claim, ...] = field(init=False, default=())
    """The events (episodic claims) among `active`, oldest first: what happened and when (`observed_at`), no value."""
    suggestions: tuple[str, ...] = ()
    """When no claim was ever made on `entity` (a typo?): the stored keys most like it, best first; else empty."""
    values: tuple[str, ...] = ()
    """The current value(s), each once: the facts' (every competing one while a dispute is open),
    no event. Claims that say one value (the engine's canonical value: "Google" from three agents,
    "PST" and "Pacific time") give it once, in the words of the first of them in `active` (or,
    while contested, `candidates`); who says it, and how often, is there. Reads fill it; a view
    built without it lists the distinct values as said."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", tuple(c for c in self.active if c.kind == Kind.EPISODIC))
        if not self.values:
            object.__setattr__(self, "values", tuple(dict.fromkeys(c.value or c.text for c in self.value_claims())))

    def value_claims(self) -> tuple[Claim, ...]:
        """The claims behind `values`: the candidates while contested, else the active facts (no event)."""
        shown = (c.claim for c in self.candidates) if self.contested else self.active
        return tuple(c for c in shown if c.kind != Kind.EPISODIC)

    @property
    def did_you_mean(self) -> str:
        """"did you mean 'user.employer'?" for an empty view with `suggestions` ("" without)."""
        return did_you_mean(self.suggestions)


class Found(list[T]):
    """The list `history` and `search(entity=...)` answer: a list, whose `suggestions` name the
    stored keys most like the entity key asked when no claim was ever made on it (a typo?),
    best first, as `EntityView.suggestions` does for `get`; empty otherwise."""

    def __init__(self, items: Iterable[T] = (), suggestions: Iterable[str] = ()) -> None:
        super().__init__(items)
        self.suggestions: tuple[str, ...] = tuple(suggestions)

    @property
    def did_you_mean(self) -> str:
        return did_you_mean(self.suggestions)
