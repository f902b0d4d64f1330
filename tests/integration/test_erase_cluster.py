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


def test_notes_of_an_erased_message_and_erased_ids_in_cluster_mode(cluster, tmp_path):
    """QA2 F5 and F6 across shards: the note cut from the erased message is erased at whichever
    shard holds `user.notes`, and an erased claim's id is refused, on its own entity's shard and
    on another's, with nothing stored."""
    from vault_ray import Fact, InvalidFact, Policy

    vault = cluster(shards=2, partitions=4, policy=Policy(unextracted_notes=True))
    town = "Zebraquuxville"
    said = vault.agent("chat").add(f"I live in {town}, and my cousin Bob lives in {town} too")
    (note,) = said.unextracted
    mem = vault.agent("a")
    mem.add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="k1"))
    vault.erase("user.location", decided_by="dpo")
    vault.erase("user.diet", decided_by="dpo")
    assert is_erased(vault.claim(note.note_id)) and not [h for h in vault.search(town, k=10) if town in h.claim.text]
    for fact in (Fact("user.diet", "The user is keto", "keto", claim_id="k1"),
                 Fact("user.location", "The user lives in Paris", "Paris", claim_id="k1"),
                 Fact("user.likes", "The user likes chess", "chess", claim_id="k1")):
        with pytest.raises(InvalidFact, match="erased"):
            mem.add_facts(fact, resolve=False)
        assert vault.get(fact.entity).values == ()
    namespace = vault.info().namespace
    shutdown(namespace=namespace)
    assert files_holding(tmp_path / "store", town.encode()) == []
