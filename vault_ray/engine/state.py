"""The live part of one partition, held in memory: its active and disputed claims
(disputed ones keep their vector, so a later win needs no read), the rid maps that
tie claims to index rows, per-entity lookups and the open disputes.

`apply` brings it up to date after the claim log committed a transaction and says
which index rows leave and join; the partition then updates its index."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from ..models import Claim, Dispute, DisputeStatus, Status


class PartitionState:
    def __init__(self, claims: Iterable[tuple[Claim, int]] = (), disputes: Iterable[Dispute] = (),
                 known_entities: Iterable[str] = ()) -> None:
        self.claims: dict[str, Claim] = {}
        self.rid_of: dict[str, int] = {}
        self.by_rid: dict[int, str] = {}
        """index row -> claim id, for active claims only (what the index holds)."""
        self.by_entity: dict[str, set[str]] = {}
        self.open_disputes: dict[str, Dispute] = {}
        self.disputes_by_entity: dict[str, set[str]] = {}
        self.known_entities: set[str] = set(known_entities)
        """Every entity with a claim of any status: `has_entity` must not scan the log per new label."""
        for claim, rid in claims:
            self.claims[claim.id] = claim
            self.rid_of[claim.id] = rid
            self.by_entity.setdefault(claim.entity, set()).add(claim.id)
            if claim.status == Status.ACTIVE:
                self.by_rid[rid] = claim.id
        for d in disputes:
            self._put_dispute(d)

    def live_ids(self, entity: str) -> set[str]:
        return self.by_entity.get(entity, set())

    def open_dispute_ids(self, entity: str) -> set[str]:
        return self.disputes_by_entity.get(entity, set())

    def active_count(self) -> int:
        return len(self.by_rid)

    def apply(self, claims: dict[str, Claim], rids: dict[str, int], disputes: dict[str, Dispute],
              vector_of: Callable[[str], np.ndarray]) -> tuple[list[int], list[tuple[int, np.ndarray]]]:
        """Take a committed transaction's claims (their state after it) and disputes.
        Returns the index rows leaving (no longer active) and joining (newly active)."""
        leaving: list[int] = []
        joining: list[tuple[int, np.ndarray]] = []
        self.known_entities.update(c.entity for c in claims.values())
        for cid, claim in claims.items():
            rid = self.rid_of.get(cid, rids.get(cid))
            assert rid is not None, f"claim {cid} has no index row"
            before = self.claims.get(cid)
            vector = claim.embedding if claim.embedding is not None else (before.embedding if before else None)
            was_active = before is not None and before.status == Status.ACTIVE
            if claim.status == Status.SUPERSEDED:
                self.claims.pop(cid, None)
                self.rid_of.pop(cid, None)
                self.by_entity.get(claim.entity, set()).discard(cid)
            else:
                keep_vec = claim.status == Status.DISPUTED
                self.claims[cid] = replace(claim, embedding=vector if keep_vec else None)
                self.rid_of[cid] = rid
                self.by_entity.setdefault(claim.entity, set()).add(cid)
            if was_active and claim.status != Status.ACTIVE:
                leaving.append(rid)
                self.by_rid.pop(rid, None)
            elif not was_active and claim.status == Status.ACTIVE:
                joining.append((rid, np.asarray(vector if vector is not None else vector_of(cid), dtype=np.float32)))
                self.by_rid[rid] = cid
        for d in disputes.values():
            self._put_dispute(d)
        return leaving, joining

    def _put_dispute(self, d: Dispute) -> None:
        if d.status == DisputeStatus.OPEN:
            self.open_disputes[d.id] = d
            self.disputes_by_entity.setdefault(d.entity, set()).add(d.id)
        else:
            self.open_disputes.pop(d.id, None)
            self.disputes_by_entity.get(d.entity, set()).discard(d.id)
