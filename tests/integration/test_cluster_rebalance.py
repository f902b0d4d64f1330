"""Rebalance from 2 to 3 shards and back while another client keeps writing:
nothing lost, nothing applied twice, every partition served by exactly one shard."""

from __future__ import annotations

import time
from collections import Counter

import pytest
import ray

from vault_ray import HashingEmbedder, InvalidInput, Vault
from vault_ray.actors import status

from .stream import Stream

PARTITIONS = 8


def test_two_to_three_to_two_under_a_write_stream(cluster):
    admin = cluster(shards=2, partitions=PARTITIONS)
    namespace = admin.info().namespace
    # the writer is a separate client: its routes go stale when the partitions move
    writer = Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder())
    with Stream.of(writer, entities=32) as stream:
        stream.wait_for(20)
        grown = admin._backend.rebalance(3)
        stream.wait_for(len(stream.acked) + 30)
        shrunk = admin._backend.rebalance(2)
        stream.wait_for(len(stream.acked) + 30)
    assert not stream.errors, stream.errors

    assert grown["shards"] == ["vault-shard-0", "vault-shard-1", "vault-shard-2"]
    assert len(grown["moved"]) == PARTITIONS // 3 and {new for _, new in grown["moved"].values()} == {"vault-shard-2"}
    assert shrunk["retired"] == ["vault-shard-2"]
    assert {old for old, _ in shrunk["moved"].values()} == {"vault-shard-2"}
    assert writer._backend.retries["reroute"] >= 1  # a shard refused a moved partition; the client re-routed

    # nothing lost, nothing applied twice
    ids = [c.id for c in admin.claims()]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(stream.acked)
    added = Counter(e.claim_id for e in admin.events() if e.kind == "claim_added")
    assert {cid: added[cid] for cid in stream.acked} == dict.fromkeys(stream.acked, 1)
    assert admin.check() == {p: True for p in range(PARTITIONS)}

    # every partition has one owner, which serves it; the retired shard is gone
    found = status(namespace=namespace)  # what `vault-ray status` shows
    assert found["epoch"] == 3 and sorted(found["assignment"]) == list(range(PARTITIONS))
    infos = found["shards"]
    owned = [p for info in infos for p in info["owned"]]
    assert sorted(owned) == list(range(PARTITIONS))
    assert all(set(info["open"]) <= set(info["owned"]) and not info["pending"] for info in infos)
    assert {info["epoch"] for info in infos} == {3}
    assert not any(info["torch_loaded"] for info in infos)  # embedding runs in the callers only
    deadline = time.monotonic() + 30
    while True:
        try:
            ray.get_actor("vault-shard-2", namespace=namespace)
        except ValueError:
            break
        assert time.monotonic() < deadline, "the retired shard is still running"
        time.sleep(0.2)
    writer.close()


def test_rebalance_rejects_impossible_shard_counts(cluster):
    vault = cluster(shards=1, partitions=2)
    for bad in (0, 3, "2"):
        with pytest.raises(InvalidInput, match=r"shards must be an integer in \[1, 2\]"):
            vault._backend.rebalance(bad)
    assert vault._backend.rebalance(2)["moved"] == {1: ("vault-shard-0", "vault-shard-1")}
