"""A bulk write pauses Python's cyclic garbage collector while it runs, and always leaves
it as it found it (vault_ray/engine/gcpause.py)."""

from __future__ import annotations

import gc
import threading

import pytest

from vault_ray import Fact, WriteRequest
from vault_ray.engine import gcpause
from vault_ray.engine.partition import Partition
from vault_ray.errors import VaultError


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def facts(n: int, prefix: str = "user.fact") -> list[Fact]:
    return [Fact(f"{prefix}{i}", f"fact number {i} about the user") for i in range(n)]


def test_a_bulk_write_runs_with_the_collector_paused_and_turns_it_back_on(vault, monkeypatch):
    seen = []
    commit = Partition.commit

    def watching(part, txn):  # the real commit, noting whether the collector runs meanwhile
        seen.append(gc.isenabled())
        return commit(part, txn)

    monkeypatch.setattr(Partition, "commit", watching)
    vault.agent("bulk").add_facts(facts(gcpause.BULK), resolve=False)
    assert seen and not any(seen)
    assert gc.isenabled()
    seen.clear()
    vault.agent("one").add_facts(facts(3, "user.small"), resolve=False)  # a small write never touches it
    assert seen and all(seen)


def test_the_collector_comes_back_when_a_bulk_write_fails(vault):
    bad = [*facts(gcpause.BULK), Fact("Not An Entity", "x")]
    with pytest.raises(VaultError):
        vault.agent("bulk").add_facts(bad)
    assert gc.isenabled()
    results = vault.write_batch([WriteRequest("a", facts=facts(gcpause.BULK)), WriteRequest("b", facts=[Fact("BAD", "x")])])
    assert isinstance(results[1], VaultError) and not isinstance(results[0], VaultError)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    with gcpause.paused(gcpause.BULK):
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_pauses_restore_the_collector_once_the_last_ends():
    first_in, release = threading.Event(), threading.Event()

    def long_write():
        with gcpause.paused(10_000):
            first_in.set()
            release.wait(10)

    t = threading.Thread(target=long_write)
    t.start()
    assert first_in.wait(10)
    with gcpause.paused(10_000):
        assert not gc.isenabled()
    assert not gc.isenabled()  # the first write is still running
    release.set()
    t.join(10)
    assert gc.isenabled()


def test_small_writes_and_turns_count_as_expected():
    assert gcpause.fact_count([WriteRequest("a", facts=facts(3)), WriteRequest("b", messages="hi"),
                               WriteRequest("c", facts=Fact("user.x", "y"))]) == 5
    with gcpause.paused(gcpause.BULK - 1):
        assert gc.isenabled()
