"""An erasure cut short in cluster mode finishes on every shard (engine/erase.py, actors/erasures.py).

The owner shard erases the entity, then the client asks every shard to drop the source messages the
erased claims shared with claims of other entities. A kill between the two (of the client, or of
the owner shard's process) left those messages in the other shards' files for good: a shard that
finished the erasure at its start dropped them from its own partitions only. Now the owner keeps
its record until every shard dropped them, and the control actor finishes it: when the cluster is
up again, when Ray restarts the owner alone, or when a client joins. Checked in every file's bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import ray
from erasing import MESSAGE, SECRET, files_holding

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.actors import shutdown
from vault_ray.engine.erase import is_erased
from vault_ray.storage.layout import partition_of

P = 4
HEALTH = "user.health"
WAIT_S = 60.0

# A client killed after the owner shard answered, before the other shards were asked to drop.
CLIENT = textwrap.dedent("""
    import os, signal, sys
    from vault_ray import HashingEmbedder, Vault
    address, namespace, entity = sys.argv[1:4]
    vault = Vault.connect(address, namespace=namespace, embedder=HashingEmbedder())
    backend, erasing = vault._backend, []
    routed, erase = backend._routed, backend.erase
    def flagged(*args, **kwargs):
        erasing.append(entity)
        return erase(*args, **kwargs)
    def killed(partitions, call):  # erase's call to every shard, after the owner's (one partition)
        partitions = list(partitions)
        if erasing and len(partitions) == backend.partitions:
            os.kill(os.getpid(), signal.SIGKILL)
        return routed(partitions, call)
    backend.erase, backend._routed = flagged, killed
    vault.erase(entity, decided_by="officer", note="request 9")
    print("not killed", flush=True)
""")

# The owner shard's process killed after the retraction's commit, before the content leaves the files
# (the shard's own code, `Shard.erase`, run while the actors are down).
OWNER = textwrap.dedent("""
    import os, signal, sys
    from datetime import UTC, datetime
    import vault_ray.storage.erase as storage_erase
    from vault_ray.actors.shard import Shard
    store, name, partition, entity = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    shard = Shard(store, name)
    storage_erase.EraseSide.erase = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
    shard.erase(partition, entity, decided_by="officer", note="request 9", now=datetime.now(UTC))
    print("not killed", flush=True)
""")


def killed(code: str, *args: str) -> None:
    """Run `code` in a process of its own (the environment as it is now: Ray's session and token) and
    check that it was killed where it should be."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == -signal.SIGKILL, (proc.stdout, proc.stderr[-3000:])


def seed(vault) -> tuple[dict[str, str], list[str]]:
    """The erased entity's claims (one from MESSAGE), and a claim from MESSAGE in every other partition."""
    doc = vault.agent("doc")
    doc.add_facts([Fact(HEALTH, f"The user has {SECRET}", value=SECRET, source=MESSAGE),
                   Fact(HEALTH, f"The user has {SECRET} stage 2", value=SECRET + "2")], resolve=False)
    home = partition_of(HEALTH, P)
    others = [next(e for i in range(1000) if partition_of(e := f"user.place{i}", P) == p) for p in range(P) if p != home]
    doc.add_facts([Fact(e, f"The user lives in Lyonville ({e})", value="lyonville", source=MESSAGE) for e in others],
                  resolve=False)
    _, assignment = vault._backend.routes()
    owner = assignment[home]
    assert any(assignment[partition_of(e, P)] != owner for e in others)  # the message is at another shard too
    return assignment, others


def sources(vault, entities: list[str]) -> dict[str, str | None]:
    return {e: vault.get(e).active[0].source for e in entities}


def wait_until_dropped(vault, entities: list[str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while any(sources(vault, entities).values()):
        assert time.monotonic() < deadline, sources(vault, entities)
        time.sleep(0.2)


def check_erased_everywhere(vault, others: list[str]) -> None:
    history = vault.history(HEALTH)
    assert len(history) == 2 and all(is_erased(c) for c in history)
    assert all(c.meta["erased"]["by"] == "officer" and c.meta["erased"]["note"] == "request 9" for c in history)
    assert sources(vault, others) == dict.fromkeys(others)  # at every shard
    assert all(vault.get(e).active[0].value == "lyonville" for e in others)  # only the message left them
    assert all(vault.check().values())


def stopped_clean(namespace: str, store) -> None:
    shutdown(namespace=namespace)
    assert files_holding(store, SECRET.encode()) == []  # no shard's file holds it, nor any other file
    assert not list((store / "partitions").glob("*.erasing*"))  # nothing left to finish
    assert files_holding(store, b"lyonville")


@pytest.mark.parametrize("then", ["cluster restarted", "owner restarted", "client joins"])
def test_a_client_killed_between_the_owner_and_the_other_shards(cluster, gcs_address, tmp_path, then):
    vault = cluster(shards=2, partitions=P)
    namespace, store = vault.info().namespace, tmp_path / "store"
    assignment, others = seed(vault)
    killed(CLIENT, gcs_address, namespace, HEALTH)
    assert all(is_erased(c) for c in vault.history(HEALTH))  # the owner's part is done...
    far = [e for e in others if assignment[partition_of(e, P)] != assignment[partition_of(HEALTH, P)]]
    assert all(sources(vault, far).values())  # ...the other shard's is not
    if then == "cluster restarted":  # all actors down (the crash window is on disk), then up again
        shutdown(namespace=namespace)
        assert files_holding(store, SECRET.encode())
        vault = cluster(shards=2, partitions=P)  # the same store, a fresh namespace
        namespace = vault.info().namespace
    elif then == "owner restarted":  # Ray restarts the owner alone; it asks the control actor
        owner = ray.get_actor(assignment[partition_of(HEALTH, P)], namespace=namespace)
        ray.kill(owner, no_restart=False)
    else:
        Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder()).close()
    wait_until_dropped(vault, others)
    check_erased_everywhere(vault, others)
    stopped_clean(namespace, store)


def test_an_owner_shard_killed_between_the_two_steps(cluster, tmp_path):
    vault = cluster(shards=2, partitions=P)
    namespace, store = vault.info().namespace, tmp_path / "store"
    assignment, others = seed(vault)
    shutdown(namespace=namespace)
    home = partition_of(HEALTH, P)
    killed(OWNER, str(store), assignment[home], str(home), HEALTH)
    assert files_holding(store, SECRET.encode())  # the crash window: the content is still on disk
    vault = cluster(shards=2, partitions=P)  # up again: the owner finishes its part, the control actor the rest
    check_erased_everywhere(vault, others)
    events = vault.events(since="start", kinds=["claim_erased"]).events
    assert len(events) == 2  # once each, whoever finished it
    stopped_clean(vault.info().namespace, store)
