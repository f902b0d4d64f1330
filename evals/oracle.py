"""The reliability oracle: the ceiling of conflict resolution in the synthetic world.

It knows what no store can know: each agent's true reliability on each entity in the
scenario (the scenario's `reliability` column), the world's parameters (how often the
truth changes, how wrong reports are made) and the true entity of every write (it reads
drifted labels on their entity). It does not know the truth. After every delivered
write it answers, per entity, the value with the highest posterior probability of being
true, given the reports delivered so far. It never disputes and never escalates.

The model is the generator's (docs/evals.md, section 1):

- truth: a first value uniform over the entity's values, then changes as a Poisson
  process of rate `change_rate / (change_window * horizon_s)` inside the change window,
  each to a uniformly drawn other value (the generator's cap of 6 changes is ignored);
- a report by an agent of reliability r is the value true at its observation time with
  probability r; otherwise, with probability `stale_error_share`, the previous true
  value (when there was one), else a uniformly drawn wrong value;
- near-simultaneous pairs: the second of two reports observed less than
  `simultaneous_gap_s` apart was made to differ from the first;
- repeats: a report may be its agent's copy of its own earlier report (`p_repeat`, after
  `repeat_delay_s`), which tells nothing new; the oracle weighs that against a fresh
  report by the two rates;
- otherwise reports are independent given the truth.

The filter's state is (current value, previous value or none): stale errors make a
report depend on the previous segment. Reports are filtered in observation order; over
an interval with m expected changes the transition is closed form (`_propagate`). The
ranking of current values does not move between reports (their marginal follows a
Jukes-Cantor chain, which only shrinks towards uniform), so the answer after the last
delivered write is also the answer of every read until the next one.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .catalog import BY_KEY
from .config import GeneratorConfig
from .metrics import is_wrong_overwrite, new_counts, tally_final, tally_label, tally_read
from .scenario import Query, Scenario

Counts = dict[str, int]
TIE = 1e-12
"""Relative tolerance under which two posteriors are a tie (the held answer stays)."""
EDGE = 1e-6
"""Reliabilities are kept inside [EDGE, 1 - EDGE]: a certain agent would make
contradicting reports impossible instead of unlikely."""


@dataclass(frozen=True)
class World:
    """What the oracle knows of the generator's settings."""

    changes_per_s: float
    window: tuple[float, float]
    """Epoch seconds between which the truth may change."""
    stale_share: float
    report_rate: dict[str, float] = field(default_factory=dict)
    """Per agent: its independent reports per second on an entity."""
    repeat_density: float = 0.0
    """Per second of delay: the chance that a report is repeated then (inside `repeat_delay`)."""
    repeat_delay: tuple[float, float] = (0.0, 0.0)
    simultaneous_s: float = 0.0

    @classmethod
    def of(cls, gen: GeneratorConfig) -> World:
        span = gen.change_window * gen.horizon_s
        rate = gen.change_rate / span if span > 0 and gen.change_rate > 0 else 0.0
        total = sum(gen.agent_mix.values()) or 1.0
        per_entity = (gen.reports_min + gen.report_rate) / gen.horizon_s
        reports = {a: per_entity * gen.agent_mix.get(a, 0.0) / total for a in gen.agents}
        lo, hi = gen.repeat_delay_s
        return cls(rate, (gen.epoch, gen.epoch + span), gen.stale_error_share, reports,
                   gen.p_repeat / (hi - lo) if hi > lo else 0.0, (lo, hi), gen.simultaneous_gap_s)

    def expected_changes(self, start: float, end: float) -> float:
        lo, hi = self.window
        return self.changes_per_s * max(0.0, min(end, hi) - max(start, lo))

    def independent_rate(self, agent: str) -> float:
        rates = self.report_rate
        found = rates.get(agent) or 0.0
        return found if found > 0 else (sum(rates.values()) / len(rates) if rates else 1.0)


