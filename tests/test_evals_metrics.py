"""Metric definitions on plain values, and the last-write-wins baseline."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from vault_ray.evals.handmade import HandWrite, scenario_row, scenarios_table, three_write_examples
from vault_ray.evals.metrics import (
    AMBIGUOUS,
    COUNT_COLUMNS,
    RESULTS_SCHEMA,
    Aggregator,
    answer_of,
    as_row,
    is_wrong_overwrite,
    new_counts,
    rates,
    read_outcome,
    summarize,
)
from vault_ray.evals.replay import lww_counts
from vault_ray.evals.scenario import scenarios_from_arrow


def test_answer_of_active_values():
    assert answer_of([]) is None
    assert answer_of(["pst", "pst"]) == "pst"  # corroborating agents: one value
    assert answer_of(["pst", "cet"]) == AMBIGUOUS


@pytest.mark.parametrize(("answer", "now", "past", "outcome"), [
    ("pst", "pst", {"cet"}, "correct"),
    ("cet", "pst", {"cet"}, "stale"),  # was true before
    ("utc", "pst", {"cet"}, "wrong"),
    (None, "pst", set(), "missing"),
    (AMBIGUOUS, "pst", {"cet"}, "wrong"),
])
def test_read_outcome(answer, now, past, outcome):
    assert read_outcome(answer, now, past) == outcome


def test_wrong_overwrite_needs_a_true_victim_and_a_false_winner():
    assert is_wrong_overwrite("cet", [("pst", "pst")])
    assert not is_wrong_overwrite("pst", [("cet", "pst")])  # a correction
    assert not is_wrong_overwrite("utc", [("cet", "pst")])  # false replaced by false
    assert not is_wrong_overwrite("cet", [("pst", None)])  # no truth to judge by


def test_rates_divide_summed_counts_and_say_nan_without_a_denominator():
    c = new_counts() | {"writes": 2000, "entities": 10, "final_correct": 7, "final_strict": 5, "disputes": 3,
                        "judge_calls": 20, "wrong_overwrites": 50, "must_escalate": 4, "escalated": 2,
                        "escalated_tp": 2, "reads": 8, "reads_stale": 2, "reads_correct": 5}
    r = rates(c)
    assert r["final_accuracy"] == 0.7 and r["final_strict_accuracy"] == 0.5
    assert r["disputes_per_1k"] == 1.5 and r["judge_calls_per_1k"] == 10.0
    assert r["wrong_overwrite_rate"] == 0.025
    assert r["escalation_recall"] == 0.5 and r["escalation_precision"] == 1.0
    assert r["stale_read_rate"] == 0.25 and r["read_accuracy"] == 0.625
    assert math.isnan(r["resolution_accuracy"])  # no drifted write


def _rows(policy, counts_list, gaps):
    class S:  # the two attributes as_row reads
        def __init__(self, i, gap):
            self.id, self.gap = i, gap

    return pa.Table.from_pylist([as_row(policy, S(i, g), c) for i, (c, g) in enumerate(zip(counts_list, gaps, strict=True))],
                                schema=RESULTS_SCHEMA)


def test_aggregator_over_blocks_equals_one_summary():
    a = new_counts() | {"writes": 10, "entities": 2, "final_correct": 1}
    b = new_counts() | {"writes": 30, "entities": 2, "final_correct": 2, "disputes": 3}
    t1, t2 = _rows("x", [a], [0.05]), _rows("x", [b], [0.45])
    agg = Aggregator()
    agg.add(t1)
    agg.add(t2)
    assert repr(agg.summary().to_pylist()) == repr(summarize(pa.concat_tables([t1, t2])).to_pylist())  # NaN-safe
    row = agg.summary().to_pylist()[0]
    assert row["scenarios"] == 2 and row["writes"] == 40
    assert row["final_accuracy"] == 0.75 and row["disputes_per_1k"] == 75.0
    assert agg.accuracy_by_gap()["x"] == [(pytest.approx(0.05), 0.5, 2), (pytest.approx(0.45), 1.0, 2)]


def test_lww_on_the_three_write_examples():
    late, gap, stakes = scenarios_from_arrow(scenarios_table(three_write_examples()))
    # late: the chat's stale "cet" arrives last and overwrites the true "pst"
    assert {k: v for k, v in lww_counts(late).items() if v} == {
        "writes": 3, "entities": 1, "reads": 2, "reads_correct": 1, "reads_stale": 1, "overwrites": 2,
        "wrong_overwrites": 1, "new_entity_writes": 1}
    assert {k: v for k, v in lww_counts(gap).items() if v} == {
        "writes": 3, "entities": 1, "overwrites": 1, "wrong_overwrites": 1, "new_entity_writes": 1}
    # high stakes: never escalated, the billing agent happens to have the last word
    assert {k: v for k, v in lww_counts(stakes).items() if v} == {
        "writes": 3, "entities": 1, "final_correct": 1, "final_strict": 1, "overwrites": 2, "wrong_overwrites": 1,
        "must_escalate": 1, "new_entity_writes": 1}


def test_lww_keys_by_the_label_as_written():
    row = scenario_row(0, truth={"user.timezone": [(0, "pst")]}, writes=[
        HandWrite("scheduler", "user.timezone", "cet", observed=10),
        HandWrite("chat", "user.timezone", "pst", observed=20, label="user.tz", drift="alias"),
    ])
    (s,) = scenarios_from_arrow(scenarios_table([row]))
    c = lww_counts(s)
    assert (c["final_correct"], c["drifted"], c["drift_resolved"]) == (0, 1, 0)


def test_count_columns_are_the_results_schema():
    assert RESULTS_SCHEMA.names == ["policy", "scenario_id", "gap", *COUNT_COLUMNS, "cpu_s", "node"]


def test_docs_define_every_results_and_summary_column():
    from pathlib import Path

    from vault_ray.evals.generator import SCENARIO_SCHEMA
    from vault_ray.evals.metrics import SUMMARY_SCHEMA

    docs = (Path(__file__).parents[1] / "docs" / "evals.md").read_text()
    names = [*RESULTS_SCHEMA.names, *SUMMARY_SCHEMA.names, *SCENARIO_SCHEMA.names]
    names += [f.name for f in SCENARIO_SCHEMA.field("writes").type.value_type]
    assert [n for n in names if f"`{n}`" not in docs] == []
