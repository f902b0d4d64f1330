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
out.

The session-Ray integration tests are dealt the same way into two lanes, each a pytest process with a
Ray of its own (VAULT_RAY_SESSION_LANE=K, VAULT_RAY_SESSION_LANE_SHARES: `keep_session`): those tests
mostly wait (on actors, servers, CLI processes), so two at a time keep the cores busier."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

WEIGHTS = Path(__file__).with_name("lane_weights.json")
SESSION_WEIGHTS = Path(__file__).parent / "integration" / "lane_weights.json"
SERVE = "<the Serve modules>"
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


def lane_of_run(var: str = "VAULT_RAY_LANE") -> tuple[int, list[float]] | None:
    """(the lane's index, the shares) this run was given (-1: the modules that start processes), None without
    `var` (VAULT_RAY_LANE, or VAULT_RAY_SESSION_LANE for the session-Ray integration tests); the shares come
    from `var`_SHARES."""
    lane = os.environ.get(var, "").strip()
    if not lane:
        return None
    if lane == PROCESSES and var == "VAULT_RAY_LANE":
        return -1, []
    raw = os.environ.get(f"{var}_SHARES", "").strip()
    shares = [float(s) for s in raw.split(",")] if raw else [1.0, 1.0]
    k = int(lane) - 1 if lane.isdigit() else -1
    if not 0 <= k < len(shares) or min(shares) <= 0:
        raise ValueError(f"{var}={lane!r} with {var}_SHARES={raw!r}: no such lane")
    return k, shares


def _deselect(items: list, config, dropped: list) -> None:  # type: ignore[no-untyped-def]
    if dropped:
        gone = {id(item) for item in dropped}
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if id(item) not in gone]


def keep_session(items: list, config) -> None:  # type: ignore[no-untyped-def]
    """VAULT_RAY_SESSION_LANE=K: deselect, in place, the session-Ray integration tests (those using the
    `ray_session` fixture) of the modules other session lanes run; the other tests are left to `-m`.
    The modules using Serve (`serve_port`) go to one lane together, so one Serve starts. Dealt by
    SESSION_WEIGHTS (wall seconds a module took in a whole run, about)."""
    chosen = lane_of_run("VAULT_RAY_SESSION_LANE")
    if chosen is None:
        return
    k, shares = chosen
    root = Path(str(config.rootpath))
    session = [item for item in items if "ray_session" in getattr(item, "fixturenames", ())]
    module = {id(item): Path(str(item.fspath)).relative_to(root).as_posix() for item in session}
    serving = {module[id(item)] for item in session if "serve_port" in item.fixturenames}
    dealt = deal_session(sorted(set(module.values())), serving, shares, json.loads(SESSION_WEIGHTS.read_text()))
    _deselect(items, config, [item for item in session if module[id(item)] not in dealt[k]])


def deal_session(modules: list[str], serving: set[str], shares: list[float], measured: dict[str, float]) -> list[set[str]]:
    """The session-Ray modules dealt into len(shares) lanes, each whole, the Serve modules (`serving`) to one lane."""
    unit = {m: (SERVE if m in serving else m) for m in modules}
    weights: dict[str, float] = {}
    for m, u in unit.items():
        weights[u] = weights.get(u, 0.0) + measured.get(m, DEFAULT_S)
    dealt = lanes(sorted(set(unit.values())), shares, weights)
    return [{m for m in modules if unit[m] in lane} for lane in dealt]


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
    _deselect(items, config, [item for item in items if module[id(item)] not in mine])
