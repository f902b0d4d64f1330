"""Search results from scored claims: recency decay, one hit per value of an entity, and
each hit's dispute and agreeing claims from the entities' views (`Vault.search`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from ..models import Claim, EntityView, Hit, Kind, utcnow
from ..policy import Policy
from ..reasoners.rules import normalized_value
from . import episodic


def ranked_hits(raw: list[tuple[float, Claim]], k: int, policy: Policy, at: datetime | None,
                views_of: Callable[[set[str]], dict[str, EntityView]],
                cardinality: Callable[[str], str] | None = None) -> list[Hit]:
    """The top `k` hits of `raw` (cosine, claim), each cosine decayed by the claim's age at
    `at` (now by default). Another agent's active claim of the same value on the same
    entity is no other hit: it is listed in the hit's `agreeing` (four agents saying the
    user lives in NYC filled four of five results). A hit on a contested entity carries
    the competing values in `alternatives`, one claim per value. On a `many` entity
    (`cardinality`), where conflicts are per item, only a hit whose value a dispute is
    about is contested, and its alternatives are the other values of that dispute
    (`per_item`); an episodic claim (an event) is in no dispute."""
    now = at or utcnow()
    half_life = policy.half_life_days * 86400.0
    decayed = ((s * 0.5 ** (max(0.0, (now - c.observed_at).total_seconds()) / half_life), c) for s, c in raw)
    scored, seen = [], set()
    # equal scores (claims of one text, observed together) in an order of their own, not the order the
    # index or the log scan (`as_of`) met them: a search now and one `as_of` now pick the same claim,
    # and so do two stores given the same writes (the id, random, decides last)
    window = episodic.window_of(policy)
    events: dict[str, list[Claim]] = {}  # per entity, the events already a hit (one event: `episodic.one_event`)
    for score, claim in sorted(decayed, key=lambda h: (h[0], h[1].observed_at, h[1].text, h[1].agent, h[1].id),
                               reverse=True):
        if len(scored) >= k:
            break
        if claim.kind == Kind.EPISODIC:
            if any(episodic.one_event(e, claim, window) for e in events.get(claim.entity, ())):
                continue
            events.setdefault(claim.entity, []).append(claim)
        elif (key := (claim.entity, normalized_value(claim))) in seen:
            continue
        else:
            seen.add(key)
        scored.append((score, claim, normalized_value(claim)))
    views = views_of({c.entity for _, c, _ in scored})
    hits = []
    for score, claim, value in scored:
        view = views[claim.entity]
        alike = {c.id: c for c in [*view.active, *(x.claim for x in view.candidates)]
                 if c.id != claim.id and same_item(c, claim, window)}
        others: dict[str, Claim] = {}  # one claim per competing value: the first the view lists
        for x in view.candidates:
            if x.claim.id != claim.id and x.claim.id not in alike and x.claim.kind != Kind.EPISODIC:  # events compete with none
                others.setdefault(normalized_value(x.claim), x.claim)
        contested, alternatives = view.contested, tuple(others.values())
        if contested and (claim.kind == Kind.EPISODIC or (cardinality is not None and cardinality(claim.entity) == "many")):
            contested, alternatives = per_item(view, value) if claim.kind != Kind.EPISODIC else (False, ())
        hits.append(Hit(claim, float(score), contested, alternatives if contested else (), tuple(alike.values())))
    return hits


def same_item(a: Claim, b: Claim, window: timedelta = episodic.SAME_EVENT_WINDOW) -> bool:
    """Whether two claims of one entity are one hit: facts of one value (the agents that say
    it agree); for events (episodic claims), records of one event (`episodic.one_event`: its
    value, its words and its time, within `window`): two trips to Paris are two events, and
    so are two visits to the gym a week apart told in the same words."""
    if (a.kind == Kind.EPISODIC) != (b.kind == Kind.EPISODIC):
        return False
    return episodic.one_event(a, b, window) if a.kind == Kind.EPISODIC else normalized_value(a) == normalized_value(b)


def per_item(view: EntityView, value: str) -> tuple[bool, tuple[Claim, ...]]:
    """Whether `value` is one a dispute of `view` is about (a value of its incumbents,
    challenger or supporters), and the other values of those disputes, one claim each."""
    by_id = {c.claim.id: c.claim for c in view.candidates}
    contested, others = False, {}
    for d in view.disputes:
        members = [by_id[i] for i in (*d.incumbents, d.challenger, *d.supporters) if i in by_id]
        if value in {normalized_value(m) for m in members}:
            contested = True
            for m in members:
                if normalized_value(m) != value:
                    others.setdefault(normalized_value(m), m)
    return contested, tuple(others.values())
