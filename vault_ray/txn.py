"""The write unit of a partition: `WriteItem` (a fact after the front stage),
`Txn` (the copy-on-write view one batch is decided in, and the `ChangeSet` it
builds for the claim log) and the JSON form of decisions kept as receipts."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from vault_ray.storage import ChangeSet, Event

from .models import Claim, Decision, Dispute, DisputeStatus, Op, Outcome, Status, to_epoch

if TYPE_CHECKING:
    from .partition import Partition


@dataclass(frozen=True)
class WriteItem:
    """A fact after the front stage: validated, embedded, entity resolved."""

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


def decision_to_json(d: Decision) -> str:
    # field by field: dataclasses.asdict deep-copies recursively, a fifth of a bulk write's time
    return json.dumps({f.name: getattr(d, f.name) for f in fields(d)} | {"superseded": list(d.superseded)})


def decision_from_json(text: str) -> Decision:
    data = json.loads(text)
    fields = {"op": Op(data["op"]), "outcome": Outcome(data["outcome"]), "superseded": tuple(data["superseded"])}
    return Decision(**{**data, **fields})


class Txn:
    """Copy-on-write view of a partition while one batch is decided."""

    def __init__(self, part: Partition, now: datetime) -> None:
        self.part = part
        self.now = now
        self.ts = to_epoch(now)
        self.claims: dict[str, Claim] = {}
        self.disputes: dict[str, Dispute] = {}
        self.changes = ChangeSet()
        self.decided: dict[str, Decision] = {}
        self.cardinality: dict[str, str] = {}
        """entity -> cardinality, as the writes and resolutions of this txn gave it."""

    def claim(self, cid: str) -> Claim:
        return self.claims.get(cid) or self.part.claims[cid]

    def live_on(self, entity: str) -> list[Claim]:
        ids = set(self.part.by_entity.get(entity, ())) | {c.id for c in self.claims.values() if c.entity == entity}
        out = [self.claim(i) for i in ids]
        return sorted((c for c in out if c.status != Status.SUPERSEDED), key=lambda c: (c.observed_at, c.id))

    def open_disputes_on(self, entity: str) -> list[Dispute]:
        ids = set(self.part.disputes_by_entity.get(entity, ())) | {d.id for d in self.disputes.values() if d.entity == entity}
        found = [self.disputes.get(i) or self.part.open_disputes[i] for i in ids]
        return sorted((d for d in found if d.status == DisputeStatus.OPEN), key=lambda d: d.opened_at)

    def add(self, claim: Claim, **detail: Any) -> None:
        self.claims[claim.id] = claim
        self.changes.new_claims.append(claim)
        self.changes.rids[claim.id] = self.part.log.allocate_rid()
        self.event(claim.entity, "claim_added", claim_id=claim.id, agent=claim.agent, status=str(claim.status),
                   superseded_by=claim.superseded_by, **detail)

    def set_status(self, cid: str, status: Status, superseded_by: str | None, *, agent: str | None, **detail: Any) -> None:
        old = self.claim(cid)
        if old.status == status and old.superseded_by == superseded_by:
            return
        self.claims[cid] = replace(old, status=status, superseded_by=superseded_by)
        if cid not in {c.id for c in self.changes.new_claims}:
            self.changes.status[cid] = (str(status), superseded_by)
        else:
            self.changes.new_claims = [self.claims[c.id] if c.id == cid else c for c in self.changes.new_claims]
        self.event(old.entity, "status_changed", claim_id=cid, agent=agent, status=str(status),
                   superseded_by=superseded_by, previous=str(old.status), **detail)

    def put_dispute(self, dispute: Dispute, kind: str, *, agent: str | None, claim_id: str | None, **detail: Any) -> None:
        self.disputes[dispute.id] = dispute
        self.changes.disputes[dispute.id] = dispute
        self.event(dispute.entity, kind, claim_id=claim_id, dispute_id=dispute.id, agent=agent, **detail)

    def event(self, entity: str, kind: str, *, claim_id: str | None = None, dispute_id: str | None = None,
              agent: str | None = None, status: str | None = None, superseded_by: str | None = None, **detail: Any) -> None:
        self.changes.events.append(
            Event(self.ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail)
        )
