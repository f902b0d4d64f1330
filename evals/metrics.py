"""Metric definitions: per-scenario counts, and the per-policy rates made from them.

A replay produces one row of integer counts per (policy, scenario) (`RESULTS_SCHEMA`);
rates are sums of counts divided by sums of counts (`summarize`), so they add up
correctly over any number of Ray blocks. docs/evals.md defines each metric.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

COUNT_COLUMNS = (
    "writes", "rejected", "entities", "final_correct", "final_strict", "final_contested", "final_missing",
    "reads", "reads_correct", "reads_stale", "overwrites", "wrong_overwrites", "disputes",
    "escalated", "must_escalate", "escalated_tp", "judge_calls", "drifted", "drift_resolved", "mislabeled",
    "new_entity_writes", "false_alignments",
)
"""`drifted`: writes whose label drifted to a registry alias or an unregistered paraphrase
(what entity resolution can fix), `drift_resolved` those that landed on their true entity;
`mislabeled`: writes labelled with another entity's registered key, which resolution never
moves (DESIGN §2.3), counted apart. `new_entity_writes`: writes whose true entity had no
earlier write in the scenario; `false_alignments`: those aligned onto another entity."""
RESULTS_SCHEMA = pa.schema(
    [("policy", pa.string()), ("scenario_id", pa.int64()), ("gap", pa.float64())]
    + [(c, pa.int64()) for c in COUNT_COLUMNS]
    + [("cpu_s", pa.float64()), ("node", pa.string())]
)
"""`cpu_s`: CPU seconds of the replay that produced the row, shared evenly by the
scenarios of its batch (the work, whatever else runs on the machine); `node`: the Ray
node that replayed it (its id's first 12 hex digits; "" outside Ray)."""
PATTERN_RESULTS_SCHEMA = pa.schema(
    [("policy", pa.string()), ("scenario_id", pa.int64()), ("gap", pa.float64()), ("pattern", pa.string())]
    + [(c, pa.int64()) for c in COUNT_COLUMNS]
    + [("cpu_s", pa.float64()), ("node", pa.string())]
)
"""RESULTS_SCHEMA split by entity pattern (weights.entity_pattern): one row per (policy,
scenario, pattern), what the recommendation chooses a strategy per pattern from."""
RATE_COLUMNS = (
    "final_accuracy", "final_strict_accuracy", "final_contested_rate", "read_accuracy", "stale_read_rate",
    "wrong_overwrite_rate", "disputes_per_1k", "escalation_recall", "escalation_precision",
    "judge_calls_per_1k", "resolution_accuracy", "false_alignment_rate", "rejected_per_1k",
)
RATE_DEFS: dict[str, tuple[str, str, float]] = {
    # metric: (numerator count, denominator count, scale)
    "final_accuracy": ("final_correct", "entities", 1.0),
    "final_strict_accuracy": ("final_strict", "entities", 1.0),
    "final_contested_rate": ("final_contested", "entities", 1.0),
    "read_accuracy": ("reads_correct", "reads", 1.0),
    "stale_read_rate": ("reads_stale", "reads", 1.0),
    "wrong_overwrite_rate": ("wrong_overwrites", "writes", 1.0),
    "disputes_per_1k": ("disputes", "writes", 1000.0),
    "escalation_recall": ("escalated_tp", "must_escalate", 1.0),
    "escalation_precision": ("escalated_tp", "escalated", 1.0),
    "judge_calls_per_1k": ("judge_calls", "writes", 1000.0),
    "resolution_accuracy": ("drift_resolved", "drifted", 1.0),
    "false_alignment_rate": ("false_alignments", "new_entity_writes", 1.0),
    "rejected_per_1k": ("rejected", "writes", 1000.0),
}
ORACLE_COLUMNS = ("final_vs_oracle", "read_vs_oracle")
"""A policy's final-state and read accuracy as a fraction of the reliability oracle's,
on the same scenarios."""
INTERVAL_COLUMNS = tuple(f"{c}_{end}" for c in (*RATE_COLUMNS, *ORACLE_COLUMNS) for end in ("low", "high"))
SUMMARY_SCHEMA = pa.schema(
    [("policy", pa.string()), ("scenarios", pa.int64()), ("writes", pa.int64())]
    + [(c, pa.float64()) for c in RATE_COLUMNS]
    + [("cpu_s", pa.float64())]
    + [(c, pa.float64()) for c in (*ORACLE_COLUMNS, *INTERVAL_COLUMNS)]
)
"""Point estimates, then the oracle fractions and every 95% interval (uncertainty.py);
NaN where there is no denominator, no oracle row or no interval."""
AMBIGUOUS = "\x00ambiguous"
"""The answer of a view with several different active values (never true)."""


def new_counts() -> dict[str, int]:
    return dict.fromkeys(COUNT_COLUMNS, 0)


def tally_label(c: dict[str, int], drift: str, resolved: bool, first: bool, misaligned: bool) -> None:
    """Count one write's label: its drift kind and whether it landed on its true entity;
    for the first write of its true entity, whether it was aligned onto another one."""
    if drift == "mislabel":
        c["mislabeled"] += 1
    elif drift:
        c["drifted"] += 1
        c["drift_resolved"] += resolved
    if first:
        c["new_entity_writes"] += 1
        c["false_alignments"] += misaligned


def answer_of(values: Iterable[str | None]) -> str | None:
    """What a reader takes from the active values: the value, None if there is none,
    AMBIGUOUS if there are several different ones."""
    distinct = {v for v in values if v is not None}
    if not distinct:
        return None
    return distinct.pop() if len(distinct) == 1 else AMBIGUOUS


def read_outcome(answer: str | None, true_now: str | None, past: set[str]) -> str:
    """correct | stale (a value that was true earlier) | missing | wrong."""
    if answer is None:
        return "missing"
    if answer == true_now:
        return "correct"
    return "stale" if answer in past else "wrong"


def is_wrong_overwrite(incoming: str, replaced: Sequence[tuple[str, str | None]]) -> bool:
    """`replaced` holds (value, truth now) of each claim the write superseded: wrong if
    one of them was true and the incoming value is not."""
    return any(value == truth and incoming != truth for value, truth in replaced if truth is not None)


def tally_read(counts: dict[str, int], answer: str | None, true_now: str | None, past: set[str]) -> None:
    outcome = read_outcome(answer, true_now, past)
    counts["reads"] += 1
    counts["reads_correct"] += outcome == "correct"
    counts["reads_stale"] += outcome == "stale"


def tally_final(counts: dict[str, int], answer: str | None, truth: str | None, contested: bool) -> None:
    counts["entities"] += 1
    counts["final_correct"] += answer is not None and answer == truth
    counts["final_strict"] += answer is not None and answer == truth and not contested
    counts["final_contested"] += contested
    counts["final_missing"] += answer is None


def ratio(num: float, den: float, scale: float = 1.0) -> float:
    return scale * num / den if den else math.nan


def rates(c: Mapping[str, float]) -> dict[str, float]:
    """The per-policy metrics from summed counts (NaN where the denominator is 0)."""
    return {m: ratio(c[num], c[den], scale) for m, (num, den, scale) in RATE_DEFS.items()}


class Aggregator:
    """Sums count rows per policy (and per reliability-gap bin for the chart)."""

    def __init__(self, gap_bins: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.01)) -> None:
        self.bins = list(gap_bins)
        self.totals: dict[str, dict[str, int]] = {}
        self.scenarios: dict[str, int] = {}
        self.cpu: dict[str, float] = {}
        self.by_gap: dict[tuple[str, int], list[int]] = {}

    def add(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        sums = table.group_by("policy").aggregate(
            [(c, "sum") for c in (*COUNT_COLUMNS, "cpu_s")] + [("scenario_id", "count")])
        for row in sums.to_pylist():
            tot = self.totals.setdefault(row["policy"], new_counts())
            for c in COUNT_COLUMNS:
                tot[c] += row[f"{c}_sum"]
            self.cpu[row["policy"]] = self.cpu.get(row["policy"], 0.0) + (row["cpu_s_sum"] or 0.0)
            self.scenarios[row["policy"]] = self.scenarios.get(row["policy"], 0) + row["scenario_id_count"]
        edges = np.asarray(self.bins[1:-1])
        binned = table.select(["policy", "final_correct", "entities"]).append_column(
            "bin", pa.array(np.digitize(table["gap"].to_numpy(zero_copy_only=False), edges), pa.int64()))
        by_bin = binned.group_by(["policy", "bin"]).aggregate([("final_correct", "sum"), ("entities", "sum")])
        for row in by_bin.to_pylist():
            acc = self.by_gap.setdefault((row["policy"], row["bin"]), [0, 0])
            acc[0] += row["final_correct_sum"]
            acc[1] += row["entities_sum"]

    def summary(self, intervals: Mapping[str, Mapping[str, float]] | None = None) -> pa.Table:
        """One row per policy; `intervals` (policy -> column -> value, from
        uncertainty.policy_intervals) fills the oracle fractions and the intervals."""
        extra = dict.fromkeys((*ORACLE_COLUMNS, *INTERVAL_COLUMNS), math.nan)
        rows = [
            {"policy": p, "scenarios": self.scenarios[p], "writes": t["writes"], **rates(t), "cpu_s": self.cpu[p],
             **extra, **((intervals or {}).get(p) or {})}
            for p, t in self.totals.items()
        ]
        return pa.Table.from_pylist(rows, schema=SUMMARY_SCHEMA)

    def accuracy_by_gap(self) -> dict[str, list[tuple[float, float, int]]]:
        """policy -> [(bin centre, final-state accuracy, entities)] for bins with data."""
        out: dict[str, list[tuple[float, float, int]]] = {}
        for (policy, b), (ok, n) in sorted(self.by_gap.items()):
            if n:
                centre = (self.bins[b] + min(self.bins[b + 1], 1.0)) / 2
                out.setdefault(policy, []).append((centre, ok / n, n))
        return out


def summarize(results: pa.Table) -> pa.Table:
    agg = Aggregator()
    agg.add(results)
    return agg.summary()


def as_row(policy: str, scenario: Any, counts: Mapping[str, int], cpu_s: float = 0.0, node: str = "") -> dict[str, Any]:
    return {"policy": policy, "scenario_id": scenario.id, "gap": scenario.gap, **counts, "cpu_s": cpu_s, "node": node}
