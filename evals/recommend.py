"""`vault-ray eval --recommend`: which strategy, for which entities, with which weights.

The method (docs/evals.md, "Recommendations"), the same on synthetic scenarios and on a
store's labels (labels.py):

1. Split the data in two halves (weights.FIT / HELD).
2. On the fit half, estimate authority weights (each agent's agreement with the labels,
   per entity pattern: weights.py) and replay each candidate strategy everywhere
   (`recency`, `authority` and `consensus`, the latter two with those weights, on top of
   the current policy's other settings).
3. Per entity pattern, propose the candidate with the highest final-state accuracy
   (then read accuracy, then fewer disputes; a tie keeps the current strategy). The
   default strategy (`*`, entities the data never showed) is the best candidate overall.
   A store's labels are few (`choose(min_entities=MIN_ENTITIES)`): a pattern with fewer
   labelled entities than that, or whose candidates are all equally accurate, keeps its
   current strategy, and the recommendation's notes say which and why.
4. On the held half, which chose nothing, replay the current policy and the proposal and
   report the gain in accuracy with a paired bootstrap interval (uncertainty.py), overall
   and per pattern.

The proposal is the current policy with the chosen strategies and the learned weights
(`merged`: a learned entry replaces the current entries its pattern covers; a current
entry the data never labelled stays), without the entries it adds that change nothing
(`without_no_ops`), written as a policy file (`vault_ray.policy_file`) for
`vault-ray policy apply` after review.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray import Policy
from vault_ray.policy import best_match, specificity
from vault_ray.policy_file import write_policy_file

from .config import EvalConfig, GeneratorConfig
from .metrics import COUNT_COLUMNS
from .uncertainty import bootstrap
from .weights import FIT, HELD, LearnedWeights

CANDIDATES = ("recency", "authority", "consensus")
"""Strategies a proposal chooses among. Not `judge`: its accuracy in an evaluation is a
setting (or the offline rule reasoner's), not a measurement of the judge a store runs."""
NOT_JUDGE = ("`judge` is never proposed: its accuracy in an evaluation is a setting (the scripted judge) or the "
             "offline rule reasoner's, not a measurement of the judge a store would run.")
MIN_ENTITIES = 5
"""Labelled entities (fit half) a pattern needs before `eval --from-store --recommend` proposes
another strategy for it (the default strategy: as many over all patterns), as weights.MIN_REPORTS
for a weight; and the candidates' final-state accuracy must differ there. Otherwise the current
strategy stays: one labelled entity that every candidate gets right says nothing about which is."""
Replays = Callable[[Mapping[str, Policy], str], Iterable[pa.Table]]
"""(named user-level policies, half) -> PATTERN_RESULTS_SCHEMA blocks of that half."""


@dataclass(frozen=True)
class Gain:
    """Proposal minus current on the held half, with its paired 95% interval."""

    metric: str
    pattern: str
    """"*" for all entities."""
    units: int
    current: float
    proposed: float
    difference: float
    low: float
    high: float

    @property
    def outside_noise(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class PatternChoice:
    pattern: str
    entities: int
    """Labelled entities of the pattern in the fit half."""
    accuracy: dict[str, float]
    """Candidate -> final-state accuracy on the fit half."""
    chosen: str
    current: str
    high_stakes: bool = False
    kept: str = ""
    """Why the current strategy stays though another candidate ranked first (too few labelled
    entities, every candidate equally accurate); empty when `chosen` is the best candidate."""


@dataclass(frozen=True)
class Recommendation:
    policy: Policy
    current: Policy
    choices: list[PatternChoice]
    weights: LearnedWeights
    gains: list[Gain]
    source: str
    """Where the labels came from, said in the report."""
    unit: str = "scenarios"
    """What the bootstrap resamples: scenarios, or a store's entities."""
    notes: list[str] = field(default_factory=list)

    def gain(self, metric: str = "final_accuracy", pattern: str = "*") -> Gain | None:
        return next((g for g in self.gains if g.metric == metric and g.pattern == pattern), None)

    def evidence(self) -> dict[str, Any]:
        """What the policy file records next to the policy: how it was proposed."""
        return {
            "source": self.source, "unit": self.unit, "candidates": list(CANDIDATES),
            "patterns": [{"pattern": c.pattern, "strategy": c.chosen, "current": c.current, "entities": c.entities,
                          "accuracy": c.accuracy, "high_stakes": c.high_stakes, **({"kept": c.kept} if c.kept else {})}
                         for c in self.choices],
            "gains": [{"metric": g.metric, "pattern": g.pattern, "units": g.units, "current": g.current,
                       "proposed": g.proposed, "difference": g.difference, "low": g.low, "high": g.high}
                      for g in self.gains],
            "weights_evidence": self.weights.agreement.to_pylist(),
            "notes": self.notes,
        }

    def write(self, path: str | Path) -> Path:
        return write_policy_file(path, self.policy, proposal=self.evidence())


# -- choosing ----------------------------------------------------------------------------
def candidate_policy(strategy: str, current: Policy, weights: Mapping[str, Mapping[str, float]]) -> Policy:
    """The current policy with `strategy` for every entity and the learned weights."""
    return replace(current, default_strategy=strategy, strategies={}, authority=merged(current.authority, weights),
                   rate_limit=None)


def merged(current: Mapping[str, Mapping[str, float]], learned: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Each agent's current table with the learned entries on top. A current entry that a
    learned pattern covers (`user.schedule.gym` under a learned `user.schedule.*`) is
    dropped: it would otherwise shadow the evidence. A current entry for a pattern the
    data never labelled stays (a learned `*` is no evidence about it: `chat`'s 0.2 on
    `user.timezone` survives a `*` learned from `user.payment.*` alone)."""
    out = {a: dict(t) for a, t in current.items()}
    for agent, table in learned.items():
        patterns = [p for p in table if p != "*"]
        kept = {p: w for p, w in out.get(agent, {}).items() if p != "*" and not any(_covers(q, p) for q in patterns)}
        out[agent] = {**kept, **table}
    return out


def choose(totals: Mapping[tuple[str, str], Mapping[str, float]], current: Policy,
           candidates: Sequence[str] = CANDIDATES) -> tuple[list[PatternChoice], str]:
    """Per pattern, the best candidate on `totals` ((candidate, pattern) -> summed counts);
    and the default strategy: the best candidate over every pattern."""
    choices, default, _ = choose_with_floor(totals, current, candidates, min_entities=0)
    return choices, default


def choose_with_floor(totals: Mapping[tuple[str, str], Mapping[str, float]], current: Policy,
                      candidates: Sequence[str] = CANDIDATES, *,
                      min_entities: int = MIN_ENTITIES) -> tuple[list[PatternChoice], str, list[str]]:
    """`choose`, where a change needs evidence (`min_entities` > 0, a store's labels): a pattern
    with fewer labelled entities, or whose candidates are all equally accurate, keeps its current
    strategy (`PatternChoice.kept` says why); so does the default. Also returns the note saying so."""
    patterns = sorted({p for _, p in totals})
    choices = []
    for pattern in patterns:
        scored = {c: totals[(c, pattern)] for c in candidates if (c, pattern) in totals}
        now = current.strategy_for(_probe(pattern))
        best = max(scored, key=lambda c: _rank(scored[c], c == now, candidates.index(c)))
        kept = _unsupported(scored, best, now, min_entities)
        choices.append(PatternChoice(pattern, int(scored[best]["entities"]),
                                     {c: _ratio(t["final_correct"], t["entities"]) for c, t in scored.items()},
                                     now if kept else best, now, current.is_high_stakes(_probe(pattern)), kept))
    pooled = {c: {k: sum(t[k] for (cc, _), t in totals.items() if cc == c) for k in _RANKED} for c in candidates
              if any(cc == c for cc, _ in totals)}
    now = current.default_strategy
    default = max(pooled, key=lambda c: _rank(pooled[c], c == now, candidates.index(c))) if pooled else now
    default_kept = _unsupported(pooled, default, now, min_entities) if pooled else ""
    held = [f"`{c.pattern}` ({c.current}: {c.kept})" for c in choices if c.kept and not c.high_stakes]
    held += [f"the default `*` ({now}: {default_kept})"] if default_kept else []
    notes = ([f"A strategy is changed only on the evidence of at least {min_entities} labelled entities of its "
              "pattern (the default: over all patterns) whose candidates differ in final-state accuracy; too little, "
              f"so the current strategy stays: {', '.join(held)}"] if held else [])
    return choices, now if default_kept else default, notes


def _unsupported(scored: Mapping[str, Mapping[str, float]], best: str, now: str, min_entities: int) -> str:
    """Why the labels cannot support changing `now` to `best` ("" when they can, or when
    `min_entities` is 0: no floor)."""
    if not min_entities or best == now:
        return ""
    entities = int(scored[best]["entities"])
    if entities < min_entities:
        return f"{entities} labelled entit{'y' if entities == 1 else 'ies'}"
    if len({_ratio(t["final_correct"], t["entities"], 0.0) for t in scored.values()}) == 1:
        return "every candidate equally accurate"
    return ""


_RANKED = ("final_correct", "entities", "reads_correct", "reads", "disputes", "writes")


def _rank(t: Mapping[str, float], is_current: bool, order: int) -> tuple[float, ...]:
    return (_ratio(t["final_correct"], t["entities"], 0.0), _ratio(t["reads_correct"], t["reads"], 0.0),
            -_ratio(t["disputes"], t["writes"], 0.0), is_current, -order)


def _ratio(num: float, den: float, empty: float = math.nan) -> float:
    return num / den if den else empty


def _probe(pattern: str) -> str:
    """An entity key the pattern stands for (to ask the policy about it)."""
    return pattern[:-2] + ".x" if pattern.endswith(".*") else pattern


def proposed_policy(current: Policy, choices: Sequence[PatternChoice], default: str,
                    weights: Mapping[str, Mapping[str, float]]) -> Policy:
    """The current policy with the chosen strategies and the learned weights. High-stakes
    patterns always ask the user: their strategy is left as it was."""
    chosen = {c.pattern: c.chosen for c in choices if not c.high_stakes}
    kept = {p: s for p, s in current.strategies.items() if not any(_covers(q, p) for q in chosen)}
    policy = replace(current, default_strategy=default, strategies={**kept, **chosen},
                     authority=merged(current.authority, weights), version=current.version + 1)
    return without_no_ops(policy, current)


def without_no_ops(policy: Policy, current: Policy) -> Policy:
    """`policy` without the entries it adds that change nothing: a strategy or an authority
    weight equal to what the policy gives the pattern without it (the default strategy, the
    agent's `*` weight, `default_weight`). Entries of `current` stay as they are."""
    strategies = dict(policy.strategies)
    for pattern in [p for p in policy.strategies if p not in current.strategies]:
        rest = {p: s for p, s in strategies.items() if p != pattern}
        if (best_match(rest, _probe(pattern)) or policy.default_strategy) == strategies[pattern]:
            strategies = rest
    authority = {}
    for agent, table in policy.authority.items():
        table, before = dict(table), current.authority.get(agent, {})
        for pattern in sorted((p for p in list(table) if p not in before), key=lambda p: p == "*"):
            rest = {p: w for p, w in table.items() if p != pattern}
            if _weight(rest, pattern, policy.default_weight) == table[pattern]:
                table = rest
        if table or agent in current.authority:
            authority[agent] = table
    return replace(policy, strategies=strategies, authority=authority)


def _weight(table: Mapping[str, float], pattern: str, default: float) -> float:
    found = best_match(dict(table), _probe(pattern)) if pattern != "*" else table.get("*")
    return default if found is None else float(found)


def _covers(pattern: str, other: str) -> bool:
    """Every key `other` matches is matched by `pattern` (`other` is as or more specific)."""
    if pattern == other or pattern == "*":
        return True
    probe = _probe(other) if other != "*" else None
    return probe is not None and pattern.endswith(".*") and specificity(pattern, probe) is not None


def pattern_totals(tables: Iterable[pa.Table], prefix: str = "") -> dict[tuple[str, str], dict[str, float]]:
    """(policy without `prefix`, pattern) -> counts summed over the rows' scenarios."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for t in tables:
        if t.num_rows == 0:
            continue
        sums = t.group_by(["policy", "pattern"]).aggregate([(c, "sum") for c in COUNT_COLUMNS])
        for row in sums.to_pylist():
            key = (row["policy"].removeprefix(prefix), row["pattern"])
            total = out.setdefault(key, dict.fromkeys(COUNT_COLUMNS, 0.0))
            for c in COUNT_COLUMNS:
                total[c] += row[f"{c}_sum"]
    return out


# -- measuring ---------------------------------------------------------------------------
def held_gains(rows: pa.Table, unit: str = "scenario_id", *, resamples: int = 1000, seed: int = 0,
               metrics: Sequence[str] = ("final_accuracy", "read_accuracy")) -> list[Gain]:
    """Gains of `proposed` over `current` from pattern rows of the held half (columns
    policy, pattern, `unit` and the counts), overall and per pattern, with paired intervals
    from a bootstrap over `unit`."""
    defs = {"final_accuracy": ("final_correct", "entities"), "read_accuracy": ("reads_correct", "reads")}
    ids = sorted(set(rows.column(unit).to_pylist()))
    if not ids:
        return []
    at = {u: i for i, u in enumerate(ids)}
    patterns = sorted(set(rows.column("pattern").to_pylist()))
    keys = [(p, m) for p in ["*", *patterns] for m in metrics]
    cols = {(side, p, c): j for j, (side, p, c) in enumerate(
        (side, p, c) for side in ("current", "proposed") for p in ["*", *patterns] for m in metrics for c in defs[m])}
    matrix = np.zeros((len(ids), len(cols)))
    for row in rows.to_pylist():
        if row["policy"] not in ("current", "proposed"):
            continue
        for p in ("*", row["pattern"]):
            for m in metrics:
                for c in defs[m]:
                    matrix[at[row[unit]], cols[(row["policy"], p, c)]] += row[c]

    def stat(sums: np.ndarray) -> np.ndarray:
        out = []
        for p, m in keys:
            num, den = defs[m]
            with np.errstate(divide="ignore", invalid="ignore"):
                acc = {side: sums[:, cols[(side, p, num)]] / sums[:, cols[(side, p, den)]] for side in ("current", "proposed")}
            out += [acc["current"], acc["proposed"], acc["proposed"] - acc["current"]]
        return np.column_stack(out)

    point, low, high = bootstrap(matrix, stat, resamples=resamples, seed=seed)
    gains = []
    for i, (p, m) in enumerate(keys):
        units = int(np.count_nonzero(matrix[:, cols[("current", p, defs[m][1])]]))
        if units:
            gains.append(Gain(m, p, units, float(point[3 * i]), float(point[3 * i + 1]), float(point[3 * i + 2]),
                              float(low[3 * i + 2]), float(high[3 * i + 2])))
    return gains


# -- synthetic scenarios -------------------------------------------------------------------
def recommend(replays: Replays, weights: LearnedWeights, current: Policy, *, candidates: Sequence[str] = CANDIDATES,
              resamples: int = 1000, seed: int = 0, source: str = "") -> Recommendation:
    """Choose on the fit half, measure on the held half; `replays` runs the policies
    (job.ray_replays on a Ray cluster, `local_replays` in this process)."""
    learned = weights.weights
    fit = {f"fit:{c}": candidate_policy(c, current, learned) for c in candidates}
    choices, default = choose(pattern_totals(replays(fit, FIT), prefix="fit:"), current, candidates)
    proposal = proposed_policy(current, choices, default, learned)
    held = [t for t in replays({"current": current, "proposed": proposal}, HELD) if t.num_rows]
    rows = pa.concat_tables(held) if held else None
    gains = held_gains(rows, resamples=resamples, seed=seed) if rows is not None else []
    return Recommendation(proposal, current, choices, weights, gains,
                          source or "the scenarios' ground truth (each entity's final true value)", notes=[NOT_JUDGE])


def local_replays(table: pa.Table, generator: GeneratorConfig, evaluation: EvalConfig, seed: int = 0) -> Replays:
    """Replays in this process (no Ray): for small runs and tests."""
    from .job import replay_batch  # noqa: PLC0415

    def run(policies: Mapping[str, Policy], half: str) -> list[pa.Table]:
        return [replay_batch(table, policies=list(policies), generator=generator.to_dict(),
                             evaluation=evaluation.to_dict(), seed=seed,
                             custom={n: p.to_dict() for n, p in policies.items()},
                             scopes=dict.fromkeys(policies, half), by_pattern=True)]

    return run
