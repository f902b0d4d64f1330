"""Point in time: the store as it stood at a moment, replayed from the event log.

The claims table keeps every claim ever made (text, provenance, embedding) with its
*current* status; the events table records every state change with the claim's
status after it. Replaying the events up to `at` gives each claim's status then:

- a claim exists at `at` if its `claim_added` event is at or before `at` (a claim
  with no events at all, e.g. bulk-imported, exists from its `recorded_at` with its
  stored status);
- its status and `superseded_by` are those of its last `claim_added` /
  `status_changed` event at or before `at`;
- a dispute exists from its `dispute_opened` event and is what its last dispute
  event at or before `at` recorded (challenger, incumbents, supporters, status,
  needs_user, challenges, resolution: dispute_replay.py), never what a later
  change (a retraction, a withdrawn challenge, a new supporter) made of it.

Times are the store's *recording* times (when a change was applied), not the
claims' `observed_at`. Before the first write the store was empty: `get` answers an
empty, uncontested view and `search` answers no hits. A time after the last write
answers the current state.

The same `entity_view` (views.py) builds `get`'s answer now and at any past time,
so the two can not drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

import numpy as np

from vault_ray.storage.erase import is_erased

from ..models import Claim, Dispute, DisputeStatus, EntityView, Event, Status, to_epoch
from ..policy import Policy
from .dispute_replay import DisputeTrack, legacy_ids
from .partition import Partition
from .views import Scored, entity_view, merge_top, pending_ids, strip

CLAIM_EVENTS = ("claim_added", "status_changed")


@dataclass(frozen=True)
class Snapshot:
    """Claims and disputes as they stood at `at` (one partition, or one entity)."""

    at: datetime
    claims: dict[str, Claim]
    disputes: dict[str, Dispute]

    def live_on(self, entity: str) -> list[Claim]:
        return [c for c in self.claims.values() if c.entity == entity and c.status.live]

    def view(self, entity: str, policy: Policy) -> EntityView:
        disputes = [d for d in self.disputes.values() if d.entity == entity]
        return entity_view(entity, self.live_on(entity), disputes, policy, self.claims.get)

    def active(self) -> list[Claim]:
        return [c for c in self.claims.values() if c.status == Status.ACTIVE]


def replay(claims: Iterable[Claim], events: Sequence[Event], rows: Callable[[str], Dispute | None],
           at: datetime) -> Snapshot:
    """Replay `events` (in log order) up to and including `at` over the stored claims;
    disputes from their events' records (`rows`: a dispute's stored row, read only for
    disputes written before records were kept). See the module docstring for the rules."""
    until = to_epoch(at)
    stored = {c.id: c for c in claims}
    state: dict[str, tuple[str, str | None]] = {}
    has_events: set[str] = set()
    track = DisputeTrack(rows)
    for e in events:
        if e.kind in CLAIM_EVENTS and e.claim_id is not None:
            has_events.add(e.claim_id)
        track.see(e)
    for e in events:
        if e.ts > until:
            continue
        if e.kind in CLAIM_EVENTS and e.claim_id is not None and e.status is not None:
            state[e.claim_id] = (e.status, e.superseded_by)
        track.apply(e)
    out: dict[str, Claim] = {}
    erased = {cid for cid, claim in stored.items() if is_erased(claim)}
    for cid, claim in stored.items():
        if cid in erased:  # erased: not read at any time, past or present
            continue
        if cid in state:
            status, by = state[cid]
            out[cid] = replace(strip(claim), status=Status(status), superseded_by=by)
        elif cid not in has_events and to_epoch(claim.recorded_at) <= until:
            out[cid] = strip(claim)
    disputes = {did: d for did, d in track.now.items()  # one between erased claims only is gone with them
                if not erased or any(i not in erased for i in (d.challenger, *d.incumbents, *d.supporters))}
    return Snapshot(at, out, disputes)


class EntityLog(Protocol):
    """The reads `view_as_of` needs (every backend has them)."""

    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]: ...
    def history(self, entity: str) -> list[Claim]: ...
    def dispute(self, dispute_id: str) -> Dispute: ...


def view_as_of(log: EntityLog, entity: str, at: datetime, policy: Policy) -> EntityView:
    """`get(entity, as_of=at)`: the entity's history replayed through its events."""
    events = log.events(entity=entity)
    rows = {did: log.dispute(did) for did in sorted(legacy_ids(events))}  # older stores only
    return replay(log.history(entity), events, rows.get, at).view(entity, policy)


def partition_snapshot(part: Partition, at: datetime, *, agent: str | None = None) -> tuple[Snapshot, dict[str, np.ndarray]]:
    """One partition as it stood at `at`, with the vectors of the claims a search found then
    (read from the claim log: every claim keeps its embedding): the active ones, and the parked
    ones a search now finds too (`search._with_parked`): with `agent`, its challenges and support
    of the disputes open then; without, the challenger of an open dispute with no standing
    incumbent (retracted), the pending value, and the values held beside it (waiting.py)."""
    with part.lock:
        claims = part.log.all_claims(with_vectors=True)
        events = part.log.events(until=to_epoch(at))
        rows = {d.id: d for d in part.log.disputes()} if legacy_ids(events) else {}
    snap = replay(claims, events, rows.get, at)
    opened = [d for d in snap.disputes.values() if d.status == DisputeStatus.OPEN]
    parked = ({i for d in opened for i in (d.challenger, *d.supporters)} if agent is not None
              else pending_ids(opened, snap.claims.get))
    vectors = {c.id: c.embedding for c in claims if c.id in snap.claims and (
        snap.claims[c.id].status == Status.ACTIVE or (c.id in parked and snap.claims[c.id].status == Status.DISPUTED))}
    return snap, vectors


def partition_search_as_of(part: Partition, vectors: np.ndarray, k: int, at: datetime, *,
                           agent: str | None = None, entity: str | None = None) -> list[Scored]:
    """Exact cosine top-k over the claims found at `at` in one partition (`partition_snapshot`),
    of `agent`, on `entity`: the filters of a search now, applied to the claims of then.

    A scan of the partition's log (point-in-time reads are audits, not the hot path)."""
    snap, found = partition_snapshot(part, at, agent=agent)
    by_id = {i: v for i, v in found.items() if agent in (None, snap.claims[i].agent) and entity in (None, snap.claims[i].entity)}
    if not by_id:
        return [[] for _ in range(len(vectors))]
    ids = sorted(by_id)
    matrix = np.stack([np.asarray(by_id[i], dtype=np.float32) for i in ids])
    scores = np.asarray(vectors, dtype=np.float32) @ matrix.T
    out = []
    for row in scores:
        top = np.argsort(-row, kind="stable")[:k]
        out.append([(float(row[j]), snap.claims[ids[j]]) for j in top])
    return out


def search_as_of(parts: Iterable[Partition], vectors: np.ndarray, k: int, at: datetime, *,
                 agent: str | None = None, entity: str | None = None) -> list[Scored]:
    """`search(as_of=at)` over these partitions (the entity's owner only, with `entity`)."""
    return merge_top([partition_search_as_of(p, vectors, k, at, agent=agent, entity=entity) for p in parts],
                     len(vectors), k)
