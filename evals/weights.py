"""Authority weights estimated from data, and the two halves they are tested on.

A weight is an agent's agreement with the labels on an entity pattern: the share of
its reports whose value is the entity's label (synthetic scenarios: the entity's final
true value; a real store: the labels of labels.py), smoothed as (agree + 1) / (reports + 2)
so that an agent seen a few times stays near the neutral 0.5. Each agent also gets a
`*` weight from all its reports. Weights are estimated on one half of the data and
judged on the other: scenarios with an even id are the *fit* half, odd ids the *held*
half; a store's entities are split by a stable hash of their key.

Entity patterns: a key of three or more parts is grouped under its first two
(`user.schedule.gym` -> `user.schedule.*`), a shorter key stands for itself
(`user.diet`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vault_ray import Policy

from .config import EvalConfig

FIT, HELD = "fit", "held"
MIN_REPORTS = 5
"""Labelled reports an (agent, pattern) weight needs before `eval --from-store --recommend`
proposes it; an agent's `*` weight needs as many from at least MIN_PATTERNS patterns. Below
that the current weight stays: one resolved dispute says little about an agent."""
MIN_PATTERNS = 2
HALVES = (FIT, HELD)
AGREEMENT_SCHEMA = pa.schema([("agent", pa.string()), ("pattern", pa.string()), ("agree", pa.int64()),
                              ("reports", pa.int64())])


def entity_pattern(key: str) -> str:
    parts = key.split(".")
    return f"{parts[0]}.{parts[1]}.*" if len(parts) >= 3 else key


def scenario_half(scenario_id: int) -> str:
    return FIT if scenario_id % 2 == 0 else HELD


def entity_half(entity: str) -> str:
    digest = hashlib.blake2b(entity.encode(), digest_size=8).digest()
    return FIT if digest[0] % 2 == 0 else HELD


def in_half(ids: pa.Array | pa.ChunkedArray, half: str) -> pa.Array:
    """Mask of the scenario ids that belong to `half`."""
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES}, got {half!r}")
    odd = np.asarray(ids, dtype=np.int64) % 2 == 1
    return pa.array(odd if half == HELD else ~odd)


def agreement(table: pa.Table, half: str | None = FIT) -> pa.Table:
    """Per (agent, entity pattern) over the scenarios of `half` (None: all): reports whose
    value is the final true value of their (true) entity (AGREEMENT_SCHEMA)."""
    if half is not None:
        table = table.filter(in_half(table.column("scenario_id").combine_chunks(), half))
    if table.num_rows == 0:
        return AGREEMENT_SCHEMA.empty_table()
    ids = table.column("scenario_id").combine_chunks()
    writes = _flat(table, "writes", ids, ["agent", "entity", "value"])
    truth = _flat(table, "truth", ids, ["entity", "valid_from", "value"])
    last = truth.group_by(["sid", "entity"]).aggregate([("valid_from", "max")]).rename_columns(
        ["sid", "entity", "valid_from"])
    final = last.join(truth, ["sid", "entity", "valid_from"]).select(["sid", "entity", "value"]).rename_columns(
        ["sid", "entity", "final"])
    joined = writes.join(final, ["sid", "entity"])
    agree = pc.fill_null(pc.equal(joined.column("value"), joined.column("final")), False)
    rows = pa.table({"agent": joined.column("agent"), "pattern": _patterns(joined.column("entity")),
                     "agree": pc.cast(agree, pa.int64())})
    return summed(rows.append_column("reports", pa.array(np.ones(rows.num_rows, dtype=np.int64))))


def _flat(table: pa.Table, column: str, ids: pa.Array, fields: list[str]) -> pa.Table:
    lists = table.column(column).combine_chunks()
    items = pc.list_flatten(lists)
    sid = ids.take(pc.list_parent_indices(lists))
    return pa.table({"sid": sid, **{f: pc.struct_field(items, f) for f in fields}})


def _patterns(entities: pa.ChunkedArray | pa.Array) -> pa.Array:
    keys = pc.unique(entities).to_pylist()
    return pa.array([entity_pattern(k) for k in keys]).take(pc.index_in(entities, pa.array(keys)))


def summed(rows: pa.Table) -> pa.Table:
    """Agreement rows added up per (agent, pattern)."""
    if rows.num_rows == 0:
        return AGREEMENT_SCHEMA.empty_table()
    sums = rows.group_by(["agent", "pattern"]).aggregate([("agree", "sum"), ("reports", "sum")])
    return sums.rename_columns(["agent", "pattern", "agree", "reports"]).cast(AGREEMENT_SCHEMA).sort_by(
        [("agent", "ascending"), ("pattern", "ascending")])


@dataclass(frozen=True)
class LearnedWeights:
    """Authority weights estimated from agreement counts, with their evidence."""

    agreement: pa.Table
    """AGREEMENT_SCHEMA, summed per (agent, pattern)."""

    @classmethod
    def from_tables(cls, tables: Iterable[pa.Table]) -> LearnedWeights:
        found = [t for t in tables if t.num_rows]
        return cls(summed(pa.concat_tables(found)) if found else AGREEMENT_SCHEMA.empty_table())

    @property
    def weights(self) -> dict[str, dict[str, float]]:
        """agent -> pattern -> weight, plus `*` from all the agent's reports."""
        out: dict[str, dict[str, float]] = {}
        pooled: dict[str, list[int]] = {}
        for row in self.agreement.to_pylist():
            out.setdefault(row["agent"], {})[row["pattern"]] = smoothed(row["agree"], row["reports"])
            total = pooled.setdefault(row["agent"], [0, 0])
            total[0] += row["agree"]
            total[1] += row["reports"]
        for agent, (agree, reports) in pooled.items():
            out[agent]["*"] = smoothed(agree, reports)
        return out

    def supported(self, min_reports: int = MIN_REPORTS) -> tuple[dict[str, dict[str, float]], list[str]]:
        """The weights with enough evidence to propose (MIN_REPORTS), and what was left out, said."""
        learned, kept, left = self.weights, {}, []
        pooled: dict[str, list[int]] = {}
        for row in self.agreement.to_pylist():
            agent, pattern, n = row["agent"], row["pattern"], int(row["reports"])
            pooled.setdefault(agent, [0, 0])[0] += n
            pooled[agent][1] += 1
            if n >= min_reports:
                kept.setdefault(agent, {})[pattern] = learned[agent][pattern]
            else:
                left.append(f"{agent} on {pattern} ({n} report{'s' * (n != 1)})")
        for agent, (n, patterns) in pooled.items():
            if n >= min_reports and patterns >= MIN_PATTERNS:
                kept.setdefault(agent, {})["*"] = learned[agent]["*"]
            else:
                left.append(f"{agent} on * ({n} report{'s' * (n != 1)} from {patterns} pattern{'s' * (patterns != 1)})")
        return kept, left

    def reports(self, agent: str, pattern: str) -> int:
        for row in self.agreement.to_pylist():
            if row["agent"] == agent and row["pattern"] == pattern:
                return int(row["reports"])
        return 0


def smoothed(agree: int, reports: int) -> float:
    return round((agree + 1) / (reports + 2), 3)


def learned_policy(weights: dict[str, dict[str, float]], ev: EvalConfig) -> Policy:
    """The `learned` reference: authority everywhere, with the learned weights and the
    settings every compared policy shares."""
    from .policies import eval_settings  # noqa: PLC0415  (policies imports the replay's thresholds)

    return Policy(default_strategy="authority", authority=weights, **eval_settings(ev))
