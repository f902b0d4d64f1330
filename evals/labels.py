"""Labels for a store that has no ground truth, and the recommendation made from them.

A store never learns the truth, but two kinds of entity say what its people and its
history take to be true now:

- **resolved disputes**: the value of the winning claim of the entity's latest resolved
  dispute (a person, or an auto-resolve rule: `decided_by` says which), unless a claim
  recorded after the resolution contradicts it;
- **long-lived values**: an entity whose only active value has stood, uncontradicted and
  undisputed, for at least `min_age_s` (7 days by default): from the first observation of
  that value (`observed_at`, when an agent said it) to the latest observation in the log,
  no claim observed in between says otherwise.

Long-lived values are what the store's own policy kept, so they favour it: a proposal can
only gain on them where the store's history had a contest. The report says so. The
recommendation then follows recommend.py with the store's entities as units: entities are
split in two halves by a stable hash of their key (weights.entity_half), the weights and
strategies are chosen on one, the gain is measured on the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from vault_ray import Policy

from .from_store import ClaimLog, read_claim_log, replay_views
from .metrics import COUNT_COLUMNS, answer_of
from .recommend import CANDIDATES, NOT_JUDGE, Recommendation, candidate_policy, choose_with_floor, held_gains, proposed_policy
from .weights import FIT, HELD, MIN_PATTERNS, MIN_REPORTS, LearnedWeights, entity_half, entity_pattern, summed

DAY = 86_400.0
MIN_AGE_S = 7 * DAY


@dataclass(frozen=True)
class Label:
    entity: str
    value: str
    source: str
    """`dispute` or `long-lived`."""
    decided_by: str = ""


def store_labels(log: ClaimLog, min_age_s: float = MIN_AGE_S) -> dict[str, Label]:
    """entity -> its label, for the entities that have one (module docstring)."""
    rows = log.claims.select(["id", "entity", "value", "text", "status", "observed_at", "recorded_at"]).to_pylist()
    if not rows:
        return {}
    value_of = {r["id"]: r["value"] or r["text"] for r in rows}
    by_entity: dict[str, list[dict]] = {}
    for r in rows:
        by_entity.setdefault(r["entity"], []).append(r)

    def contradicted(entity: str, value: str, after: float, clock: str) -> bool:
        return any(r[clock] > after and value_of[r["id"]] != value for r in by_entity.get(entity, []))

    labels: dict[str, Label] = {}
    resolved = sorted((d for d in log.disputes.to_pylist() if d["status"] == "resolved" and d["winner"]
                       and not d["keep_both"] and d["winner"] in value_of), key=lambda d: d["resolved_at"] or 0.0)
    for d in resolved:  # the latest resolution of an entity wins
        value = value_of[d["winner"]]
        if not contradicted(d["entity"], value, d["resolved_at"] or 0.0, "recorded_at"):
            labels[d["entity"]] = Label(d["entity"], value, "dispute", d["decided_by"] or "")
        else:
            labels.pop(d["entity"], None)
    end = max(r["observed_at"] for r in rows)
    disputed = set(log.open_disputes.column("entity").to_pylist())
    for entity, claims in by_entity.items():
        if entity in labels or entity in disputed:
            continue
        active = {value_of[r["id"]] for r in claims if r["status"] == "active"}
        if len(active) != 1:
            continue
        value = active.pop()
        since = min(r["observed_at"] for r in claims if r["status"] == "active" and value_of[r["id"]] == value)
        if end - since >= min_age_s and not contradicted(entity, value, since, "observed_at"):
            labels[entity] = Label(entity, value, "long-lived")
    return labels


def label_agreement(log: ClaimLog, labels: dict[str, Label], half: str = FIT) -> LearnedWeights:
    """Each agent's agreement with the labels of `half`, per entity pattern."""
    rows = [{"agent": r["agent"], "pattern": entity_pattern(r["entity"]),
             "agree": int((r["value"] or r["text"]) == labels[r["entity"]].value), "reports": 1}
            for r in log.claims.select(["entity", "agent", "value", "text"]).to_pylist()
            if r["entity"] in labels and entity_half(r["entity"]) == half]
    if not rows:
        return LearnedWeights.from_tables([])
    return LearnedWeights(summed(pa.Table.from_pylist(rows)))


def _scored(log: ClaimLog, policy: Policy, labels: dict[str, Label], half: str) -> dict[str, dict[str, int]]:
    """Per labelled entity of `half`: counts of the policy's final answer against the label."""
    views, _ = replay_views(log, replace(policy, rate_limit=None))
    out = {}
    for entity, label in labels.items():
        if entity_half(entity) != half or entity not in views:
            continue
        view = views[entity]
        counts = dict.fromkeys(COUNT_COLUMNS, 0)
        counts.update(entities=1, writes=1, final_contested=int(view.contested), disputes=int(view.contested),
                      final_correct=int(answer_of(c.value or c.text for c in view.active) == label.value))
        out[entity] = counts
    return out


def recommend_from_store(path: str | Path, *, min_age_s: float = MIN_AGE_S, candidates: Sequence[str] = CANDIDATES,
                         resamples: int = 1000, seed: int = 0) -> Recommendation:
    log = read_claim_log(path)
    labels = store_labels(log, min_age_s)
    if not labels:
        raise ValueError(f"{str(path)!r} has no labels to learn from: no resolved dispute and no value that stood "
                         f"{min_age_s / DAY:g} days uncontradicted (resolve disputes, or lower --min-age-days)")
    weights = label_agreement(log, labels)
    learned, left_out = weights.supported()
    totals: dict[tuple[str, str], dict[str, float]] = {}
    for c in candidates:
        for entity, counts in _scored(log, candidate_policy(c, log.policy, learned), labels, FIT).items():
            total = totals.setdefault((c, entity_pattern(entity)), dict.fromkeys(COUNT_COLUMNS, 0.0))
            for k, v in counts.items():
                total[k] += v
    choices, default, held = choose_with_floor(totals, log.policy, candidates)  # a change needs MIN_ENTITIES
    proposal = proposed_policy(log.policy, choices, default, learned)
    rows = [{"policy": name, "entity": e, "pattern": entity_pattern(e), **counts}
            for name, policy in (("current", log.policy), ("proposed", proposal))
            for e, counts in _scored(log, policy, labels, HELD).items()]
    gains = held_gains(pa.Table.from_pylist(rows), "entity", resamples=resamples, seed=seed,
                       metrics=("final_accuracy",)) if rows else []
    few = ([f"Authority weights are proposed only from at least {MIN_REPORTS} labelled reports per agent and pattern "
            f"(an agent's `*` weight: {MIN_REPORTS} from {MIN_PATTERNS} or more patterns); too few, so not proposed "
            f"(the current weights stay): {', '.join(left_out)}"] if left_out else [])
    return Recommendation(proposal, log.policy, choices, weights, gains, _source(labels, min_age_s), unit="entities",
                          notes=[*held, *few, NOT_JUDGE])


def _source(labels: dict[str, Label], min_age_s: float) -> str:
    kinds = Counter(label.source for label in labels.values())
    deciders = Counter(label.decided_by for label in labels.values() if label.source == "dispute")
    who = ", ".join(f"{n} by {d or 'unknown'}" for d, n in sorted(deciders.items()))
    return (f"no ground truth in a store: the labels are {kinds['dispute']} resolved disputes (the winning value"
            f"{'; ' + who if who else ''}) and {kinds['long-lived']} long-lived values (the only active value, "
            f"uncontradicted and undisputed for at least {min_age_s / DAY:g} days before the log's latest observation). "
            "Long-lived values are what the store's own policy kept: they favour it")
