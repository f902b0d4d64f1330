"""An erasure in cluster mode, over plain `Shard`s (no Ray): the owner shard's part, then the other
shards' (their claims may keep the erased claims' source messages). A crash between the two, of the
client or of the owner, leaves a record that waits at the owner (`STORE/partitions/pNNNN.erasing`)
until every shard dropped the messages (`finish_waiting`, what the control actor runs)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest
from erasing import MESSAGE, SECRET, files_holding

import vault_ray.storage.erase as storage_erase
from vault_ray import HashingEmbedder, Policy, Vault
from vault_ray.actors.assignment import ClusterState, plan, save_state
from vault_ray.actors.erasures import finish_waiting
from vault_ray.actors.shard import Shard
from vault_ray.backends.routing import shard_name
from vault_ray.engine.control import ControlFile
from vault_ray.engine.erase import WAITING, Intents, is_erased
from vault_ray.engine.txn import WriteItem
from vault_ray.registry import EntityRegistry
from vault_ray.storage.layout import init_store, partition_of

EMB = HashingEmbedder(dim=32)
NOW = datetime(2026, 1, 1, tzinfo=UTC)
P = 4
NAMES = [shard_name(0), shard_name(1)]


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "store"
    init_store(root, partitions=P, dim=EMB.dim, embedder=EMB.name)
    ControlFile(root).save(Policy(), EntityRegistry.builtin())
    save_state(root, ClusterState(epoch=1, shards=tuple(NAMES), assignment=plan(None, NAMES, P), control_version=1))
    return root


def entity_in(partition, kind="user.k"):
    return next(f"{kind}{i}" for i in range(1000) if partition_of(f"{kind}{i}", P) == partition)


def write(shard, partition, cid, entity, value, source=None):
    text = f"the value is {value}"
    item = WriteItem(id=cid, entity=entity, text=text, value=value, kind="semantic", agent="doc", session=None,
                     observed_at=NOW, confidence=1.0, meta={}, vector=EMB.embed([text])[0], cardinality="one",
                     source=source)
    (result,) = shard.write_many([{partition: [item]}], NOW)
    assert not isinstance(result, Exception), result


def start(store):
    return {n: Shard(str(store), n) for n in NAMES}


def direct(shards):
    """`finish_waiting`'s call, made on plain shards (the control actor makes it with Ray)."""
    return lambda names, method, args_of: {n: getattr(shards[n], method)(*args_of(n)) for n in names}


def owned(shards):
    return {n: sorted(s.owned) for n, s in shards.items()}


def close(shards):
    for s in shards.values():
        s.close_all()


def seeded(store):
    """user.health-like entity at shard 0 (partition 0); the message it came from also gave a claim
    at shard 1 (partition 2) and one at shard 0's other partition (1)."""
    shards = start(store)
    health, far, near = entity_in(0, "user.health"), entity_in(2, "user.city"), entity_in(1, "user.diet")
    write(shards[NAMES[0]], 0, "h1", health, SECRET, source=MESSAGE)
    write(shards[NAMES[1]], 2, "c1", far, "lyonville", source=MESSAGE)
    write(shards[NAMES[0]], 1, "d1", near, "vegan", source=MESSAGE)
    return shards, health, far, near


def test_the_record_waits_until_every_shard_dropped_the_message(store):
    shards, health, far, near = seeded(store)
    done, sources = shards[NAMES[0]].erase(0, health, decided_by="ana", note="request 7", now=NOW)
    assert [r.claim.id for r in done] == ["h1"] and sources == [MESSAGE]
    assert shards[NAMES[0]].history(near)[0].source is None  # the owner's other partition: at once
    assert shards[NAMES[1]].history(far)[0].source == MESSAGE  # the other shard's: the front's call, not made
    (row,) = shards[NAMES[0]].erasures_waiting()[0]
    assert row["entity"] == health and row[WAITING] and row["sources"] == [MESSAGE] and row["by"] == "ana"
    assert shards[NAMES[1]].erasures_waiting() == {}
    close(shards)  # the client died before asking the other shard

    shards = start(store)  # a shard's start leaves the other shards' part alone...
    assert shards[NAMES[1]].history(far)[0].source == MESSAGE and shards[NAMES[0]].erasures_waiting()
    assert finish_waiting(owned(shards), direct(shards)) == [health]  # ...which the control actor finishes
    assert shards[NAMES[1]].history(far)[0].source is None
    assert shards[NAMES[1]].views([far])[far].active[0].value == "lyonville"  # only the message left it
    assert finish_waiting(owned(shards), direct(shards)) == []  # nothing left: nothing done again
    assert list((store / "partitions").glob("*.erasing*")) == []
    close(shards)
    assert files_holding(store, SECRET.encode()) == []


