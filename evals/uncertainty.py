"""Confidence intervals: a bootstrap over scenarios, with scipy.stats.bootstrap.

Every metric is a ratio of counts summed over scenarios (metrics.py), so a resample is
a draw of *scenarios* with replacement (never of writes: the writes of one scenario
are not independent) and its metric is the same ratio over the drawn scenarios. One
resample serves every metric of every policy at once, so two policies are compared on
the very same draws: the interval of their difference is a *paired* bootstrap.

`UnitCounts` keeps, per policy, the counts summed per unit: a unit is one scenario
(`scenario_id % units`; with ids 0..n-1 and n <= MAX_UNITS, exactly one scenario each).
Above MAX_UNITS scenarios, scenarios are pooled into MAX_UNITS groups by id, and the
bootstrap draws groups of whole scenarios: memory stays flat at any scale.

Intervals are percentile intervals (`method="percentile"`): BCa's jackknife costs one
evaluation per unit, n^2 work at 100,000 scenarios, and is undefined when a difference
is identically zero (a policy against itself). A metric whose denominator is zero in
some resample (a rare event) has no interval (NaN, shown as n/a).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import pyarrow as pa

from .metrics import COUNT_COLUMNS, RATE_COLUMNS, RATE_DEFS

MAX_UNITS = 20_000
CONFIDENCE = 0.95
COMPARED = ("final_accuracy", "read_accuracy", "wrong_overwrite_rate")
"""The metrics whose paired differences the report states."""
COLUMNS = (*COUNT_COLUMNS, "scenarios")
COMPARISONS_SCHEMA = pa.schema([
    ("policy", pa.string()), ("versus", pa.string()), ("metric", pa.string()), ("scenarios", pa.int64()),
    ("difference", pa.float64()), ("low", pa.float64()), ("high", pa.float64()), ("outside_noise", pa.bool_()),
])
Statistic = Callable[[np.ndarray], np.ndarray]
"""Column sums of the drawn units, shape (draws, columns) -> statistics, shape (draws, outputs)."""


def bootstrap(units: np.ndarray, statistic: Statistic, *, resamples: int = 1000, confidence: float = CONFIDENCE,
              seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high) of every output of `statistic`, resampling the rows of
    `units` (one row per scenario or group of scenarios; columns are counts)."""
    from scipy import stats  # noqa: PLC0415  (about 1 s: only an eval's report needs it, not every bulk job)

    units = np.asarray(units, dtype=np.float64)
    units = units[np.any(units != 0, axis=1)]  # a unit no scenario fell in is not a draw
    n = units.shape[0]
    point = statistic(units.sum(axis=0)[None, :])[0]
    if n < 2:
        nan = np.full_like(point, np.nan)
        return point, nan, nan.copy()

    def drawn(index: np.ndarray, axis: int = -1) -> np.ndarray:
        rows = index.reshape(-1, n)
        weights = np.stack([np.bincount(r, minlength=n) for r in rows]).astype(np.float64)
        out = statistic(weights @ units)
        return out.T.reshape(out.shape[1], *index.shape[:-1])

    batch = max(1, min(resamples, 4_000_000 // n))
    with warnings.catch_warnings():  # a NaN statistic (zero denominator) just has no interval
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap((np.arange(n),), drawn, vectorized=True, n_resamples=resamples, batch=batch,
                                 method="percentile", confidence_level=confidence, rng=np.random.default_rng(seed))
    ci = result.confidence_interval
    return point, np.asarray(ci.low, dtype=np.float64), np.asarray(ci.high, dtype=np.float64)


def rate_of(sums: np.ndarray, metric: str, at: int = 0) -> np.ndarray:
    """A metric from column sums laid out as COLUMNS, starting at column `at`."""
    num, den, scale = RATE_DEFS[metric]
    n, d = sums[:, at + COLUMNS.index(num)], sums[:, at + COLUMNS.index(den)]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d > 0, scale * n / np.where(d > 0, d, 1), np.nan)


class UnitCounts:
    """Counts per policy and unit, filled block by block while the job streams results."""

    def __init__(self, scenarios: int, gap_bins: Sequence[float], *, max_units: int = MAX_UNITS) -> None:
        self.units = max(1, min(scenarios, max_units))
        self.edges = np.asarray(gap_bins[1:-1])
        self.bins = len(gap_bins) - 1
        self.counts: dict[str, np.ndarray] = {}
        self.by_gap: dict[str, np.ndarray] = {}

    def add(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        policies = np.asarray(table.column("policy").to_pylist(), dtype=object)
        unit = table.column("scenario_id").to_numpy() % self.units
        values = np.column_stack([table.column(c).to_numpy() for c in COUNT_COLUMNS] + [np.ones(table.num_rows)])
        gap_bin = np.digitize(table.column("gap").to_numpy(), self.edges)
        finals = values[:, [COLUMNS.index("final_correct"), COLUMNS.index("entities")]]
        for policy in dict.fromkeys(policies):
            rows = policies == policy
            counts = self.counts.setdefault(policy, np.zeros((self.units, len(COLUMNS))))
            np.add.at(counts, unit[rows], values[rows])
            gaps = self.by_gap.setdefault(policy, np.zeros((self.units, self.bins, 2)))
            np.add.at(gaps, (unit[rows], gap_bin[rows]), finals[rows])

    def present(self, policy: str) -> np.ndarray:
        return self.counts[policy][:, -1] > 0


class _Layout:
    """Blocks of COLUMNS (a policy's counts, restricted to some units) side by side."""

    def __init__(self, uc: UnitCounts) -> None:
        self.uc, self.blocks, self.at = uc, [], {}

    def block(self, policy: str, mask: np.ndarray | None = None) -> int:
        if mask is not None and mask.all():
            mask = None
        key = (policy, None if mask is None else mask.tobytes())
        if key not in self.at:
            counts = self.uc.counts[policy]
            self.at[key] = len(self.blocks) * len(COLUMNS)
            self.blocks.append(counts if mask is None else counts * mask[:, None])
        return self.at[key]

    def matrix(self) -> np.ndarray:
        return np.hstack(self.blocks)


def policy_intervals(uc: UnitCounts, policies: Sequence[str], *, reference: str = "oracle", resamples: int = 1000,
                     confidence: float = CONFIDENCE, seed: int = 0) -> dict[str, dict[str, float]]:
    """Per policy: `<metric>_low`/`_high` of every rate, and — when `reference` ran —
    `final_vs_oracle`, `read_vs_oracle` (the policy's accuracy over the reference's on
    the same scenarios) with their intervals."""
    layout = _Layout(uc)
    outputs: list[tuple[str, str, Callable[[np.ndarray], np.ndarray]]] = []
    for p in policies:
        at = layout.block(p)
        outputs += [(p, m, lambda s, at=at, m=m: rate_of(s, m, at)) for m in RATE_COLUMNS]
        if reference in uc.counts:
            ref = layout.block(reference, uc.present(p))
            for name, metric in (("final_vs_oracle", "final_accuracy"), ("read_vs_oracle", "read_accuracy")):
                outputs.append((p, name, lambda s, at=at, ref=ref, m=metric: _quotient(rate_of(s, m, at),
                                                                                      rate_of(s, m, ref))))
    point, low, high = bootstrap(layout.matrix(), lambda s: np.column_stack([f(s) for _, _, f in outputs]),
                                 resamples=resamples, confidence=confidence, seed=seed)
    out: dict[str, dict[str, float]] = {p: {} for p in policies}
    for (p, name, _), v, lo, hi in zip(outputs, point, low, high, strict=True):
        if name in ("final_vs_oracle", "read_vs_oracle"):
            out[p][name] = float(v)
        out[p][f"{name}_low"], out[p][f"{name}_high"] = float(lo), float(hi)
    return out


def _quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def comparisons(uc: UnitCounts, policies: Sequence[str], *, metrics: Sequence[str] = COMPARED, resamples: int = 1000,
                confidence: float = CONFIDENCE, seed: int = 0) -> pa.Table:
    """Paired differences `policy - versus` for every pair (in `policies` order) and metric,
    on the scenarios both ran; `outside_noise` when the interval excludes 0."""
    layout = _Layout(uc)
    rows, outputs = [], []
    for a, b in combinations(policies, 2):
        both = uc.present(a) & uc.present(b)
        at_a, at_b = layout.block(a, both), layout.block(b, both)
        shared = int(uc.counts[a][both, -1].sum())
        for m in metrics:
            rows.append({"policy": a, "versus": b, "metric": m, "scenarios": shared})
            outputs.append(lambda s, at_a=at_a, at_b=at_b, m=m: rate_of(s, m, at_a) - rate_of(s, m, at_b))
    if not outputs:
        return COMPARISONS_SCHEMA.empty_table()
    point, low, high = bootstrap(layout.matrix(), lambda s: np.column_stack([f(s) for f in outputs]),
                                 resamples=resamples, confidence=confidence, seed=seed)
    for row, v, lo, hi in zip(rows, point, low, high, strict=True):
        row.update(difference=float(v), low=float(lo), high=float(hi), outside_noise=bool(lo > 0 or hi < 0))
    return pa.Table.from_pylist(rows, schema=COMPARISONS_SCHEMA)


def gap_intervals(uc: UnitCounts, policies: Sequence[str], *, resamples: int = 1000, confidence: float = CONFIDENCE,
                  seed: int = 0) -> dict[str, list[tuple[int, float, float]]]:
    """policy -> [(gap bin, low, high)] of final-state accuracy, for bins with data."""
    blocks = [uc.by_gap[p].reshape(uc.units, -1) for p in policies]
    if not blocks:
        return {}
    width = uc.bins * 2

    def accuracy(s: np.ndarray) -> np.ndarray:
        cells = s.reshape(s.shape[0], len(policies), uc.bins, 2)
        return _quotient(cells[..., 0], cells[..., 1]).reshape(s.shape[0], -1)

    _, low, high = bootstrap(np.hstack(blocks), accuracy, resamples=resamples, confidence=confidence, seed=seed)
    out: dict[str, list[tuple[int, float, float]]] = {}
    for i, p in enumerate(policies):
        entities = blocks[i][:, 1::2].sum(axis=0)
        base = i * width // 2
        out[p] = [(b, float(low[base + b]), float(high[base + b])) for b in range(uc.bins) if entities[b] > 0]
    return out
