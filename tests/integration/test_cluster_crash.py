"""Recovery: shard actors killed mid-stream (by Ray, and by SIGKILL to the worker
process) and the control actor killed too; the client retries, and afterwards
every acknowledged write is present exactly once, each partition's vector index
holds exactly its log's active claims, and resending a write returns the decision
it got the first time."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections import Counter

import ray

from vault_ray import Fact

from .stream import Stream


def shard(vault, index: int):
    return ray.get_actor(f"vault-shard-{index}", namespace=vault.info().namespace)


def wait_until_busy(actor, limit_s: float = 60.0) -> None:
    """Return once the shard is inside the write call (it answers `info` meanwhile:
    its calls run on threads; a fixed sleep misses that moment on a loaded machine)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if ray.get(actor.info.remote())["writing"]:
            return
        time.sleep(0.01)
    raise AssertionError("the shard never got busy with the batch")


def pids(vault) -> dict[str, int]:
    return {info["name"]: info["pid"] for info in vault._backend.shard_infos()}


def test_killed_actors_lose_no_acknowledged_write(cluster):
    vault = cluster(shards=2, partitions=4)
    before = pids(vault)
    with Stream.of(vault) as stream:
        stream.wait_for(15)
        ray.kill(shard(vault, 0), no_restart=False)  # Ray kills the worker; max_restarts brings it back
        stream.wait_for(len(stream.acked) + 15)
        os.kill(before["vault-shard-1"], signal.SIGKILL)  # the process dies without any goodbye
        stream.wait_for(len(stream.acked) + 15)
        ray.kill(vault._backend.control_actor, no_restart=False)  # the control actor too
        stream.wait_for(len(stream.acked) + 15)
    assert not stream.errors, stream.errors
    after = pids(vault)
    assert after["vault-shard-0"] != before["vault-shard-0"] and after["vault-shard-1"] != before["vault-shard-1"]

    claims = vault.claims()
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids)), "a claim was stored twice"
    assert set(ids) == set(stream.acked), "an acknowledged write is missing (or an unacknowledged one applied)"
    added = Counter(e.claim_id for e in vault.events() if e.kind == "claim_added")
    assert {cid: added[cid] for cid in stream.acked} == dict.fromkeys(stream.acked, 1)
    assert vault.check() == {p: True for p in range(4)}
    # every entity still has exactly one current value: the restarts broke no invariant
    for e in range(8):
        assert len(vault.get(f"user.k{e}").active) == 1
    # a client that retries writes it sent before the crashes gets the original decisions
    for cid, (who, fact, decision) in list(stream.acked.items())[:12]:
        (again,) = stream.writers[who].add_facts([fact], resolve=False).decisions  # the very same claim id
        assert again == decision, cid
    assert len(vault.claims()) == len(claims)  # applied once


def test_a_batch_in_flight_when_its_shard_dies_is_applied_exactly_once(cluster):
    vault = cluster(shards=1, partitions=4)
    facts = [Fact(f"user.k{i % 50}", f"the value is v{i}", f"v{i}", claim_id=uuid.uuid4().hex) for i in range(3000)]
    pid = pids(vault)["vault-shard-0"]  # asked first: the shard answers nothing else while it writes
    result: list = []
    vectors = vault.embedder.embed([f.text for f in facts])  # so the call reaches the shard at once
    writer = threading.Thread(
        target=lambda: result.append(vault.agent("a").add_facts(facts, vectors=vectors, resolve=False)))
    writer.start()
    wait_until_busy(shard(vault, 0))  # the shard is deciding the batch now
    os.kill(pid, signal.SIGKILL)
    writer.join(timeout=120)
    (answer,) = result
    assert vault._backend.retries["restart"] >= 1  # the client saw the crash and asked again
    assert [d.claim_id for d in answer] == [f.claim_id for f in facts]
    ids = [c.id for c in vault.claims()]
    assert sorted(ids) == sorted(f.claim_id for f in facts)
    assert vault.check() == {p: True for p in range(4)}
