"""A bulk job stopped by Ctrl-C or SIGTERM says one line: a Ray Data dataset the signal cut in its
making (no executor yet) fails in its `__del__` when collected, and that failure is not printed as a
traceback after the line; any other object's `__del__` failure still is (tests/integration/test_job_signals.py
runs the jobs themselves)."""

from __future__ import annotations

import gc
import sys

import pytest

pytest.importorskip("ray.data")

from ray.data.dataset import MaterializedDataset  # noqa: E402

from vault_ray.cli.common import settle_ray_data  # noqa: E402


class _Fails:
    def __del__(self):
        raise ValueError("a failure of our own")


def _collected(make) -> list[str]:
    seen: list[str] = []
    before = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(f"{u.exc_type.__name__}: {u.exc_value}")
    try:
        settle_ray_data(wait_s=0)  # what a stopped job does; it wraps the hook in place now
        obj = make()
        del obj
        gc.collect()
    finally:
        sys.unraisablehook = before
    return seen


def test_a_dataset_cut_in_its_making_fails_quietly_after_a_stop():
    assert _collected(lambda: MaterializedDataset.__new__(MaterializedDataset)) == []


def test_another_objects_failure_is_still_reported():
    assert _collected(_Fails) == ["ValueError: a failure of our own"]
