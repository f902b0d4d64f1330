"""Erasure in cluster mode (`Vault.connect` over shard actors): the owner shard erases the entity,
every shard drops the source messages its claims shared; a restarted shard keeps the erasure (it
rebuilds from its log) and, once the actors stop, no file of the store holds the erased content."""

from __future__ import annotations

import pytest
import ray
from erasing import OTHER, SECRET, files_holding, seed

from vault_ray import HashingEmbedder, InvalidInput, Status, Vault
from vault_ray.actors import shutdown
from vault_ray.engine.erase import ERASED, is_erased


def test_erase_in_cluster_mode(cluster, tmp_path):
    vault = cluster(shards=2, partitions=4)
    ids = seed(vault)
    namespace = vault.info().namespace
    with pytest.raises(InvalidInput):
        vault.erase("user.health", decided_by="", note="")
    assert any(SECRET in c.text for c in vault.history("user.health"))  # nothing changed
    done = vault.erase("user.health", decided_by="officer", note="request 9")
    assert len(done) == 3 and all(r.claim.text == ERASED and r.claim.status == Status.RETRACTED for r in done)
    assert vault.get("user.health").active == () and not vault.disputes(status="open")
    assert all(h.claim.entity != "user.health" for h in vault.search(f"the user has {SECRET}", k=10))
    assert vault.get("user.city").active[0].source is None  # the shared message, at whichever shard holds it
    assert vault.erase("user.never", decided_by="officer") == []
    for i in range(2):  # a restarted shard rebuilds from its log: the erasure stays
        ray.kill(ray.get_actor(f"vault-shard-{i}", namespace=namespace), no_restart=False)
    with Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder()) as again:
        assert all(is_erased(c) for c in again.history("user.health"))
        assert again.get("user.diet").active[0].value == "vegan"
        assert all(r.already for r in again.erase("user.health", decided_by="officer"))
        assert SECRET not in str(again.explain(ids["first"].claim_id))
        assert all(again.check().values())
    shutdown(namespace=namespace)
    store = tmp_path / "store"
    assert files_holding(store, SECRET.encode()) == [] and files_holding(store, OTHER.encode()) == []
    assert files_holding(store, b"vegan")
