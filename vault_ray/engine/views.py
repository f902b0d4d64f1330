"""What reads answer: an entity's view (every competing value while a dispute is
open) and the merge of per-partition search results. The current view and the
point-in-time view are built by the same `entity_view`, so they cannot drift apart."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..models import Candidate, Claim, Dispute, DisputeStatus, EntityView, Kind, Status
from ..policy import Policy
from ..reasoners.rules import agrees, normalized_value

Scored = list[tuple[float, Claim]]
"""(cosine, claim) hits of one query, best first."""


def merge_top(per_part: Sequence[list[Scored]], n_queries: int, k: int) -> list[Scored]:
    """Merge per-partition (or per-shard) top-k lists into one top-k per query."""
    return [
        heapq.nlargest(k, (hit for part in per_part for hit in part[q]), key=lambda h: h[0]) for q in range(n_queries)
    ]


def read_order(c: Claim) -> tuple[Any, ...]:
    """The order reads list claims in (docs/policies.md, "The order of a view"): oldest observation
    first; within a tie (the claims of one batch share `observed_at`), the write applied first
    (`recorded_at`), then the agent and the value's words. The id, random, decides only between
    two claims of one agent saying the same words at the same times, so two reads of one state,
    two stores given the same writes, and embedded and cluster mode list them alike."""
    return c.observed_at, c.recorded_at, c.agent, c.value or c.text, c.text, c.id


def strip(claim: Claim) -> Claim:
    """The claim without its embedding (what reads return)."""
    return claim if claim.embedding is None else replace(claim, embedding=None)


def empty_view(entity: str) -> EntityView:
    return EntityView(entity, (), False, (), ())


def entity_view(entity: str, claims: Iterable[Claim], disputes: Iterable[Dispute], policy: Policy,
                lookup: Callable[[str], Claim | None] | None = None) -> EntityView:
    """The view of one entity from its live (active or disputed) claims and open disputes.

    While a dispute is open every competing value shows as a candidate: each
    dispute's incumbents, challenger and supporters, then any other active claim
    (one that became current after the dispute opened), so nothing is hidden; an event
    (episodic) is none of them: the view lists it in `events`.
    With `lookup` (a claim that left the live state, by id) each dispute is listed as
    `dispute(id)` lists it (`as_live`): an incumbent its agent replaced gives way to the
    claim in its place, which is the dispute's candidate."""
    live = {c.id: c for c in claims if c.status.live}
    active = tuple(sorted((strip(c) for c in live.values() if c.status == Status.ACTIVE),
                          key=read_order))
    open_ = tuple(sorted((d if lookup is None else as_live(d, live, lookup) for d in disputes
                          if d.status == DisputeStatus.OPEN), key=lambda d: (d.opened_at, d.id)))
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
            if c.kind != Kind.EPISODIC:  # an event competes with no value (`EntityView.events` lists it)
                offer(c.id, _said_in(c, open_, live, policy.cardinality_for(entity)))
    view = EntityView(entity, active, bool(open_), tuple(candidates), open_)
    return replace(view, values=distinct_values(view.value_claims()))


def distinct_values(claims: Iterable[Claim]) -> tuple[str, ...]:
    """The claims' values, each once: claims whose canonical values are equal (`normalized_value`:
    "Google" three times, "PST" and "Pacific time") give the first one's words."""
    first: dict[str, str] = {}
    for c in claims:
        first.setdefault(normalized_value(c), c.value or c.text)
    return tuple(first.values())


def _said_in(claim: Claim, open_: Sequence[Dispute], live: dict[str, Claim], cardinality: str) -> str | None:
    """The open dispute one of whose values `claim` (no member of any) says in other words
    (`rules.agrees`: "Ann Lee" for "Ann"; "spouse:ann" for "wife:ann" on a `many` entity), or
    None: it is then about no dispute's value, or says both sides. (A write that backs a standing value joins its
    dispute, `backing.py`; this reads such a claim of an older store, or one written before.)"""
    value = normalized_value(claim)
    for d in open_:
        sides = [[live[i] for i in ids if i in live] for ids in (d.incumbents, (d.challenger, *d.supporters))]
        says = [any(agrees(d.entity, value, normalized_value(m), cardinality) for m in side) for side in sides]
        if says[0] != says[1]:  # one side's value ("Ann" beside "Ann Lee" vs "Ann Smith" says neither)
            return d.id
    return None


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


def in_place(cid: str, live: Any, lookup: Callable[[str], Claim | None]) -> str | None:
    """The live claim at the end of `cid`'s chain of replacements (`superseded_by`)."""
    hops: str | None = cid
    for _ in range(32):
        if hops is None or hops in live:
            return hops
        gone = lookup(hops)
        hops = gone.superseded_by if gone is not None else None
    return None


def as_live(d: Dispute, live: Any, lookup: Callable[[str], Claim | None]) -> Dispute:
    """An open dispute as a reader sees it: only claims that still stand. An incumbent its
    agent has since replaced gives way to the claim in its place (when that one is active
    and not already listed), or leaves the list while another incumbent stands: the inbox
    and the tables never offer a value the store no longer holds. The stored row keeps
    every id (`resolve_dispute` still accepts them, see `pick_winner`)."""
    if d.status != DisputeStatus.OPEN or all(i in live for i in d.incumbents):
        return d
    others = {d.challenger, *d.supporters}
    kept: list[str] = []
    for i in d.incumbents:
        now = in_place(i, live, lookup)
        if now is not None and now not in kept and now not in others and live[now].status == Status.ACTIVE:
            kept.append(now)
    return replace(d, incumbents=tuple(kept)) if kept else d


def pending_ids(disputes: Iterable[Dispute], get: Callable[[str], Claim | None]) -> set[str]:
    """The parked values a search finds (contested): the challenger of each open dispute with no
    standing incumbent of its own (its incumbents retracted: it waits for a person), and the values
    held beside it (`disputed` incumbents, engine/waiting.py). Per dispute, not per entity: another
    item of a `many` entity, or an event on the entity, is no standing value of this dispute."""
    return {i for d in disputes if d.status == DisputeStatus.OPEN and not any(_stands(x, get) for x in d.incumbents)
            for i in (d.challenger, *d.incumbents)}


def _stands(cid: str, get: Callable[[str], Claim | None]) -> bool:
    """Whether incumbent `cid` stands: active, or replaced by a claim that is, at the end of its
    chain of replacements (`superseded_by`, as `as_live` reads it)."""
    hops: str | None = cid
    for _ in range(32):
        c = get(hops) if hops is not None else None
        if c is None or c.status not in (Status.ACTIVE, Status.SUPERSEDED):
            return False
        if c.status == Status.ACTIVE:
            return True
        hops = c.superseded_by
    return False