def _propagate(alpha: np.ndarray, m: float) -> np.ndarray:
    """The filter over an interval with `m` expected changes. `alpha[x, p]`: current value
    x, previous value p (column nv: none). After N >= 1 changes the state is (y, x') with
    x' the value before the last change (a Jukes-Cantor chain after N - 1 changes) and y
    any other value; summing over N ~ Poisson(m) gives `same` and `diff` below."""
    nv = alpha.shape[0]
    if m <= 0 or nv < 2:
        return alpha
    stay = math.exp(-m)
    c = -1.0 / (nv - 1)
    same = (1 - stay) / nv + (1 - 1 / nv) * stay * math.expm1(m * c) / c
    diff = ((1 - stay) - same) / (nv - 1)
    current = alpha.sum(axis=1)
    before_last = (diff * current.sum() + (same - diff) * current) / (nv - 1)
    out = stay * alpha
    out[:, :nv] += before_last[None, :]
    out[np.arange(nv), np.arange(nv)] -= before_last  # a change never keeps its value
    return out


@dataclass(frozen=True)
class Report:
    observed_at: float
    value: int
    """Index into the entity's values."""
    reliability: float
    agent: str


def _likelihood(nv: int, value: int, r: float, stale: float) -> np.ndarray:
    """P(the report says `value` | state) for every state (current, previous)."""
    r = min(max(r, EDGE), 1 - EDGE)
    like = np.full((nv, nv + 1), (1 - r) * (1 - stale) / (nv - 1))
    like[:, nv] = (1 - r) / (nv - 1)  # no previous value: no stale error
    like[:, value] += (1 - r) * stale
    like[value, :] = r
    return like


def posterior(reports: Sequence[Report], nv: int, world: World) -> np.ndarray:
    """P(current value = x | reports) after the last report; `reports` in any order."""
    if nv < 2:
        return np.ones(nv)
    alpha = np.zeros((nv, nv + 1))
    alpha[:, nv] = 1.0 / nv
    at = world.window[0]
    seen: list[Report] = []
    for rep in sorted(reports, key=lambda x: x.observed_at):
        alpha = _propagate(alpha, world.expected_changes(at, rep.observed_at))
        at = max(at, rep.observed_at)
        alpha *= _evidence(rep, seen, nv, world)
        alpha /= alpha.sum()
        seen.append(rep)
    return alpha.sum(axis=1)


def _evidence(rep: Report, seen: list[Report], nv: int, world: World) -> np.ndarray:
    """The likelihood of one report, knowing the earlier ones (in observation order).

    - A near-simultaneous pair's second report was made to differ from the first: its
      value is its own draw, or, when that draw equalled the first's value, another one.
    - An agent repeating its own value within the repeat delay may be copying itself (no
      news about the truth) or reporting afresh: a mixture, weighted by the two rates."""
    like = _likelihood(nv, rep.value, rep.reliability, world.stale_share)
    pair = [o for o in seen if rep.observed_at - o.observed_at < world.simultaneous_s and o.value != rep.value]
    if pair:
        first = pair[-1]
        return like + _likelihood(nv, first.value, rep.reliability, world.stale_share) / (nv - 1)
    lo, hi = world.repeat_delay
    copies = sum(1 for o in seen if o.agent == rep.agent and o.value == rep.value
                 and lo <= rep.observed_at - o.observed_at <= hi)
    if copies and world.repeat_density > 0:
        copy = copies * world.repeat_density
        return copy + world.independent_rate(rep.agent) * like
    return like


