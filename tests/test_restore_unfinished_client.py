"""A cluster client that joined before a restore began learns of the unfinished restore from
any change the store refuses, not only from a refused write: a resolution or a rule run (refused
by a shard), a retraction, an erasure, a policy or registry edit (refused after asking the control
actor). Once it knows, its writes are refused before their front work (nothing embedded or
extracted), and a restore finished meanwhile lets it write at once (backends/cluster_bulk.py,
`_answer`). In-process: the client reaches real shards through tests/in_process_cluster.py."""

from __future__ import annotations

import warnings

import pytest
import test_restore_unfinished as unfinished
from in_process_cluster import InProcessCluster
from test_restore_unfinished import refused_for_the_restore

from vault_ray import Fact, InvalidEntity, InvalidFact, Policy, RegistryEntry, RestoreUnfinished
from vault_ray.storage.restoring import mark_restoring, read_restoring

exported, half = unfinished.exported, unfinished.half  # the store whose restore stopped after 2 of 4 partitions
PORTO = Fact("user.city", "The user lives in Porto", "porto")

CHANGES = {
    "resolve_dispute": lambda v, claim, dispute: v.resolve_dispute(dispute.id, None, decided_by="user", keep_both=True),
    "apply_rules": lambda v, claim, dispute: v.apply_rules(),
    "retract": lambda v, claim, dispute: v.retract(claim.id, decided_by="ops"),
    "forget": lambda v, claim, dispute: v.forget(claim.entity, decided_by="ops"),
    "erase": lambda v, claim, dispute: v.erase(claim.entity, decided_by="ops"),
    "set_strategy": lambda v, claim, dispute: v.set_strategy("user.location", "recency"),
    "set_policy": lambda v, claim, dispute: v.set_policy(Policy(max_open_disputes=5)),
    "register": lambda v, claim, dispute: v.register(RegistryEntry("user.project.codename")),
}


@pytest.fixture
def joined(half, monkeypatch):
    """A client of the half-restored store that joined before the restore began (it was told
    nothing), then the restore's record written by the control actor, which tells the shards."""
    store, export = half
    marker = read_restoring(store)
    mark_restoring(store, None)
    cluster = InProcessCluster(store)
    cluster.patch(monkeypatch)
    embedder = unfinished.CountingEmbedder()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: nothing to tell yet
        vault = cluster.vault(embedder)
    cluster.control.mark_restoring(marker)  # another client's import begins
    yield vault, cluster, export, marker
    vault.close()
    cluster.close()


@pytest.mark.parametrize("change", CHANGES)
def test_a_refused_change_teaches_the_client_and_its_next_writes_are_refused_before_embedding(joined, change):
    vault, cluster, export, marker = joined
    claim = vault.claims()[0]
    dispute = vault.disputes(None)[0]
    with pytest.raises(RestoreUnfinished) as refused:
        CHANGES[change](vault, claim, dispute)
    refused_for_the_restore(refused.value, export)
    embedder = vault.embedder
    embedder.texts.clear()
    ops = vault.agent("ops")
    for write in (lambda: ops.add_facts([PORTO]), lambda: ops.add("I moved to Lisbon"),
                  lambda: vault.agent("crm").add_facts(Fact("user.pet", "The user has a cat", "cat"), resolve=False)):
        with pytest.raises(RestoreUnfinished, match="--namespace in-process"):
            write()
    assert embedder.texts == []  # refused before its front work: the client knew
    with pytest.raises(InvalidEntity):  # the writer's own mistake is still what it hears first
        ops.add_facts([Fact("User City!", "The user lives in Porto", "porto")])
    with pytest.raises(InvalidFact, match="confidence"):
        ops.add_facts([Fact("user.city", "The user lives in Porto", "porto", confidence=2)])
    cluster.control.mark_restoring(None)  # finished by the other client: this one writes again at once
    assert [d.value for d in ops.add_facts([PORTO]).decisions] == ["porto"] and embedder.texts
