"""Hand-built scenarios, and the ground truth of a scenario computed one write at a
time (the plain reference the vectorized generator is tested against).

    row = scenario_row(7, truth={"user.timezone": [(0, "cet"), (1000, "pst")]}, writes=[
        HandWrite("scheduler", "user.timezone", "cet", observed=100),
        HandWrite("chat", "user.timezone", "cet", observed=900, delivered=2000),
    ], queries=[("user.timezone", 1500)])
    table = scenarios_table([row])          # SCENARIO_SCHEMA, ready for the Ray job

Times are seconds after `epoch`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .catalog import BY_KEY
from .config import GeneratorConfig
from .generator import SCENARIO_SCHEMA

EPOCH = GeneratorConfig().epoch


@dataclass(frozen=True)
class HandWrite:
    agent: str
    entity: str
    value: str
    observed: float
    delivered: float | None = None
    """Defaults to `observed` (on time)."""
    label: str | None = None
    """Defaults to `entity` (no drift)."""
    drift: str = ""
    session: str | None = None
    """Defaults to '<agent>-1'."""


def scenario_row(scenario_id: int, *, truth: dict[str, list[tuple[float, str]]], writes: Sequence[HandWrite],
                 queries: Sequence[tuple[str, float]] = (), gap: float = 0.0, epoch: float = EPOCH,
                 reliability: dict[str, dict[str, float]] | None = None) -> dict[str, Any]:
    """One row of SCENARIO_SCHEMA; every ground-truth flag is computed by `ground_truth`.
    `reliability`: agent -> entity -> the agent's true reliability on it (what the
    reliability oracle knows; without it, the world's nominal reliabilities)."""
    ordered = sorted(writes, key=lambda w: (w.delivered if w.delivered is not None else w.observed, w.observed))
    segments = {e: sorted(s) for e, s in truth.items()}
    rows = []
    for j, w in enumerate(ordered):
        delivered = w.delivered if w.delivered is not None else w.observed
        spec = BY_KEY.get(w.entity)
        text = f"{spec.templates[0][0]}{w.value}{spec.templates[0][1]}" if spec else f"{w.entity} is {w.value}"
        rows.append({
            "write_id": f"s{scenario_id}w{j}", "agent": w.agent, "session": w.session or f"{w.agent}-1",
            "label": w.label or w.entity, "entity": w.entity, "drift": w.drift, "text": text, "value": w.value,
            "observed_at": epoch + w.observed, "delivered_at": epoch + delivered,
            "correct": w.value == _at(segments.get(w.entity, []), w.observed),
            "late": delivered - w.observed > 60, "simultaneous": False, "repeat": False,
        })
    high = {e for e in truth if BY_KEY.get(e) is not None and BY_KEY[e].high_stakes}
    for row, flags in zip(rows, ground_truth(rows, high), strict=True):
        row.update(flags)
    return {
        "scenario_id": scenario_id, "gap": gap,
        "entities": [{"entity": e, "domain": BY_KEY[e].domain if e in BY_KEY else "profile", "high_stakes": e in high}
                     for e in truth],
        "reliability": [{"entity": e, "agent": a, "reliability": r}
                        for a, table in (reliability or {}).items() for e, r in table.items()],
        "truth": [{"entity": e, "valid_from": epoch + t, "value": v} for e, segs in segments.items() for t, v in segs],
        "writes": rows,
        "queries": [{"entity": e, "at": epoch + t, "value": _at(segments[e], t)} for e, t in queries],
    }


def _at(segments: list[tuple[float, str]], t: float) -> str | None:
    i = bisect_right([s for s, _ in segments], t) - 1
    return segments[i][1] if i >= 0 else None


def ground_truth(writes: Sequence[dict[str, Any]], high_stakes: set[str]) -> list[dict[str, bool]]:
    """Per write (in delivery order): conflict, genuine, must_escalate; docs/evals.md
    defines them. `writes` need entity, agent, value, correct, delivered_at, observed_at."""
    order = sorted(range(len(writes)), key=lambda i: (writes[i]["entity"], writes[i]["delivered_at"],
                                                       writes[i]["observed_at"]))
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    out: list[dict[str, bool]] = [{}] * len(writes)
    for i in order:
        w = writes[i]
        own = latest.get((w["entity"], w["agent"]))
        others = [p for (e, a), p in latest.items() if e == w["entity"] and a != w["agent"]]
        clashing = [p for p in others if p["value"] != w["value"]]
        repeat = own is not None and own["value"] == w["value"]
        conflict = bool(clashing) and not repeat
        genuine = conflict and (not w["correct"] or any(not p["correct"] for p in clashing))
        out[i] = {"conflict": conflict, "genuine": genuine, "must_escalate": genuine and w["entity"] in high_stakes}
        latest[(w["entity"], w["agent"])] = w
    return out


def scenarios_table(rows: Sequence[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=SCENARIO_SCHEMA)


def three_write_examples() -> list[dict[str, Any]]:
    """Three scenarios of three writes by two agents, worked out by hand for every
    policy in docs/evals.md ("Known answers"):

    1. a late delivery of a value that was true before the truth changed (cet -> pst);
    2. the unreliable chat agent contradicting the scheduler, then repeating itself;
    3. the chat agent contradicting the billing agent on a high-stakes entity."""
    late = scenario_row(1, truth={"user.timezone": [(0, "cet"), (1000, "pst")]}, writes=[
        HandWrite("scheduler", "user.timezone", "cet", observed=100),
        HandWrite("scheduler", "user.timezone", "pst", observed=1100),
        HandWrite("chat", "user.timezone", "cet", observed=900, delivered=2000),
    ], queries=[("user.timezone", 1500), ("user.timezone", 2500)])
    gap = scenario_row(2, truth={"user.schedule.gym": [(0, "monday 7am")]}, writes=[
        HandWrite("scheduler", "user.schedule.gym", "monday 7am", observed=100),
        HandWrite("chat", "user.schedule.gym", "tuesday 6pm", observed=200),
        HandWrite("chat", "user.schedule.gym", "tuesday 6pm", observed=300),
    ])
    stakes = scenario_row(3, truth={"user.payment.method": [(0, "paypal")]}, writes=[
        HandWrite("billing", "user.payment.method", "paypal", observed=100),
        HandWrite("chat", "user.payment.method", "invoice", observed=200),
        HandWrite("billing", "user.payment.method", "paypal", observed=300),
    ])
    return [late, gap, stakes]
