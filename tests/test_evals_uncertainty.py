"""Bootstrap intervals over scenarios: a policy against itself, a planted gap, and how the
report words it."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from vault_ray.evals.metrics import COUNT_COLUMNS, RESULTS_SCHEMA, Aggregator
from vault_ray.evals.report import difference, findings, fmt_ci
from vault_ray.evals.uncertainty import UnitCounts, bootstrap, comparisons, policy_intervals

BINS = (0.0, 0.5, 1.01)


def results(rng: np.random.Generator, accuracy: dict[str, float], scenarios: int = 400) -> pa.Table:
    """Result rows of policies whose entities are right with the given probability: 1-3
    entities and 1-4 writes per scenario (the same scenarios for every policy)."""
    entities = rng.integers(1, 4, scenarios)
    writes = rng.integers(1, 5, scenarios) * entities
    rows = []
    for policy, p in accuracy.items():
        right = rng.binomial(entities, p)
        wrong_overwrites = rng.binomial(writes, 0.1)
        for i in range(scenarios):
            counts = dict.fromkeys(COUNT_COLUMNS, 0)
            counts.update(entities=int(entities[i]), final_correct=int(right[i]), writes=int(writes[i]),
                          wrong_overwrites=int(wrong_overwrites[i]), reads=1, reads_correct=int(right[i] > 0))
            rows.append({"policy": policy, "scenario_id": i, "gap": 0.3, **counts, "cpu_s": 0.0, "node": ""})
    return pa.Table.from_pylist(rows, schema=RESULTS_SCHEMA)


def units_of(table: pa.Table, scenarios: int) -> UnitCounts:
    units = UnitCounts(scenarios, BINS)
    units.add(table)
    return units


def test_a_policy_against_itself_has_an_interval_containing_zero():
    table = results(np.random.default_rng(1), {"a": 0.7})
    twin = table.set_column(0, "policy", pa.array(["a-again"] * table.num_rows))
    units = units_of(pa.concat_tables([table, twin]), 400)
    for r in comparisons(units, ["a", "a-again"], resamples=500).to_pylist():
        assert r["low"] <= 0 <= r["high"] and r["difference"] == 0 and not r["outside_noise"], r


def test_a_planted_ten_point_gap_is_reported_as_different():
    table = results(np.random.default_rng(2), {"better": 0.75, "worse": 0.65})
    units = units_of(table, 400)
    (row,) = comparisons(units, ["better", "worse"], metrics=["final_accuracy"], resamples=1000).to_pylist()
    assert row["outside_noise"] and row["low"] > 0
    assert row["low"] < 0.10 < row["high"]  # the interval holds the planted gap
    assert row["scenarios"] == 400


def test_the_report_says_which_differences_are_outside_the_noise():
    table = results(np.random.default_rng(3), {"lww": 0.6, "same": 0.6, "planted": 0.7})
    same = table.filter(pc.equal(table.column("policy"), "lww")).set_column(
        0, "policy", pa.array(["same"] * 400))
    table = pa.concat_tables([table.filter(pc.not_equal(table.column("policy"), "same")), same])
    units = units_of(table, 400)
    comps = comparisons(units, ["lww", "same", "planted"], resamples=500)
    agg = Aggregator()
    agg.add(table)
    lines = findings(agg.summary(policy_intervals(units, ["lww", "same", "planted"], resamples=500)), comps)
    same_line = next(x for x in lines if x.startswith("- **same**"))
    planted_line = next(x for x in lines if x.startswith("- **planted**"))
    assert "final-state accuracy" in same_line and "within the noise" in same_line
    assert "+0.0 points" in same_line
    assert "outside the noise" in planted_line.split("wrong overwrites")[0]
    d, lo, hi = difference(comps, "planted", "lww", "final_accuracy")
    assert d == -difference(comps, "lww", "planted", "final_accuracy")[0] and lo > 0


def test_every_metric_gets_an_interval_around_its_estimate():
    table = results(np.random.default_rng(4), {"a": 0.7, "oracle": 0.8})
    units = units_of(table, 400)
    found = policy_intervals(units, ["a", "oracle"], resamples=500)
    agg = Aggregator()
    agg.add(table)
    row = {r["policy"]: r for r in agg.summary(found).to_pylist()}["a"]
    assert row["final_accuracy_low"] < row["final_accuracy"] < row["final_accuracy_high"]
    assert row["wrong_overwrite_rate_low"] < row["wrong_overwrite_rate"] < row["wrong_overwrite_rate_high"]
    assert math.isnan(row["escalation_recall_low"])  # nothing must escalate: no denominator, no interval
    assert row["final_vs_oracle"] == pytest.approx(row["final_accuracy"] / 0.8, rel=0.1)
    assert row["final_vs_oracle_low"] < row["final_vs_oracle"] < row["final_vs_oracle_high"]
    assert fmt_ci(row["final_accuracy"], row["final_accuracy_low"], row["final_accuracy_high"], "%").count("[") == 1


def test_more_scenarios_narrow_the_interval_and_pooling_keeps_it():
    def width(n: int, max_units: int | None = None) -> float:
        table = results(np.random.default_rng(5), {"a": 0.7}, scenarios=n)
        units = UnitCounts(n, BINS, max_units=max_units) if max_units else UnitCounts(n, BINS)
        units.add(table)
        out = policy_intervals(units, ["a"], resamples=500)["a"]
        return out["final_accuracy_high"] - out["final_accuracy_low"]

    assert width(1600) < 0.7 * width(200)
    assert width(1600, max_units=400) == pytest.approx(width(1600), rel=0.25)  # groups of 4 whole scenarios


def test_the_bootstrap_resamples_rows_with_scipy():
    units = np.array([[1, 1], [0, 1]] * 50, dtype=float)  # half the rows are right
    point, low, high = bootstrap(units, lambda s: (s[:, 0] / s[:, 1])[:, None], resamples=500, seed=1)
    assert point[0] == 0.5 and low[0] < 0.5 < high[0] and high[0] - low[0] < 0.3
    _, low1, _ = bootstrap(units[:1], lambda s: (s[:, 0] / s[:, 1])[:, None])
    assert math.isnan(low1[0])  # one unit: nothing to resample
