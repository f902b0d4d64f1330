"""`ChangeSet`: everything one commit does to a partition (the engine's `Txn` builds it), and
its journal record (`record`: plain values, what the claim log's journal keeps)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vault_ray.models import Claim, Dispute, Event

from .rows import claim_row, dispute_row, event_row
from .tables import Record


@dataclass
class ChangeSet:
    """Everything one commit does to a partition, applied in one transaction."""

    new_claims: list[Claim] = field(default_factory=list)
    rids: dict[str, int] = field(default_factory=dict)
    status: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """claim id -> (new status, superseded_by), for claims stored by earlier commits."""
    supersedes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """claim id -> every claim it superseded so far, for claims stored by earlier commits."""
    disputes: dict[str, Dispute] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    receipts: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, Any] = field(default_factory=dict)
    """claim id -> vector of a new claim whose object carries none (memory keeps no vectors)."""
    left: dict[str, Claim] = field(default_factory=dict)
    """claim id -> the claim as this change leaves it, for every claim it leaves out of the live set
    (superseded, retracted; new ones stored superseded): the claim log keeps them for reads by id
    (claim_cache.py). Not part of the record: the other fields say the same."""

    def __bool__(self) -> bool:
        return bool(self.new_claims or self.status or self.supersedes or self.disputes or self.events or self.receipts)

    def record(self, seq: int) -> Record:
        """The change set as plain values (a journal record)."""
        claims = [claim_row(c, self.rids[c.id], self.vectors.get(c.id)) for c in self.new_claims]
        return (seq, claims, dict(self.status), {k: list(v) for k, v in self.supersedes.items()},
                [dispute_row(d) for d in self.disputes.values()], [event_row(e) for e in self.events], dict(self.receipts))
