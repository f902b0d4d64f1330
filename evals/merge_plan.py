"""Deciding which labels to merge, into which, and what the merge would stir up.

Per pair of labels (similarity.py scored them):

1. **Guards** keep a pair apart whatever it scores: two registry keys (the registry
   says they are different things), different cardinalities (one value vs a set),
   labels numbered differently (`user.child_1`, `user.child_2`: items of a list), labels
   whose words name different things (`user.phone.home`, `user.phone.work`;
   vault_ray/reasoners/contrast.py), or two
   or more agents that each keep a different active value on both labels (to them
   they are two things; an agent whose extractor drifted holds the same value).
2. **Registry alias**: a label the registry lists as an alias of a key merges into it.
3. **Similarity**: combined score >= `accept` merges.
4. **Ambiguous band** (`ask` <= score < `accept`): the reasoner's `disambiguate` is
   shown a few of one label's claims with the other label as the only candidate,
   both ways; if it files one under the other, they merge.

Merges then form clusters (complete link: every two labels of a cluster score at
least `ask` or were merged directly, so a chain a~b~c never pulls in an unrelated
c), at most one registry key each. A cluster's target is its registry key, else a
high-stakes label (a merge never lowers protection: a high-stakes label is kept apart
from a registry key that is not, `lowers protection`), else the label with the most
live claims. For each merged label the plan lists the claims to
re-key and the conflicts the merge creates: its active claims that contradict
active claims of the cluster's other labels (the reasoner's `conflicts`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from vault_ray import Claim, EntityRegistry, Fact, Kind, Policy, Status
from vault_ray.models import Dispute, from_epoch
from vault_ray.reasoners.base import Reasoner
from vault_ray.reasoners.contrast import contrasting

from .label_profiles import LabelProfile
from .merge_disputes import touched

_DIGITS = re.compile(r"\d+")
GUARDS = ("both registry keys", "cardinality differs", "numbered differently", "agents keep both", "lowers protection")
"""Decisions that keep two labels apart on evidence (not for want of similarity): no
cluster may hold both."""


@dataclass(frozen=True)
class Thresholds:
    accept: float = 0.66
    """Combined similarity from which two labels merge without asking."""
    ask: float = 0.55
    """Lower end of the band in which the reasoner decides."""


@dataclass
class PairDecision:
    a: str
    b: str
    scores: dict[str, float]
    merge: bool
    decided_by: str
    """'registry alias', 'similarity', 'reasoner', or why not: 'below threshold', 'both registry keys', ..."""
    evidence: str


@dataclass
class Merge:
    """One row of the plan: `source` re-keyed onto `target`."""

    source: str
    target: str
    scores: dict[str, float]
    decided_by: str
    evidence: str
    claims: int
    """Live claims of `source` to re-key (active and disputed)."""
    claims_total: int
    agents: list[str]
    cardinality: str
    strategy: str
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    disputes: list[dict[str, Any]] = field(default_factory=list)
    """Open disputes and a person's decisions on `source`, with what the merge does to each
    (merge_disputes.touched: held, carried, re-decided)."""


@dataclass
class MergePlan:
    merges: list[Merge]
    kept: list[PairDecision]
    """Pairs considered and left apart (the band and the guards), for the reviewer."""
    thresholds: Thresholds
    similarity_embedder: str
    store: str
    identity: dict[str, Any] | None = None
    """The store's identity (plan_checks.store_identity), recorded in the plan."""

    @property
    def plan_id(self) -> str:
        body = json.dumps(sorted((m.source, m.target) for m in self.merges))
        return hashlib.sha256(body.encode()).hexdigest()[:12]


def decide_pairs(pairs: pa.Table, profiles: dict[str, LabelProfile], reasoner: Reasoner, registry: EntityRegistry,
                 th: Thresholds, policy: Policy | None = None) -> list[PairDecision]:
    out = [_decide(r, profiles, reasoner, registry, th) for r in pairs.to_pylist() if r["a"] in profiles and r["b"] in profiles]
    scored = {frozenset((d.a, d.b)) for d in out}
    for p in profiles.values():  # an alias merges into its key even if the key has no claims yet
        if p.registered == "alias" and frozenset((p.label, p.canonical)) not in scored:
            key = profiles.get(p.canonical)
            if p.high_stakes and not (key.high_stakes if key else policy is not None and policy.is_high_stakes(p.canonical)):
                out.append(PairDecision(p.label, p.canonical, {}, False, "lowers protection",
                                        lowers(p.label, p.canonical, "key")))
                continue
            out.append(PairDecision(p.label, p.canonical, {}, True, "registry alias",
                                    f"the registry lists {p.label} as an alias of {p.canonical}"))
    return out


def _decide(r: dict[str, Any], profiles: dict[str, LabelProfile], reasoner: Reasoner, registry: EntityRegistry,
            th: Thresholds) -> PairDecision:
    d = _decide_pair(r, profiles, reasoner, registry, th)
    a, b = profiles[r["a"]], profiles[r["b"]]
    keyed = [(x, y) for x, y in ((a, b), (b, a)) if x.high_stakes and not y.high_stakes and y.registered == "key"]
    if d.merge and keyed and d.decided_by != "registry alias":  # the key would be the target: protection would go
        return PairDecision(a.label, b.label, d.scores, False, "lowers protection",
                            f"{d.evidence}; {lowers(keyed[0][0].label, keyed[0][1].label, 'key')}")
    return d


