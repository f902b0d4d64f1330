"""One scenario in Python form, as the replays read it: writes in delivery order,
reads, and the ground-truth timeline with its lookups."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class Write:
    write_id: str
    agent: str
    session: str
    label: str
    entity: str
    drift: str
    text: str
    value: str
    observed_at: float
    delivered_at: float
    correct: bool = True
    late: bool = False
    simultaneous: bool = False
    repeat: bool = False
    conflict: bool = False
    genuine: bool = False
    must_escalate: bool = False


@dataclass(frozen=True, slots=True)
class Query:
    entity: str
    at: float
    value: str


class Scenario:
    """Ground truth and the event sequence of one user."""

    __slots__ = ("id", "gap", "entities", "domains", "high_stakes", "reliability", "writes", "queries", "by_id",
                 "_truth", "events")

    def __init__(self, row: dict[str, Any]) -> None:
        self.id = int(row["scenario_id"])
        self.gap = float(row.get("gap") or 0.0)
        self.entities = [e["entity"] for e in row["entities"]]
        self.domains = {e["entity"]: e["domain"] for e in row["entities"]}
        self.high_stakes = {e["entity"] for e in row["entities"] if e["high_stakes"]}
        self.reliability = {(r["entity"], r["agent"]): float(r["reliability"]) for r in row.get("reliability") or ()}
        """(entity, agent) -> the agent's true reliability on the entity in this scenario."""
        self.writes = [Write(**w) for w in row["writes"]]
        self.queries = [Query(**q) for q in row["queries"]]
        self.by_id = {w.write_id: w for w in self.writes}
        self._truth: dict[str, tuple[list[float], list[str]]] = {}
        for seg in sorted(row["truth"], key=lambda s: (s["entity"], s["valid_from"])):
            starts, values = self._truth.setdefault(seg["entity"], ([], []))
            starts.append(seg["valid_from"])
            values.append(seg["value"])
        # Reads see every write delivered at or before their time.
        timed = [(w.delivered_at, 0, i, w) for i, w in enumerate(self.writes)]
        timed += [(q.at, 1, i, q) for i, q in enumerate(self.queries)]
        self.events: list[Write | Query] = [e for *_, e in sorted(timed, key=lambda x: x[:3])]

    def truth_at(self, entity: str, t: float) -> str | None:
        """The true value of `entity` at time `t` (None if it is not the scenario's or not yet set)."""
        found = self._truth.get(entity)
        if found is None:
            return None
        i = bisect_right(found[0], t) - 1
        return found[1][i] if i >= 0 else None

    def past_values(self, entity: str, t: float) -> set[str]:
        """Values that were true for `entity` before the one true at `t`."""
        found = self._truth.get(entity)
        if found is None:
            return set()
        i = bisect_right(found[0], t) - 1
        return set(found[1][: max(i, 0)]) - {found[1][i]} if i >= 0 else set()

    def final(self, entity: str) -> str | None:
        found = self._truth.get(entity)
        return found[1][-1] if found else None

    def true_values(self, entity: str) -> list[str]:
        """Every value `entity` takes in the scenario, in time order."""
        found = self._truth.get(entity)
        return list(found[1]) if found else []


def scenarios_from_arrow(table: pa.Table | pa.RecordBatch) -> list[Scenario]:
    return [Scenario(row) for row in table.to_pylist()]
