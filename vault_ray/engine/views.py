"""What reads answer: an entity's view (every competing value while a dispute is
open) and the merge of per-partition search results. The current view and the
point-in-time view are built by the same `entity_view`, so they cannot drift apart."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..models import Candidate, Claim, Dispute, DisputeStatus, EntityView, Status
from ..policy import Policy

Scored = list[tuple[float, Claim]]
"""(cosine, claim) hits of one query, best first."""


def merge_top(per_part: Sequence[list[Scored]], n_queries: int, k: int) -> list[Scored]:
    """Merge per-partition (or per-shard) top-k lists into one top-k per query."""
    return [
        heapq.nlargest(k, (hit for part in per_part for hit in part[q]), key=lambda h: h[0]) for q in range(n_queries)
    ]


def strip(claim: Claim) -> Claim:
    """The claim without its embedding (what reads return)."""
    return claim if claim.embedding is None else replace(claim, embedding=None)


def empty_view(entity: str) -> EntityView:
    return EntityView(entity, (), False, (), ())


def entity_view(entity: str, claims: Iterable[Claim], disputes: Iterable[Dispute], policy: Policy) -> EntityView:
    """The view of one entity from its live (active or disputed) claims and open disputes.

    While a dispute is open every competing value shows as a candidate: each
    dispute's incumbents, challenger and supporters, then any other active claim
    (one that became current after the dispute opened), so nothing is hidden."""
    live = {c.id: c for c in claims if c.status.live}
    active = tuple(sorted((strip(c) for c in live.values() if c.status == Status.ACTIVE),
                          key=lambda c: (c.observed_at, c.id)))
    open_ = tuple(sorted((d for d in disputes if d.status == DisputeStatus.OPEN), key=lambda d: (d.opened_at, d.id)))
    candidates: list[Candidate] = []
    seen: set[str] = set()

    def offer(cid: str, dispute_id: str | None) -> None:
        claim = live.get(cid)
        if claim is not None and cid not in seen:
            seen.add(cid)
            candidates.append(Candidate(strip(claim), policy.weight(claim.agent, entity), dispute_id))

    for d in open_:
        for cid in (*d.incumbents, d.challenger, *d.supporters):
            offer(cid, d.id)
    if open_:
        for c in active:
            offer(c.id, None)
    return EntityView(entity, active, bool(open_), tuple(candidates), open_)


def newest(found: Iterable[dict[str, tuple[float, str]]]) -> dict[str, tuple[float, str]]:
    """Per label, the newest of the (recorded_at, entity) answers of several partitions."""
    out: dict[str, tuple[float, str]] = {}
    for answer in found:
        for label, at in answer.items():
            out[label] = max(out.get(label, at), at)
    return out


def dispute_partition(dispute_id: object) -> int | None:
    """The partition a dispute id names (`dsp-<partition>-<claim id>`)."""
    parts = dispute_id.split("-", 2) if isinstance(dispute_id, str) else []
    if len(parts) == 3 and parts[0] == "dsp" and parts[1].isdigit():
        return int(parts[1])
    return None
