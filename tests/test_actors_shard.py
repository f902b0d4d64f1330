"""`Shard`, the plain class a shard actor wraps, without Ray: ownership, refusal,
hand-over of a partition and restart from the logs."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from vault_ray import HashingEmbedder, Policy
from vault_ray.actors.assignment import ClusterState, plan, save_state
from vault_ray.actors.shard import Shard
from vault_ray.backends.routing import NotOwner, shard_name
from vault_ray.engine.control import ControlFile
from vault_ray.engine.txn import WriteItem
from vault_ray.registry import EntityRegistry
from vault_ray.storage.layout import init_store, partition_of

EMB = HashingEmbedder(dim=32)
NOW = datetime(2026, 1, 1, tzinfo=UTC)
P = 4


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "store"
    init_store(root, partitions=P, dim=EMB.dim, embedder=EMB.name)
    ControlFile(root).save(Policy(), EntityRegistry.builtin())
    names = [shard_name(0), shard_name(1)]
    save_state(root, ClusterState(epoch=1, shards=tuple(names), assignment=plan(None, names, P), control_version=1))
    return root


def item(cid, entity, value, agent="a"):
    text = f"the value is {value}"
    return WriteItem(id=cid, entity=entity, text=text, value=value, kind="semantic", agent=agent, session=None,
                     observed_at=NOW, confidence=1.0, meta={}, vector=EMB.embed([text])[0], cardinality="one")


def write(shard, groups):
    (result,) = shard.write_many([groups], NOW)
    return result


def entity_in(partition):
    return next(f"user.k{i}" for i in range(1000) if partition_of(f"user.k{i}", P) == partition)


def test_a_shard_serves_its_partitions_and_refuses_the_others(store):
    shard = Shard(str(store), shard_name(0))
    assert shard.owned == {0, 1} and not shard.host.parts  # a partition's log is created by its first write
    mine, other = entity_in(0), entity_in(2)
    assert shard.views([mine])[mine].active == () and shard.history(mine) == []
    out = write(shard, {0: [item("c1", mine, "x")]})
    assert out[0][0].outcome == "active"
    with pytest.raises(NotOwner) as refused:
        write(shard, {0: [item("c2", mine, "y")], 2: [item("c3", other, "z")]})
    assert refused.value.partition == 2
    assert [c.id for c in shard.history(mine)] == ["c1"]  # the refused batch changed nothing
    assert sorted(shard.host.parts) == [0]
    shard.close_all()


def test_a_partition_moves_to_its_new_owner_with_its_data(store):
    first = Shard(str(store), shard_name(0))
    entity = entity_in(1)
    write(first, {1: [item("c1", entity, "x")]})
    first.assign(2, [0])  # gives partition 1 away: its log is closed
    assert 1 not in first.host.parts and first.owned == {0}
    with pytest.raises(NotOwner):
        first.views([entity])
    second = Shard(str(store), shard_name(1))
    second.assign(2, [1, 2, 3])
    with pytest.raises(NotOwner, match="previous owner"):  # step 1 only: not served yet
        second.views([entity])
    assert second.open_pending() == []  # step 2, once the previous owner let go
    assert [c.value for c in second.views([entity])[entity].active] == ["x"]
    assert second.check([1, 2, 3]) == {1: True, 2: True, 3: True}
    first.assign(1, [0, 1])  # an older epoch is ignored
    assert first.owned == {0}
    first.close_all()
    second.close_all()


def test_a_restarted_shard_reopens_its_partitions_from_the_logs(store):
    shard = Shard(str(store), shard_name(0))
    entity = entity_in(0)
    decision = write(shard, {0: [item("c1", entity, "x")]})[0][0]
    shard.close_all()  # what a crash leaves: committed logs, nothing in memory
    again = Shard(str(store), shard_name(0))
    assert again.check([0, 1]) == {0: True, 1: True}
    hits = again.search([0, 1], EMB.embed(["the value is x"]), 3)
    assert [c.id for _, c in hits[0]] == ["c1"]
    # the same claim id again is answered from the receipts, not applied twice
    assert write(again, {0: [item("c1", entity, "x")]})[0][0] == decision
    assert len(again.history(entity)) == 1
    again.close_all()


def test_policy_updates_apply_in_version_order(store):
    shard = Shard(str(store), shard_name(0))
    newer = Policy(default_strategy="authority")
    assert shard.set_control(5, newer, EntityRegistry.builtin()) == 5
    assert shard.set_control(4, Policy(), EntityRegistry.builtin()) == 5
    assert shard.policy.default_strategy == "authority"
    # status shows the policy's own version (GET /v1/policy's), apart from the control version
    assert (shard.info()["policy_version"], shard.info()["control_version"]) == (newer.version, 5)
    shard.close_all()


def test_search_merges_the_shards_partitions(store):
    shard = Shard(str(store), shard_name(0))
    for n, p in enumerate([0, 1]):
        write(shard, {p: [item(f"c{n}", entity_in(p), f"v{n}")]})
    hits = shard.search([0, 1], np.vstack([EMB.embed(["the value is v1"])]), 2)
    assert [c.id for _, c in hits[0]][0] == "c1" and len(hits[0]) == 2
    shard.close_all()


def test_a_shard_switching_embedders_freezes_writes_then_serves_the_new_vectors(store):
    """The shard's side of a cluster reindex (actors/shard_bulk.py), without Ray."""
    from vault_ray import StoreMismatch
    from vault_ray.storage.layout import set_embedder

    shard = Shard(str(store), shard_name(0))
    mine = entity_in(0)
    write(shard, {0: [item("c1", mine, "x")]})
    new = HashingEmbedder(dim=16)
    for p in (0, 1):
        work = shard.unstaged(p, new.name, new.dim)
        if work is not None and work.num_rows:
            shard.stage_vectors(p, new.name, new.dim, work.column("id").to_pylist(),
                                new.embed(work.column("text").to_pylist()))
    assert shard.staging_gaps(new.name, new.dim) == {0: 0}
    shard.freeze(60)
    with pytest.raises(NotOwner, match="another embedder"):
        write(shard, {0: [item("c2", mine, "y")]})
    assert shard.views([mine])[mine].values == ("x",)  # reads go on meanwhile
    set_embedder(store, new.name, new.dim)
    assert shard.reload()["dim"] == 16
    with pytest.raises(StoreMismatch, match="reindexed"):
        shard.write_many([{0: [item("c3", mine, "z")]}], NOW, EMB.name)
    (hits,) = shard.search([0, 1], new.embed(["the value is x"]), 1, embedder=new.name)
    assert hits[0][1].id == "c1" and hits[0][0] == pytest.approx(1.0, abs=1e-5)
    assert shard.write_many([{0: []}], NOW, new.name) == [{0: []}]  # a client on the new embedder is served


def test_a_shard_decides_with_its_own_cardinality_when_the_clients_is_older(store):
    """The client's cached policy said "one"; the shard's newer one says "many": the item
    takes the shard's (it failed with TypeError: a write item is a named tuple)."""
    shard = Shard(str(store), shard_name(0))
    mine = entity_in(0)
    shard.set_control(5, Policy().with_cardinality(mine, "many"), EntityRegistry.builtin())
    version, (result,) = shard.write([{0: [item("c1", mine, "x")]}], NOW, EMB.name)
    version, (again,) = shard.write([{0: [item("c2", mine, "y")]}], NOW, EMB.name)
    assert version == 5 and result[0][0].outcome == again[0][0].outcome == "active"
    assert sorted(c.value for c in shard.views([mine])[mine].active) == ["x", "y"]  # both kept: many
    shard.close_all()
