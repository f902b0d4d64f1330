"""The public event stream: what a person or a supervising system may care about,
read from the claim logs' event rows (so a restart loses none).

The claim log records every state change in its own terms (`claim_added`,
`status_changed`, `noop`, ...; `vault_ray.models.Event`). This module maps them
onto a small, stable schema (`VaultEvent`, kinds in `KINDS`) and reads them in
pages after a cursor.

**The cursor.** Every partition numbers its events 0, 1, 2, ... (the log's `seq`,
kept on disk). A cursor is, per partition, how many of its events a reader has
consumed: `v1.0-12.3-5` means partition 0's first 12 and partition 3's first 5.
It is total and stable across partitions, processes and restarts: reading after a
cursor returns exactly the events not yet consumed, with no gap and no repeat,
whatever order concurrent writes committed in. Across partitions events come in
time order (`ts`, then partition and seq); within one, in the log's order. Every
event carries the cursor that resumes right after it (`VaultEvent.cursor`, the SSE
`id:`), and a page carries the cursor after everything it scanned, filtered out
or not (`EventPage.cursor`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from .errors import InvalidInput
from .models import Event, from_epoch
from .policy import specificity, validate_pattern

KINDS: tuple[str, ...] = (
    "claim_added", "claim_superseded", "claim_activated", "claim_retracted", "claim_erased",
    "dispute_opened", "dispute_challenged", "dispute_changed", "dispute_resolved", "consensus_flipped",
)
"""The public kinds. `dispute_*` events carry `needs_user`; `dispute_resolved` says who
decided and how; `claim_retracted` who retracted the claim (`decided_by`) and why (`note`);
`claim_erased` that its content was removed (`Vault.erase`): a consumer drops its copies of
the claim; `dispute_changed` an open dispute that goes on without a member (detail
`retracted` and `retracted_by`, or `withdrawn`), took in a value (`joined`), or that
a policy change made wait for a person or no longer (`reason` `high_stakes` or
`high_stakes_lifted`), or whose reason changed because a claim took its incumbent's place
(`replaced`: the incumbents it lists, engine/outlived.py): no new challenge."""
DISPUTE_KINDS: tuple[str, ...] = ("dispute_opened", "dispute_challenged", "dispute_changed", "dispute_resolved")
START, NOW = "start", "now"
"""Special cursors: the beginning of the log, and its current end."""
VERSION = "v1"
DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class VaultEvent:
    """One change of the store, in the stable public schema."""

    id: str
    """`<partition>-<seq>`: unique in its store, stable across restarts."""
    cursor: str
    """Resume right after this event (what an SSE stream sends as `id:`)."""
    kind: str
    ts: datetime
    entity: str
    claim_id: str | None = None
    dispute_id: str | None = None
    agent: str | None = None
    """Who made the change: the writing agent, or who decided a resolution."""
    status: str | None = None
    """The claim's status after the change (claim events)."""
    superseded_by: str | None = None
    needs_user: bool | None = None
    """Dispute events: does the dispute wait for a person?"""
    decided_by: str | None = None
    how: str | None = None
    """`dispute_resolved`: "winner" (someone picked it), "keep_both", "rule" or "strategy"."""
    winner: str | None = None
    note: str | None = None
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    """The decision as the log records it (pass, op, strategy, weights, ...); keys may grow."""