def test_an_owner_killed_between_the_steps_finishes_its_part_at_start(store, monkeypatch, caplog):
    shards, health, far, near = seeded(store)

    def killed(*args, **kwargs):
        raise SystemExit("killed before the content left the files")

    with monkeypatch.context() as m:
        m.setattr(storage_erase.EraseSide, "erase", killed)
        with pytest.raises(SystemExit):
            shards[NAMES[0]].erase(0, health, decided_by="ana", note="request 7", now=NOW)
    close(shards)
    (row,) = Intents(store, 0).pending()
    assert not row.get(WAITING) and files_holding(store, SECRET.encode())  # the crash window

    with caplog.at_level(logging.WARNING, logger="vault_ray"):
        shards = start(store)
    assert any("erasure of " + health in r.getMessage() and "interrupted" in r.getMessage() for r in caplog.records)
    assert all(is_erased(c) for c in shards[NAMES[0]].history(health))
    assert shards[NAMES[0]].history(near)[0].source is None
    assert shards[NAMES[1]].history(far)[0].source == MESSAGE  # not its partitions: left waiting
    assert [r["entity"] for r in Intents(store, 0).waiting()] == [health]
    assert finish_waiting(owned(shards), direct(shards)) == [health]
    assert shards[NAMES[1]].history(far)[0].source is None
    close(shards)
    assert files_holding(store, SECRET.encode()) == [] and not list((store / "partitions").glob("*.erasing*"))


def test_an_unreachable_shard_leaves_the_record_for_the_next_try(store):
    shards, health, far, _ = seeded(store)
    shards[NAMES[0]].erase(0, health, decided_by="ana", note="", now=NOW)
    calls = direct(shards)

    def down(names, method, args_of):
        if method == "drop_sources":
            raise ConnectionError("vault-shard-1 is down")
        return calls(names, method, args_of)

    with pytest.raises(ConnectionError):
        finish_waiting(owned(shards), down)
    assert Intents(store, 0).waiting() and shards[NAMES[1]].history(far)[0].source == MESSAGE
    assert finish_waiting(owned(shards), calls) == [health]  # once it is back
    close(shards)
    assert files_holding(store, SECRET.encode()) == []


def test_a_newer_erasure_of_the_entity_is_not_removed_with_the_old(store):
    intents = Intents(store, 0)
    intents.add({"entity": "user.health", "by": "ana", "note": "", "sources": ["m1"], WAITING: True})
    assert not intents.done("user.health", [])  # its message was not dropped everywhere yet
    intents.add({"entity": "user.health", "by": "bob", "note": "", "sources": ["m1", "m2"]})  # under way again
    assert not intents.done("user.health", ["m1"]) and intents.pending()[0]["by"] == "bob"
    intents.add({"entity": "user.health", "by": "bob", "note": "", "sources": ["m1", "m2"], WAITING: True})
    assert not intents.done("user.health", ["m1"])
    assert intents.done("user.health", ["m1", "m2", "m3"]) and intents.pending() == []
    assert not intents.done("user.health", ["m1", "m2"])  # again: nothing to remove


def test_embedded_open_of_a_store_a_cluster_left_waiting_finishes_it(store):
    shards, health, far, _ = seeded(store)
    shards[NAMES[0]].erase(0, health, decided_by="ana", note="request 7", now=NOW)
    close(shards)  # the cluster stopped before the other shard dropped the message
    with Vault.open(store, embedder=EMB) as vault:  # the host holds every partition here
        assert vault.get(far).active[0].source is None
        assert all(is_erased(c) for c in vault.history(health))
    assert files_holding(store, SECRET.encode()) == [] and not list((store / "partitions").glob("*.erasing*"))


def test_an_erasure_with_no_source_message_leaves_nothing_waiting(store):
    shards = start(store)
    entity = entity_in(3, "user.allergy")
    write(shards[NAMES[1]], 3, "a1", entity, SECRET)  # no source message: nothing for the other shards
    done, sources = shards[NAMES[1]].erase(3, entity, decided_by="ana", note="", now=NOW)
    assert len(done) == 1 and sources == []
    assert shards[NAMES[1]].erasures_waiting() == {} and not list((store / "partitions").glob("*.erasing*"))
    assert finish_waiting(owned(shards), direct(shards)) == []
    close(shards)
    assert files_holding(store, SECRET.encode()) == []