def _decide_pair(r: dict[str, Any], profiles: dict[str, LabelProfile], reasoner: Reasoner, registry: EntityRegistry,
                 th: Thresholds) -> PairDecision:
    a, b = profiles[r["a"]], profiles[r["b"]]
    scores = {k: r[k] for k in ("combined", "statement", "label", "values", "described")}
    signals = _signals(scores)
    if a.canonical == b.label or b.canonical == a.label:
        alias, key = (a, b) if a.canonical == b.label else (b, a)
        if alias.high_stakes and not key.high_stakes:
            return PairDecision(a.label, b.label, scores, False, "lowers protection", lowers(alias.label, key.label, "key"))
        return PairDecision(a.label, b.label, scores, True, "registry alias",
                            f"the registry lists {alias.label} as an alias of {key.label}")
    if a.registered == "key" and b.registered == "key":
        return PairDecision(a.label, b.label, scores, False, "both registry keys", f"{signals}; both are registry keys")
    if a.cardinality != b.cardinality:
        return PairDecision(a.label, b.label, scores, False, "cardinality differs",
                            f"{signals}; {a.label} is '{a.cardinality}', {b.label} '{b.cardinality}'")
    numbers_a, numbers_b = _DIGITS.findall(a.label), _DIGITS.findall(b.label)
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return PairDecision(a.label, b.label, scores, False, "numbered differently",
                            f"{signals}; the labels carry different numbers ({a.label}, {b.label})")
    if contrasting(a.label, b.label) or contrasting(b.label, a.label):
        return PairDecision(a.label, b.label, scores, False, "labels contrast",
                            f"{signals}; {a.label} and {b.label} name different things by their words")
    keepers = kept_apart_by(a, b)
    if len(keepers) >= 2:
        return PairDecision(a.label, b.label, scores, False, "agents keep both",
                            f"{signals}; {', '.join(keepers)} each keep a different value on both labels")
    if scores["combined"] >= th.accept:
        return PairDecision(a.label, b.label, scores, True, "similarity", f"{signals} >= {th.accept}")
    if scores["combined"] >= th.ask:
        filed = _ask(reasoner, a, b, registry) or _ask(reasoner, b, a, registry)
        if filed:
            return PairDecision(a.label, b.label, scores, True, "reasoner", f"{signals}; the reasoner filed {filed}")
        return PairDecision(a.label, b.label, scores, False, "reasoner declined",
                            f"{signals}; the reasoner kept each claim on its own label")
    return PairDecision(a.label, b.label, scores, False, "below threshold", f"{signals} < {th.ask}")


def lowers(protected: str, other: str, why: str = "") -> str:
    """Why `protected` (high stakes) may not merge into `other` (not)."""
    into = f"{other} is a registry key, so it would be the target" if why == "key" else f"{other} is not"
    return (f"{protected} is high stakes (policy.high_stakes: its conflicts wait for a person) and {into}: the merge "
            f"would settle its disputes by {other}'s strategy and stop protecting its future writes. Add {other} to "
            f"high_stakes first (or merge the other way)")


def kept_apart_by(a: LabelProfile, b: LabelProfile) -> list[str]:
    """Agents with active claims on both labels whose values differ: to them these are two
    things (an agent whose extractor drifted would rather have the same value on both)."""
    values_a, values_b = _values_by_agent(a), _values_by_agent(b)
    return sorted(agent for agent in values_a.keys() & values_b.keys() if values_a[agent].isdisjoint(values_b[agent]))


def _values_by_agent(p: LabelProfile) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for row in p.active:
        out.setdefault(row["agent"], set()).add((row["value"] or row["text"]).strip().lower())
    return out


def _signals(scores: dict[str, float]) -> str:
    shown = ", ".join(f"{k} {v:.2f}" for k, v in scores.items() if k != "combined" and not math.isnan(v))
    return f"combined {scores['combined']:.2f} ({shown})"


def _ask(reasoner: Reasoner, of: LabelProfile, other: LabelProfile, registry: EntityRegistry) -> str | None:
    """Does the reasoner file a claim of `of` under `other`? (a short description, or None)"""
    entries = [e for e in (registry.lookup(of.label), registry.lookup(other.label)) if e is not None]
    for text, value in of.examples.items():
        if reasoner.disambiguate(Fact(entity=of.label, text=text, value=value), [other.label], entries) == other.label:
            return f"{text!r} ({of.label}) under {other.label}"
    return None