@dataclass
class Belief:
    """The oracle's knowledge of one entity: the reports delivered so far and its answer.

    The filter runs incrementally: `ordered` holds the reports in observation order and
    `states[i]` the filter after `ordered[:i + 1]`. A report delivered in observation order
    (the usual case) costs one step; a late one re-filters from where it belongs. The
    result is the same as `posterior` over all reports (a test checks it)."""

    values: list[str]
    world: World
    reports: list[Report] = field(default_factory=list)
    """In delivery order."""
    answer: str | None = None
    ordered: list[Report] = field(default_factory=list)
    states: list[np.ndarray] = field(default_factory=list)

    def add(self, observed_at: float, value: str, reliability: float, agent: str) -> str:
        if value not in self.values:
            self.values.append(value)
            self.states = []  # one more value: every state changes shape
        report = Report(observed_at, self.values.index(value), reliability, agent)
        self.reports.append(report)
        at = bisect_right([r.observed_at for r in self.ordered], observed_at)  # after equal times: as sorted()
        self.ordered.insert(at, report)
        post = self._filter(min(at, len(self.states)))
        best = post.max()
        tied = [i for i, p in enumerate(post) if p >= best * (1 - TIE)]
        if self.answer is not None and self.values.index(self.answer) in tied:
            return self.answer
        latest = [r.value for r in reversed(self.reports) if r.value in tied]  # the newest delivered among the tied
        self.answer = self.values[latest[0] if latest else tied[0]]
        return self.answer

    def _filter(self, start: int) -> np.ndarray:
        """Re-filter `ordered[start:]` from the state before it; the current-value marginal."""
        nv = len(self.values)
        if nv < 2:
            return np.ones(nv)
        del self.states[start:]
        if start == 0:
            alpha, at = np.zeros((nv, nv + 1)), self.world.window[0]
            alpha[:, nv] = 1.0 / nv
        else:
            alpha, at = self.states[-1], max(self.world.window[0], self.ordered[start - 1].observed_at)
        reach = max(self.world.simultaneous_s, self.world.repeat_delay[1])
        times = [r.observed_at for r in self.ordered]
        for i in range(start, len(self.ordered)):
            rep = self.ordered[i]
            alpha = _propagate(alpha, self.world.expected_changes(at, rep.observed_at))
            at = max(at, rep.observed_at)
            near = self.ordered[bisect_left(times, rep.observed_at - reach, 0, i):i]  # what _evidence can look at
            alpha = alpha * _evidence(rep, near, nv, self.world)
            alpha /= alpha.sum()
            self.states.append(alpha)
        return alpha.sum(axis=1)


def reliability_of(s: Scenario, gen: GeneratorConfig, agent: str, entity: str) -> float:
    """The agent's true reliability on the entity in this scenario; without one in the
    scenario file, the world's nominal reliability for the entity's domain."""
    found = s.reliability.get((entity, agent))
    if found is not None:
        return found
    if agent not in gen.agents:
        return 0.5
    domain = s.domains.get(entity) or (BY_KEY[entity].domain if entity in BY_KEY else "*")
    return gen.reliability(agent, domain)


def _values(s: Scenario, entity: str) -> list[str]:
    """The values the entity can take: the catalog's, or (outside the catalog) those the
    scenario's truth names; values seen in reports join as they arrive."""
    known = list(BY_KEY[entity].values) if entity in BY_KEY else []
    return known + [v for v in dict.fromkeys(s.true_values(entity)) if v not in known]


def oracle_replay(s: Scenario, gen: GeneratorConfig) -> tuple[dict[str, Counts], list[tuple[str, str | None]]]:
    """Counts per true entity, and the oracle's answer on the write's entity after each
    write (write id, answer), in delivery order."""
    world = World.of(gen)
    beliefs: dict[str, Belief] = {}
    counts: dict[str, Counts] = {e: new_counts() for e in s.entities}
    decisions: list[tuple[str, str | None]] = []
    counts_seen: set[str] = set()

    def belief(entity: str) -> Belief:
        return beliefs.setdefault(entity, Belief(_values(s, entity), world))

    for event in s.events:
        if isinstance(event, Query):
            answer = beliefs[event.entity].answer if event.entity in beliefs else None
            tally_read(counts.setdefault(event.entity, new_counts()), answer, event.value,
                       s.past_values(event.entity, event.at))
            continue
        w = event
        b = belief(w.entity)
        before = b.answer
        after = b.add(w.observed_at, w.value, reliability_of(s, gen, w.agent, w.entity), w.agent)
        decisions.append((w.write_id, after))
        c = counts.setdefault(w.entity, new_counts())
        c["writes"] += 1
        c["must_escalate"] += w.must_escalate
        tally_label(c, w.drift, True, w.entity not in counts_seen, False)  # read on its true entity
        counts_seen.add(w.entity)
        if before is not None and after != before:
            c["overwrites"] += 1
            c["wrong_overwrites"] += is_wrong_overwrite(after, [(before, s.truth_at(w.entity, w.delivered_at))])
    for e in s.entities:
        tally_final(counts[e], beliefs[e].answer if e in beliefs else None, s.final(e), False)
    return counts, decisions
