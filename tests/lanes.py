"""`make test` runs the in-process tests in three pytest processes, side by side with the
integration tests (see the Makefile): VAULT_RAY_LANE=processes keeps the modules that start
other processes (a Ray, a server, a CLI in a subprocess: `starts_processes`), which run with the
own-Ray integration tests, barely niced (a Ray started at nice 10 on a busy machine timed out: Ray
gives its node 30 s); VAULT_RAY_LANE=K (1-based) keeps lane K of the others, which run niced.
VAULT_RAY_LANE_SHARES ("60,40") sets each lane's share of the work, equal shares if unset.

The modules are dealt out by their measured cost (lane_weights.json: CPU seconds a module
took in a whole run, about), the costliest first, each to the lane furthest below its share
(longest-processing-time first): the lanes finish together whatever the share. A module
missing from the file (a new one) weighs DEFAULT_S. Without VAULT_RAY_LANE nothing is left
out."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

WEIGHTS = Path(__file__).with_name("lane_weights.json")
DEFAULT_S = 2.0
PROCESSES = "processes"
STARTS = re.compile(r"subprocess|Popen|ray\.init|ensure_ray")
"""What in a module's source says it starts other processes."""
STARTS_RAY_IN_PROCESS = {"tests/test_restore_unfinished.py"}
"""Modules seen to start a Ray from the test's own process (a CLI job under CliRunner) with none of STARTS."""


def starts_processes(root: Path, module: str) -> bool:
    return module in STARTS_RAY_IN_PROCESS or bool(STARTS.search((root / module).read_text()))


def lanes(modules: list[str], shares: list[float], weights: dict[str, float]) -> list[set[str]]:
    """`modules` dealt into len(shares) lanes, each module whole."""
    dealt: list[set[str]] = [set() for _ in shares]
    load = [0.0] * len(shares)
    for module in sorted(modules, key=lambda m: (-weights.get(m, DEFAULT_S), m)):
        k = min(range(len(shares)), key=lambda i: ((load[i] + weights.get(module, DEFAULT_S)) / shares[i], i))
        dealt[k].add(module)
        load[k] += weights.get(module, DEFAULT_S)
    return dealt


def lane_of_run() -> tuple[int, list[float]] | None:
    """(the lane's index, the shares) this run was given (-1: the modules that start processes), None without
    VAULT_RAY_LANE."""
    lane = os.environ.get("VAULT_RAY_LANE", "").strip()
    if not lane:
        return None
    if lane == PROCESSES:
        return -1, []
    raw = os.environ.get("VAULT_RAY_LANE_SHARES", "").strip()
    shares = [float(s) for s in raw.split(",")] if raw else [1.0, 1.0]
    k = int(lane) - 1
    if not 0 <= k < len(shares) or min(shares) <= 0:
        raise ValueError(f"VAULT_RAY_LANE={lane!r} with VAULT_RAY_LANE_SHARES={raw!r}: no such lane")
    return k, shares


def keep(items: list, config) -> None:  # type: ignore[no-untyped-def]
    """Deselect, in place, the collected items of the modules other lanes run."""
    chosen = lane_of_run()
    if chosen is None:
        return
    k, shares = chosen
    root = Path(str(config.rootpath))
    module = {id(item): Path(str(item.fspath)).relative_to(root).as_posix() for item in items}
    starting = {m for m in set(module.values()) if starts_processes(root, m)}
    others = sorted(set(module.values()) - starting)
    mine = starting if k < 0 else lanes(others, shares, json.loads(WEIGHTS.read_text()))[k]
    dropped = [item for item in items if module[id(item)] not in mine]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if module[id(item)] in mine]