@dataclass(frozen=True, slots=True)
class EventPage:
    """Events after a cursor, and the cursor after all that was scanned."""

    events: tuple[VaultEvent, ...]
    cursor: str
    more: bool = False
    """More events may follow at once (the page was full)."""

    def __iter__(self) -> Iterator[VaultEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


# -- the cursor ---------------------------------------------------------------------------------
def encode_cursor(positions: dict[int, int]) -> str:
    return VERSION + "".join(f".{p}-{n}" for p, n in sorted(positions.items()) if n > 0)


def parse_cursor(cursor: str, partitions: int) -> dict[int, int]:
    """Positions per partition; InvalidInput for anything else (another store's cursor too)."""
    if not isinstance(cursor, str):
        raise InvalidInput(f"a cursor is a string, got {type(cursor).__name__}")
    if cursor in ("", START):
        return {}
    head, *pairs = cursor.split(".")
    positions: dict[int, int] = {}
    for pair in pairs:
        p, sep, n = pair.partition("-")
        if not (sep and p.isdigit() and n.isdigit() and p.isascii() and n.isascii()) or int(p) in positions:
            break
        positions[int(p)] = int(n)
    else:
        if head == VERSION and all(p < partitions for p in positions):
            return positions
    raise InvalidInput(f"not an event cursor of this store: {cursor[:100]!r} (expected '{START}', '{NOW}' or "
                       f"a cursor an event or page carried, like 'v1.0-12.3-5')")


# -- the mapping ----------------------------------------------------------------------------------
def public_kind(e: Event) -> str | None:
    """The public kind of a log event, or None for one that changed nothing (noop)."""
    if e.kind == "status_changed":
        return {"superseded": "claim_superseded", "active": "claim_activated",
                "retracted": "claim_retracted"}.get(e.status or "")
    return e.kind if e.kind in KINDS else None


def resolution_how(detail: dict[str, Any]) -> str:
    if detail.get("keep_both"):
        return "keep_both"
    by = str(detail.get("decided_by") or "")
    if by.startswith("rule:"):
        return "rule"
    if by.startswith("strategy:"):
        return "strategy"
    return "winner"


def to_public(e: Event, partition: int, seq: int, cursor: str) -> VaultEvent | None:
    kind = public_kind(e)
    if kind is None:
        return None
    d = e.detail
    disputed = kind in DISPUTE_KINDS
    resolved = kind == "dispute_resolved"
    decided = resolved or kind in ("claim_retracted", "claim_erased")
    needs_user = d.get("needs_user") if disputed else None
    return VaultEvent(
        id=f"{partition}-{seq}", cursor=cursor, kind=kind, ts=from_epoch(e.ts), entity=e.entity, claim_id=e.claim_id,
        dispute_id=e.dispute_id or d.get("dispute"), agent=e.agent, status=None if disputed else e.status,
        superseded_by=e.superseded_by, needs_user=bool(needs_user) if needs_user is not None else None,
        decided_by=d.get("decided_by") if decided else None, how=resolution_how(d) if resolved else None,
        winner=d.get("winner") if resolved else None, note=d.get("note") if decided else None,
        reason=d.get("reason"), detail=dict(d),
    )


@dataclass(frozen=True)
class EventFilter:
    """Which events a reader wants: kinds, only those waiting for a person, an entity pattern."""

    kinds: frozenset[str] | None = None
    needs_user: bool | None = None
    entity: str | None = None
    """An entity key, a pattern ending in `.*` (the key and its subtree) or `*`."""

    @classmethod
    def of(cls, kinds: Iterable[str] | str | None = None, needs_user: bool | None = None,
           entity: str | None = None) -> EventFilter:
        if isinstance(kinds, str):
            kinds = [k for k in kinds.split(",") if k]
        chosen = frozenset(kinds) if kinds is not None else None
        if chosen is not None and (unknown := sorted(chosen - set(KINDS))):
            raise InvalidInput(f"unknown event kind(s) {unknown}; the kinds are {list(KINDS)}")
        if needs_user is not None and not isinstance(needs_user, bool):
            raise InvalidInput(f"needs_user must be true, false or absent, got {needs_user!r}")
        if entity is not None:
            try:
                validate_pattern(entity)
            except InvalidInput as exc:
                raise InvalidInput(f"entity must be an entity key or a pattern like 'user.budget.*': {exc}") from None
        return cls(chosen or None, needs_user, entity)

    def matches(self, e: VaultEvent) -> bool:
        return ((self.kinds is None or e.kind in self.kinds)
                and (self.needs_user is None or bool(e.needs_user) == self.needs_user)
                and (self.entity is None or specificity(self.entity, e.entity) is not None))


# -- reading ---------------------------------------------------------------------------------------
class EventLog(Protocol):
    """What reading needs of where the partitions live (both backends)."""

    partitions: int

    def events_from(self, positions: dict[int, int], limit: int) -> list[tuple[int, int, Event]]: ...
    def event_heads(self) -> dict[int, int]: ...


def start_positions(log: EventLog, since: str | None) -> dict[int, int]:
    if since == NOW:
        return {p: n for p, n in log.event_heads().items() if n > 0}
    positions = parse_cursor(since or START, log.partitions)
    if positions:  # a cursor past a partition's end would wait there for events that already came
        heads = log.event_heads()
        ahead = sorted(p for p, n in positions.items() if n > heads.get(p, 0))
        if ahead:
            raise InvalidInput(f"not an event cursor of this store: {str(since)[:100]!r} is past the end of partition "
                               f"{ahead[0]} ({positions[ahead[0]]} events read of {heads.get(ahead[0], 0)})")
    return positions


def read_events(log: EventLog, since: str | None, wanted: EventFilter | None = None,
                limit: int = DEFAULT_LIMIT) -> EventPage:
    """Up to `limit` log events after `since` (a cursor, "start" or "now"), those `wanted`
    as public events, and the cursor after all of them."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
    positions = start_positions(log, since)
    rows = log.events_from(positions, limit)
    per_part: dict[int, list[tuple[int, int, Event]]] = {}
    for row in rows:
        per_part.setdefault(row[0], []).append(row)
    # a k-way merge looks only at each partition's next event, so every partition is
    # consumed as a prefix of its own order: the cursor never skips one of its events
    merged = heapq.merge(*(sorted(r, key=lambda x: x[1]) for r in per_part.values()),
                         key=lambda x: (x[2].ts, x[0], x[1]))
    found: list[VaultEvent] = []
    scanned = 0
    for p, seq, e in merged:
        if scanned == limit:
            break
        scanned += 1
        positions[p] = seq + 1
        public = to_public(e, p, seq, encode_cursor(positions))
        if public is not None and (wanted is None or wanted.matches(public)):
            found.append(public)
    more = scanned < len(rows) or any(len(r) >= limit for r in per_part.values())
    return EventPage(tuple(found), encode_cursor(positions), more)


def sse_messages(lines: Iterable[str]) -> Iterator[tuple[str | None, str]]:
    """(id, data) of each message of a Server-Sent Events stream; `id` is None when the
    message set none, `data` empty for a message that only moved the cursor."""
    parser = SseParser()
    for line in lines:
        message = parser.feed(line)
        if message is not None:
            yield message


class SseParser:
    """Server-Sent Events, a line at a time: `feed` gives (id, data) when a message ends."""

    def __init__(self) -> None:
        self.event_id: str | None = None
        self.data: list[str] = []

    def feed(self, line: str) -> tuple[str | None, str] | None:
        if not line:
            done = (self.event_id, "\n".join(self.data)) if self.event_id is not None or self.data else None
            self.event_id, self.data = None, []
            return done
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "id":
            self.event_id = value
        elif name == "data":
            self.data.append(value)
        return None