def build_plan(decisions: list[PairDecision], profiles: dict[str, LabelProfile], reasoner: Reasoner, policy: Policy,
               th: Thresholds, *, similarity_embedder: str, store: str, disputes: Sequence[Dispute] = ()) -> MergePlan:
    clusters = _clusters(decisions, profiles, th)
    by_pair = {frozenset((d.a, d.b)): d for d in decisions}
    merges = []
    for members in clusters:
        target = _target(members, profiles)
        for label in sorted(members - {target}):
            direct = by_pair.get(frozenset((label, target)))
            d = direct if direct is not None and direct.merge else _link(label, members, by_pair)
            p = profiles[label]
            merges.append(Merge(
                label, target, d.scores, d.decided_by, d.evidence if {d.a, d.b} == {label, target}
                else f"via {d.b if d.a == label else d.a}: {d.evidence}", p.live, p.claims, sorted(p.agents),
                profiles[target].cardinality if target in profiles else p.cardinality, policy.strategy_for(target),
                _conflicts(label, {target, *(m for m in members if m < label)}, profiles, reasoner),
                touched(label, target, disputes, {row["id"] for row in p.active}),
            ))
    together = {x: id(c) for c in clusters for x in c}
    kept = []
    for d in decisions:
        if together.get(d.a, 0) == together.get(d.b, 1):
            continue
        if d.merge:  # a merge the clustering refused
            d = PairDecision(d.a, d.b, d.scores, False, "not clustered",
                             f"{d.evidence}; not merged: it would join two registry keys, or labels scoring below {th.ask}")
        if d.scores.get("combined", 0.0) >= th.ask or d.decided_by in ("not clustered", "lowers protection"):
            kept.append(d)
    return MergePlan(merges, sorted(kept, key=lambda d: -d.scores.get("combined", 0.0)), th, similarity_embedder, store)


def _clusters(decisions: list[PairDecision], profiles: dict[str, LabelProfile], th: Thresholds) -> list[set[str]]:
    score = {frozenset((d.a, d.b)): d.scores.get("combined", 0.0) for d in decisions}
    direct = {frozenset((d.a, d.b)) for d in decisions if d.merge}
    guarded = {frozenset((d.a, d.b)) for d in decisions if d.decided_by in GUARDS}
    cluster_of: dict[str, set[str]] = {}
    for d in sorted((d for d in decisions if d.merge), key=lambda d: (d.decided_by != "registry alias",
                                                                        -d.scores.get("combined", 1.0))):
        ca = cluster_of.get(d.a, {d.a})
        cb = cluster_of.get(d.b, {d.b})
        if ca is cb:
            continue
        keys = [x for x in ca | cb if _is_key(x, profiles)]
        cross = [frozenset((x, y)) for x in ca for y in cb]
        linked = all(pair in direct or (pair not in guarded and score.get(pair, 0.0) >= th.ask) for pair in cross)
        if len(keys) > 1 or not linked:
            continue
        joined = ca | cb
        for x in joined:
            cluster_of[x] = joined
    unique = {id(c): c for c in cluster_of.values()}
    return sorted(unique.values(), key=lambda c: sorted(c))


def _is_key(label: str, profiles: dict[str, LabelProfile]) -> bool:
    p = profiles.get(label)
    return p is None or p.registered == "key"  # a label without claims here is a registry key an alias named


def _target(members: set[str], profiles: dict[str, LabelProfile]) -> str:
    keys = [x for x in members if _is_key(x, profiles)]
    if keys:
        return keys[0]
    # a high-stakes label takes the others in (a merge never lowers protection), else the biggest
    return max(members, key=lambda x: (profiles[x].high_stakes, profiles[x].live, profiles[x].claims,
                                       len(profiles[x].agents), -len(x), x))


def _link(label: str, members: set[str], by_pair: dict[frozenset[str], PairDecision]) -> PairDecision:
    """The strongest merge decision tying `label` to another member (its route into the cluster)."""
    found = [d for key, d in by_pair.items() if label in key and d.merge and key <= members]
    return max(found, key=lambda d: d.scores.get("combined", 1.0))


def _conflicts(label: str, against: set[str], profiles: dict[str, LabelProfile], reasoner: Reasoner) -> list[dict[str, Any]]:
    """Active claims of `label` that contradict active claims on the labels `against` (the
    target and the merged labels listed before it: each pair shows once in the plan)."""
    mine = profiles[label]
    others = [row for m in sorted(against - {label}) if m in profiles for row in profiles[m].active]
    if not mine.active or not others:
        return []
    by_id = {row["id"]: row for row in others}
    found = []
    for row in mine.active:
        claim = as_claim(row)
        for cid in reasoner.conflicts(claim, [as_claim(o, row["entity"]) for o in others], mine.cardinality):
            o = by_id[cid]
            found.append({"claim": row["id"], "agent": row["agent"], "value": row["value"] or row["text"],
                          "against_claim": cid, "against_label": o["entity"], "against_agent": o["agent"],
                          "against_value": o["value"] or o["text"], "same_agent": o["agent"] == row["agent"]})
    return found


def as_claim(row: dict[str, Any], entity: str | None = None) -> Claim:
    return Claim(id=row["id"], entity=entity or row["entity"], text=row["text"], value=row["value"],
                 kind=Kind(row["kind"]), agent=row["agent"], session=row["session"],
                 observed_at=from_epoch(row["observed_at"]), recorded_at=from_epoch(row["recorded_at"]),
                 status=Status(row["status"]), confidence=row["confidence"])
