"""A stopped bulk job waits for the Ray Data threads of the run it cut short, and stops them: a
parked block prefetcher (whose thread holds it, so nothing else ever stops it) must not hold the
job's exit for the whole wait."""

from __future__ import annotations

import threading

import pytest


def test_a_parked_prefetcher_is_stopped_not_waited_for():
    pytest.importorskip("ray.data")
    from ray.data._internal.block_batching.util import WaitBlockPrefetcher

    from vault_ray.cli.common import settle_ray_data

    prefetcher = WaitBlockPrefetcher()  # its thread parks until blocks come or it is stopped
    thread = prefetcher._thread
    assert thread.is_alive() and thread.name == "Prefetcher"
    done = threading.Event()
    settler = threading.Thread(target=lambda: (settle_ray_data(wait_s=60), done.set()), daemon=True)
    settler.start()
    thread.join(30)
    assert not thread.is_alive(), "the prefetcher's thread still parked after 30 s"
    assert done.wait(30), "settle_ray_data still waiting after its threads ended"


def test_the_programs_own_threads_are_left_alone():
    pytest.importorskip("ray.data")
    from vault_ray.cli.common import settle_ray_data

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="worker", daemon=True)
    other.start()
    try:
        settle_ray_data(wait_s=0.2)
        assert other.is_alive() and not stop.is_set()
    finally:
        stop.set()
