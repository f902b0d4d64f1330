"""tests/lanes.py, which deals the in-process test modules into `make test`'s lanes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lanes import DEFAULT_S, WEIGHTS, lane_of_run, lanes, starts_processes


def test_every_module_runs_in_exactly_one_lane_and_the_lanes_keep_their_shares():
    weights = json.loads(WEIGHTS.read_text())
    modules = [*sorted(weights), "tests/test_not_measured_yet.py"]
    dealt = lanes(modules, [72.0, 28.0], weights)
    assert sorted(m for lane in dealt for m in lane) == sorted(modules)
    assert not dealt[0] & dealt[1] and "tests/test_not_measured_yet.py" in dealt[0] | dealt[1]
    load = [sum(weights.get(m, DEFAULT_S) for m in lane) for lane in dealt]
    assert abs(load[0] / sum(load) - 0.72) < 0.02, load
    assert max(weights.values()) < 0.1 * sum(load)  # no module so large that a share cannot be kept


def test_the_lane_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("VAULT_RAY_LANE", raising=False)
    assert lane_of_run() is None
    monkeypatch.setenv("VAULT_RAY_LANE", "2")
    monkeypatch.setenv("VAULT_RAY_LANE_SHARES", "72,28")
    assert lane_of_run() == (1, [72.0, 28.0])
    monkeypatch.setenv("VAULT_RAY_LANE", "processes")
    assert lane_of_run() == (-1, [])
    monkeypatch.setenv("VAULT_RAY_LANE", "3")
    with pytest.raises(ValueError, match="no such lane"):
        lane_of_run()


def test_the_modules_that_start_a_ray_or_a_server_are_not_niced():
    root = Path(__file__).resolve().parents[1]
    for module in ("tests/test_served_store_jobs.py", "tests/test_ray_unreachable.py", "tests/test_serve_held_store.py",
                   "tests/test_jobs_ray_start.py", "tests/test_restore_unfinished.py"):
        assert starts_processes(root, module), module
    assert not starts_processes(root, "tests/test_lanes.py") and not starts_processes(root, "tests/test_tables_schema.py")
