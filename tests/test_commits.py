"""Group commit: concurrent callers share one commit, each gets its own results in
arrival order, and a failure reaches every caller of its group (nothing was
acknowledged). In embedded mode, threads writing at once form such groups."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.engine.commits import GroupCommit

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_callers_waiting_behind_a_group_are_committed_together_in_arrival_order():
    release = threading.Event()
    groups: list[list[str]] = []

    def run(calls, nows):
        groups.append(list(calls))
        if len(groups) == 1:
            release.wait(10)  # the first group is slow: the others queue behind it
        return [f"done {c}" for c in calls]

    commits = GroupCommit(run)
    results: dict[str, list[str]] = {}
    first = threading.Thread(target=lambda: results.update(first=commits.submit(["a"], NOW)))
    first.start()
    while not groups:
        threading.Event().wait(0.01)
    others = [threading.Thread(target=lambda n=n: results.update({n: commits.submit([f"{n}1", f"{n}2"], NOW)}))
              for n in "bcd"]
    for t in others:
        t.start()
    while sum(1 for t in others if t.is_alive()) and len(commits._queue) < 3:
        threading.Event().wait(0.01)
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert groups[0] == ["a"] and sorted(groups[1]) == ["b1", "b2", "c1", "c2", "d1", "d2"]
    assert len(groups) == 2 and commits.groups == 2 and commits.calls == 4
    for n in "bcd":  # each caller gets its own results, its calls in order and contiguous in the group
        assert results[n] == [f"done {n}1", f"done {n}2"]
        at = groups[1].index(f"{n}1")
        assert groups[1][at + 1] == f"{n}2"


def test_a_failed_group_fails_each_of_its_callers_and_the_next_group_runs():
    calls = []

    def run(batch, nows):
        calls.append(batch)
        if "boom" in batch:
            raise OSError("disk full")
        return batch

    commits = GroupCommit(run)
    with pytest.raises(OSError, match="disk full"):
        commits.submit(["boom"], NOW)
    assert commits.submit(["fine"], NOW) == ["fine"]


def test_threads_writing_at_once_in_embedded_mode_all_land(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        decided: dict[str, str] = {}
        lock = threading.Lock()

        def writer(w: int) -> None:
            mem = vault.agent(f"w{w}")
            for i in range(25):
                d = mem.add_facts([Fact(f"user.w{w}_{i}", f"writer {w} fact {i}", f"v{i}")], resolve=False).decisions[0]
                with lock:
                    decided[d.claim_id] = d.entity

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(decided) == 150
        assert {c.id: c.entity for c in vault.claims()} == decided
        assert vault.check() == {p: True for p in range(4)}
        commits = vault._backend._commits
        assert commits.calls == 150 and commits.groups <= 150
