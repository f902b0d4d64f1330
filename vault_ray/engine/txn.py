"""The write unit of a partition: `WriteItem` (a fact after the front stage), `Txn`
(the copy-on-write view a group of writes is decided in; it builds the `ChangeSet`
the claim log commits) and the JSON form of decisions kept as receipts.

A `Txn` can be marked and rolled back to a mark: several callers' writes are
decided one after the other in one transaction (one commit for all of them), and a
caller whose write fails (a dispute cap, a reasoner error) is undone alone."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np

from vault_ray.storage import ChangeSet

from ..models import Claim, Decision, Dispute, DisputeStatus, Event, Kind, Op, Outcome, Status, to_epoch
from .dispute_replay import STATE, record
from .state import PartitionState
from .views import read_order


class WriteItem(NamedTuple):
    """A fact after the front stage: validated, embedded, entity resolved. A named tuple,
    not a frozen dataclass: a bulk write makes one per fact, at about 40% of the cost."""

    id: str
    entity: str
    text: str
    value: str | None
    kind: str
    agent: str
    session: str | None
    observed_at: datetime
    confidence: float
    meta: dict[str, Any]
    vector: np.ndarray
    cardinality: str
    aligned_from: str | None = None
    source: str | None = None
    digest: str = ""
    """What the fact said (`fact_digest`) when its claim id was given (by the caller or
    an idempotency key): a retry says the same; a reused id says something else."""
    known: str = ""
    """The receipt of this id that another shard holds (cluster mode: `with_known`)."""


def fact_digest(entity: str, text: str, value: str | None, kind: str, salt: str = "") -> str:
    """A short fingerprint of a fact as given: its label (before entity resolution, which a
    retry may answer otherwise), text, value and kind (and `salt`: what else a retry says
    the same, e.g. the size of an idempotency key's request)."""
    data = "\x00".join((entity, text, "\x01" if value is None else value, kind, salt)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=8).hexdigest()


_STR = json.encoder.encode_basestring_ascii  # json.dumps's own (C) encoder of one string


def _opt(text: str | None) -> str:
    return "null" if text is None else _STR(text)


def decision_to_json(d: Decision, agent: str, digest: str = "") -> str:
    """`json.dumps` of the decision's fields, the writing agent and (when the claim id was
    given) the fact's digest, byte for byte, written out: a bulk write encodes one per fact,
    and a generic encoder of the dict took a tenth of its time."""
    superseded = ", ".join(map(_STR, d.superseded))
    tail = f', "digest": {_STR(digest)}' if digest else ""
    return (f'{{"entity": {_STR(d.entity)}, "op": {_STR(d.op)}, "outcome": {_STR(d.outcome)}, '
            f'"claim_id": {_STR(d.claim_id)}, "aligned_from": {_opt(d.aligned_from)}, "superseded": [{superseded}], '
            f'"dispute_id": {_opt(d.dispute_id)}, "strategy": {_opt(d.strategy)}, "reason": {_STR(d.reason)}, '
            f'"value": {_opt(d.value)}, "agent": {_STR(agent)}{tail}}}')


def decision_from_json(text: str) -> tuple[Decision, str | None, str]:
    """The decision of a receipt, the agent that wrote it (None in a receipt written
    before receipts named it) and the fact's digest ("" when not kept)."""
    data = json.loads(text)
    agent, digest = data.pop("agent", None), data.pop("digest", "")
    fixed = {"op": Op(data["op"]), "outcome": Outcome(data["outcome"]), "superseded": tuple(data["superseded"])}
    return Decision(**{**data, **fixed}), agent, digest


_COPIED = ("claims", "disputes", "new", "rids", "status", "supersedes", "dispute_rows", "receipts", "decided", "writers",
           "cardinality", "vectors")


@dataclass(frozen=True)
class Mark:
    """A Txn's state at one moment (`Txn.mark`), to roll back to."""

    saved: dict[str, dict[str, Any]]
    events: int


class Txn:
    """Copy-on-write view of a partition while a group of writes is decided."""

    def __init__(self, state: PartitionState, allocate_rid: Callable[[], int], now: datetime,
                 entity_log: Callable[[str], tuple[list[Claim], list[Event]]] | None = None,
                 stored: Callable[[list[str]], dict[str, tuple[Claim, int]]] | None = None,
                 decided_on: Callable[[str], dict[str, tuple[str, str]]] | None = None) -> None:
        self.state = state
        self.allocate_rid = allocate_rid
        self.entity_log = entity_log or (lambda entity: ([], []))
        """entity -> (every stored claim on it, its events): the committed history, read
        only by the decisions that need more than the live claims (consensus)."""
        self.stored = stored or (lambda ids: {})
        """claim ids -> (claim, index row) as stored, whatever their status (`revive`)."""
        self.now = now
        self.ts = to_epoch(now)
        self.claims: dict[str, Claim] = {}
        """Every claim this txn added or changed, as it stands now."""
        self.disputes: dict[str, Dispute] = {}
        self.new: dict[str, Claim] = {}
        self.rids: dict[str, int] = {}
        self.status: dict[str, tuple[str, str | None]] = {}
        self.supersedes: dict[str, tuple[str, ...]] = {}
        self.dispute_rows: dict[str, Dispute] = {}
        self.events: list[Event] = []
        self.receipts: dict[str, str] = {}
        self.decided: dict[str, Decision] = {}
        self.writers: dict[str, tuple[str, str]] = {}
        """The agent and fact digest of each claim id decided in this txn."""
        self.cardinality: dict[str, str] = {}
        """entity -> cardinality, as the writes and resolutions of this txn gave it."""
        self.vectors: dict[str, np.ndarray] = {}
        """claim id -> vector, for the new claims added without one on the object (`add`)."""
        self._on_entity: dict[str, set[str]] = {}
        """entity -> ids of the claims in `claims` (derived: rebuilt on rollback)."""
        self.decided_on = decided_on or (lambda entity: {})
        """entity -> the committed claims a person chose (`decided.Decided.on`; the partition sets it)."""
        self.decided_disputes: Callable[[str], list[Dispute]] = lambda entity: []
        """entity -> the committed disputes a person resolved for a winner (`decided.Decided.disputes_on`)."""

    def set_clock(self, now: datetime) -> None:
        """The recording time of what is decided from now on (each call of a group gets
        its own, later than the one before: its changes are ordered like separate writes)."""
        self.now, self.ts = now, to_epoch(now)

    # -- marks -----------------------------------------------------------------
    def mark(self) -> Mark:
        return Mark({name: dict(getattr(self, name)) for name in _COPIED}, len(self.events))

    def rollback(self, mark: Mark) -> None:
        for name, saved in mark.saved.items():
            setattr(self, name, saved)
        del self.events[mark.events:]
        self._on_entity = {}
        for claim in self.claims.values():
            self._on_entity.setdefault(claim.entity, set()).add(claim.id)

    def changes(self) -> ChangeSet:
        left = {cid: c if c.embedding is None else replace(c, embedding=None)
                for cid, c in self.claims.items() if not c.status.live}
        return ChangeSet(new_claims=list(self.new.values()), rids=dict(self.rids), status=dict(self.status),
                         supersedes=dict(self.supersedes), disputes=dict(self.dispute_rows), events=list(self.events),
                         receipts=dict(self.receipts), vectors=dict(self.vectors), left=left)

    def __bool__(self) -> bool:
        return bool(self.new or self.status or self.dispute_rows or self.events or self.receipts)

    # -- reads through the txn ------------------------------------------------------
    def claim(self, cid: str) -> Claim:
        return self.claims.get(cid) or self.state.claims[cid]

    def known(self, cid: str) -> bool:
        """Whether `cid` is live (not superseded before this txn), so `claim(cid)` answers."""
        return cid in self.claims or cid in self.state.claims

    def revive(self, cid: str) -> bool:
        """Bring a claim that left the live state (superseded before this txn) back into it,
        with its vector and index row, so that `set_status` can make it active again."""
        if self.known(cid):
            return True
        found = self.stored([cid]).get(cid)
        if found is None:
            return False
        self._put(found[0])
        self.rids[cid] = found[1]
        return True

    def valued(self, decision: Decision, item: WriteItem) -> Decision:
        """`decision` with the value of the claim it names: the incoming one, or a claim it
        found (a NOOP's known claim, a dispute's challenger); as it was if it has one already."""
        if decision.value is not None:
            return decision
        cid = decision.claim_id
        value = item.value if cid == item.id else self.claim(cid).value if self.known(cid) else None
        return decision if value is None else replace(decision, value=value)

    def live_on(self, entity: str, *, episodic: bool = False) -> list[Claim]:
        """The live claims on `entity` that conflict detection compares: not the episodic ones
        (events, which never contradict: `episodic.py`); with `episodic`, those only."""
        stored, mine = self.state.live_ids(entity), self._on_entity.get(entity)
        if not stored and not mine:  # a new entity (most of a bulk load)
            return []
        ids = set(stored) | (mine or set())
        out = [self.claim(i) for i in ids]
        return sorted((c for c in out if c.status.live and (c.kind == Kind.EPISODIC) == episodic),
                      key=read_order)

    def on_entity(self, entity: str) -> bool:
        """Whether this txn added or changed a claim on `entity`."""
        return entity in self._on_entity

    def open_disputes_on(self, entity: str) -> list[Dispute]:
        ids = set(self.state.open_dispute_ids(entity)) | {d.id for d in self.disputes.values() if d.entity == entity}
        found = [self.disputes.get(i) or self.state.open_disputes[i] for i in ids]
        return sorted((d for d in found if d.status == DisputeStatus.OPEN), key=lambda d: (d.opened_at, d.id))

    # -- changes ----------------------------------------------------------------------
    def add(self, claim: Claim, shared: dict[str, Any] | None = None, /, vector: np.ndarray | None = None,
            **detail: Any) -> None:
        """Add a new claim and its `claim_added` event. `shared`: the event's detail as a
        dict many events share (never changed afterwards), instead of `detail`: its JSON is
        then encoded once for a run of such events (`storage.rows.event_row`). `vector`: the
        claim's vector when the claim is made without one (the partition's memory keeps
        claims without vectors: no copy of the claim is needed to drop it)."""
        if vector is not None:
            self.vectors[claim.id] = vector
        self.claims[claim.id] = claim
        self._on_entity.setdefault(claim.entity, set()).add(claim.id)
        self.new[claim.id] = claim
        self.rids[claim.id] = self.allocate_rid()
        self.events.append(Event(self.ts, claim.entity, "claim_added", claim.id, None, claim.agent, str(claim.status),
                                 claim.superseded_by, detail if shared is None else shared))

    def set_status(self, cid: str, status: Status, superseded_by: str | None, *, agent: str | None, **detail: Any) -> None:
        old = self.claim(cid)
        if old.status == status and old.superseded_by == superseded_by:
            return
        self._put(replace(old, status=status, superseded_by=superseded_by))
        if old.superseded_by is not None and old.superseded_by != superseded_by:
            self._unlink(old.superseded_by, cid)  # revived (or re-pointed): its old superseder no longer replaces it
        if cid not in self.new:
            self.status[cid] = (str(status), superseded_by)
        if status == Status.SUPERSEDED and superseded_by is not None:
            self.link(superseded_by, cid)
        self.event(old.entity, "status_changed", claim_id=cid, agent=agent, status=str(status),
                   superseded_by=superseded_by, previous=str(old.status), **detail)

    def link(self, by: str, cid: str) -> None:
        """`by` supersedes `cid`: name `cid` in `by`'s `supersedes` (when `by` is live here), so the
        two claims name each other, as history and explain show them."""
        if self.known(by):
            claim = self.claim(by)
            if cid not in claim.supersedes:
                self._put(replace(claim, supersedes=(*claim.supersedes, cid)))
                if by not in self.new:
                    self.supersedes[by] = self.claims[by].supersedes

    def _unlink(self, by: str, cid: str) -> None:
        """`cid` is no longer superseded by `by`: drop it from `by`'s `supersedes`, so history
        does not show a claim as replaced by one that lost to it (`tally.restore_backers`)."""
        if self.known(by):
            current = self.claim(by).supersedes
        else:  # `by` left the live state itself: only its stored row changes
            current = self.supersedes.get(by)
            if current is None:
                row = self.stored([by]).get(by)
                current = row[0].supersedes if row is not None else ()
        if cid not in current:
            return
        kept = tuple(i for i in current if i != cid)
        if self.known(by):
            self._put(replace(self.claim(by), supersedes=kept))
        if by not in self.new:
            self.supersedes[by] = kept

    def _put(self, claim: Claim) -> None:
        self.claims[claim.id] = claim
        self._on_entity.setdefault(claim.entity, set()).add(claim.id)
        if claim.id in self.new:
            self.new[claim.id] = claim

    def put_dispute(self, dispute: Dispute, kind: str, *, agent: str | None, claim_id: str | None, **detail: Any) -> None:
        self.disputes[dispute.id] = dispute
        self.dispute_rows[dispute.id] = dispute
        self.dispute_event(dispute, kind, agent=agent, claim_id=claim_id, **detail)

    def dispute_event(self, dispute: Dispute, kind: str, *, agent: str | None, claim_id: str | None,
                      needs_user: bool | None = None, **detail: Any) -> None:
        """`kind`'s event for `dispute` as it is stored. It carries needs_user as it stood then (the event
        stream filters on it; `needs_user`: as a reader sees it, when that is not the stored flag: a
        policy change, engine/stakes.py), and the whole dispute as stored: what `as_of` reads replay
        (dispute_replay.py)."""
        self.event(dispute.entity, kind, claim_id=claim_id, dispute_id=dispute.id, agent=agent,
                   needs_user=dispute.needs_user if needs_user is None else needs_user,
                   **detail, **{STATE: record(dispute)})

    def event(self, entity: str, kind: str, *, claim_id: str | None = None, dispute_id: str | None = None,
              agent: str | None = None, status: str | None = None, superseded_by: str | None = None, **detail: Any) -> None:
        self.events.append(Event(self.ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail))
