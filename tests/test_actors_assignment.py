"""The partition -> shard assignment of cluster mode (a pure function and a file)."""

from __future__ import annotations

from collections import Counter

import pytest

from vault_ray.actors.assignment import ClusterState, load_state, moves, plan, save_state
from vault_ray.backends.routing import shard_name


def names(n):
    return [shard_name(i) for i in range(n)]


@pytest.mark.parametrize("partitions,shards", [(16, 1), (16, 2), (16, 3), (8, 3), (5, 5), (4096, 7)])
def test_plan_spreads_partitions_evenly(partitions, shards):
    out = plan(None, names(shards), partitions)
    assert sorted(out) == list(range(partitions))
    loads = Counter(out.values())
    assert set(loads) == set(names(shards))
    assert max(loads.values()) - min(loads.values()) <= 1


def test_growing_moves_only_what_the_new_shard_needs():
    two = plan(None, names(2), 16)
    three = plan(two, names(3), 16)
    moved = moves(two, three)
    assert len(moved) == 5  # 16 // 3 rounded down: only the newcomer's share moves
    assert all(new == "vault-shard-2" for _, new in moved.values())


def test_shrinking_moves_only_the_departing_shards_partitions():
    three = plan(None, names(3), 16)
    two = plan(three, names(2), 16)
    moved = moves(three, two)
    assert {old for old, _ in moved.values()} == {"vault-shard-2"}
    assert sorted(moved) == sorted(p for p, s in three.items() if s == "vault-shard-2")


def test_round_trip_two_three_two_is_balanced():
    a = plan(None, names(2), 8)
    b = plan(a, names(3), 8)
    c = plan(b, names(2), 8)
    assert Counter(c.values()) == Counter({"vault-shard-0": 4, "vault-shard-1": 4})


def test_plan_needs_a_shard():
    with pytest.raises(ValueError):
        plan(None, [], 4)


def test_state_round_trips_through_the_store(tmp_path):
    state = ClusterState(epoch=3, shards=tuple(names(2)), assignment=plan(None, names(2), 4), control_version=7,
                         head={"pid": 1, "host": "h"})
    save_state(tmp_path, state)
    again = load_state(tmp_path)
    assert again == state
    assert again.partitions_of("vault-shard-1") == [2, 3]
    assert load_state(tmp_path / "missing") is None
