"""Searches over a host's partitions: semantic search (with its `agent` and `entity`
filters) and the nearest entities that entity resolution compares a new label with.

Both ask the host's one vector index (`HostIndex`), never each partition. A filter
that keeps few claims is answered exactly instead: the claims it keeps are scored
one by one (their vectors read from the index), so a selective filter never misses
a claim that an approximate (HNSW) search, or a fixed over-fetch, would have cut.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np

from ..models import Claim, Status
from .partition import Partition
from .vectors import HostIndex
from .views import Scored, merge_top, newest, pending_ids, strip


class PartitionSet(Protocol):
    """What a search needs of the partition host (`partitions.PartitionSet`)."""

    parts: dict[int, Partition]
    host: HostIndex

    def opened(self, partitions: Iterable[int] | None = None) -> list[Partition]: ...
    def owner(self, entity: str) -> Partition | None: ...


Neighbours = list[tuple[float, str]]
"""(similarity, entity) of one query, best first: one row per entity."""
SELECTIVE = 4096
"""A filter keeping at most this many active claims is answered by exact scoring."""
FILTERED_FETCH = 50
"""Otherwise the index is asked for this many hits per wanted one, then filtered."""


def search(host: PartitionSet, vectors: np.ndarray, k: int, partitions: Iterable[int] | None = None, *,
           agent: str | None = None, entity: str | None = None) -> list[Scored]:
    """Top-k active claims per query, of the open partitions among `partitions` (all by
    default); with `agent`, that agent's claims parked in open disputes too. The challenger
    of an open dispute with no standing incumbent (its incumbents retracted: the dispute
    waits for a person) is found as well: the entity's pending value, contested, and
    so are the values held in that dispute since (`disputed` incumbents, engine/waiting.py)."""
    found = _active(host, vectors, k, partitions, agent=agent, entity=entity)
    return _with_parked(host, vectors, k, found, partitions, agent, entity)


def _with_parked(host: PartitionSet, vectors: np.ndarray, k: int, found: list[Scored], partitions: Iterable[int] | None,
                 agent: str | None, entity: str | None) -> list[Scored]:
    """`found` with the parked claims a search shows, scored exactly (few: no index): with
    `agent`, its challenges and support of open disputes (a search of what an agent said shows
    its contested claim, not nothing); the challengers of open disputes with no standing
    incumbent left (the value a person has to decide on is not invisible, whatever else
    the entity holds: `views.pending_ids`)."""
    parked: list[Claim] = []
    for part in host.opened(None if partitions is None else set(partitions)):
        if entity is not None and part is not host.owner(entity):
            continue
        with part.lock:
            state = part.state
            if not state.open_disputes:
                continue
            # with no standing incumbent: the pending value, and the values held beside it (engine/waiting.py);
            # a replaced incumbent (not live) is read from the log to follow it to the claim in its place
            ids = {i for d in state.open_disputes.values() for i in (d.challenger, *d.supporters)} if agent else (
                pending_ids(state.open_disputes.values(), lambda i, st=state, p=part: st.get(i) or p.find_claim(i)))
            parked += [c for i in sorted(ids) if (c := state.get(i)) is not None and agent in (None, c.agent)
                       and c.status == Status.DISPUTED and c.embedding is not None and entity in (None, c.entity)]
    if not parked:
        return found
    scores = np.asarray(vectors, dtype=np.float32).reshape(len(found), -1) @ np.stack([c.embedding for c in parked]).T
    claims = [strip(c) for c in parked]
    extra = [sorted(zip(row.tolist(), claims, strict=True), key=lambda h: -h[0]) for row in scores]
    return merge_top([found, extra], len(found), k)


def _active(host: PartitionSet, vectors: np.ndarray, k: int, partitions: Iterable[int] | None, *,
            agent: str | None, entity: str | None) -> list[Scored]:
    wanted = None if partitions is None else set(partitions)
    parts = [p for p in host.opened(wanted) if p.active_count()]
    if entity is not None:
        parts = [p for p in parts if p is host.owner(entity)]
    if entity is not None or agent is not None:
        chosen = {p.number: p.filtered_rids(agent=agent, entity=entity) for p in parts}
        if sum(len(r) for r in chosen.values()) <= SELECTIVE:
            scored = [host.parts[n].score(vectors, rids) for n, rids in chosen.items() if rids]
            return merge_top(scored, len(vectors), k)
    fetch = k if agent is None and entity is None else k * FILTERED_FETCH
    numbers = {p.number for p in parts}
    if not numbers:
        return [[] for _ in range(len(vectors))]
    # the index holds every open partition: asked for a few of them, fetch more in proportion
    per_query = host.host.search(vectors, fetch * -(-len(host.parts) // len(numbers)))
    out = []
    for hits in per_query:
        found = _claims(host, [(s, p, r) for s, p, r in hits if p in numbers])
        found = [(s, c) for s, c in found if (agent is None or c.agent == agent) and (entity is None or c.entity == entity)]
        out.append(found[:k])
    return out


def nearest_entities(host: PartitionSet, vectors: np.ndarray, k: int,
                     partitions: Iterable[int] | None = None) -> list[Neighbours]:
    """Per query, the `k` entities whose representative claim is most similar (one
    batched search of the tagged rows of the host index)."""
    wanted = set(host.parts) if partitions is None else set(partitions) & set(host.parts)
    if not wanted or not any(host.parts[p].active_count() for p in wanted):
        return [[] for _ in range(len(vectors))]
    found = host.host.search(vectors, k * -(-len(host.parts) // len(wanted)), tagged=True)
    rows: dict[int, set[int]] = {}
    for hits in found:
        for _, p, r in hits:
            if p in wanted:
                rows.setdefault(p, set()).add(r)
    # each partition names its rows under one hold of its lock; one closed meanwhile (the
    # store closing) answers nothing
    names = {p: part.entities_at(rids) for p, rids in rows.items() if (part := host.parts.get(p)) is not None}
    out = []
    for hits in found:
        named = [(s, e) for s, p, r in hits if (e := names.get(p, _NONE).get(r)) is not None]
        out.append(named[:k])  # the host's hits come best first: the first k are the k best
    return out


_NONE: dict[int, str | None] = {}


def aligned_to(host: PartitionSet, labels: Iterable[str],
               partitions: Iterable[int] | None = None) -> dict[str, tuple[float, str]]:
    """label -> (recorded_at, entity) of the newest live claim entity resolution aligned from
    it: where a read of a label the store never kept goes (`Vault.get`)."""
    labels = list(labels)
    found = []
    for part in host.opened(partitions):
        with part.lock:
            found.append({label: at for label in labels if (at := part.state.aligned_to(label)) is not None})
    return newest(found)


def _claims(host: PartitionSet, hits: list[tuple[float, int, int]]) -> Scored:
    """(score, claim) of index hits, best first; a row that left meanwhile is skipped."""
    out = []
    for score, number, rid in hits:
        part = host.parts.get(number)
        claim = part.claim_at(rid) if part is not None else None
        if claim is not None:
            out.append((score, claim))
    return out
