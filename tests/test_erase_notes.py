"""Erasure's loose ends (QA2 F5, F6): a free-text note cut from an erased message is erased with
it, and an erased claim's id stays taken, so a write under it is refused, never acknowledged
for nothing."""

from __future__ import annotations

import pytest
from erasing import files_holding

from vault_ray import Fact, HashingEmbedder, InvalidFact, Policy, Status, Vault
from vault_ray.engine.erase import ERASED, is_erased

TOWN = "Zebraquuxville"


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


def test_a_note_cut_from_an_erased_message_is_erased_with_it(store):
    with Vault.open(store, embedder=HashingEmbedder(), partitions=4, policy=Policy(unextracted_notes=True)) as vault:
        said = vault.agent("chat").add(f"I live in {TOWN}, and my cousin Bob lives in {TOWN} too")
        assert [d.entity for d in said.decisions] == ["user.location"]
        (note,) = said.unextracted
        assert note.note_id is not None and TOWN in vault.claim(note.note_id).text
        # a note from another message stays whole
        kept = vault.agent("chat").add("my neighbour's parrot sings opera at midnight, honestly").unextracted
        other = next(u.note_id for u in kept if u.note_id is not None)
        vault.erase("user.location", decided_by="dpo", note="request 4")
        gone = vault.claim(note.note_id)
        assert is_erased(gone) and gone.status == Status.RETRACTED and gone.text == ERASED
        assert gone.meta["erased"]["by"] == "dpo"
        assert [h for h in vault.search(TOWN, k=10) if TOWN in h.claim.text] == []
        assert all(TOWN not in c.text for c in vault.history("user.notes"))
        assert vault.claim(other).status == Status.ACTIVE and "parrot" in vault.claim(other).text
        assert any(e.kind == "claim_erased" and e.claim_id == note.note_id for e in vault.events(entity="user.notes"))
        assert all(vault.check().values())
    assert files_holding(store, TOWN.encode()) == [] and files_holding(store, b"parrot")
    with Vault.open(store, embedder=HashingEmbedder()) as vault:  # and it stays so
        assert is_erased(vault.claim(note.note_id)) and vault.claim(other).status == Status.ACTIVE


@pytest.mark.parametrize("fact", [
    Fact("user.diet", "The user is keto", "keto", claim_id="k1"),  # another fact under the id
    Fact("user.diet", "The user is vegan", "vegan", claim_id="k1"),  # the erased write again
    Fact("user.location", "The user lives in Paris", "Paris", claim_id="k1"),  # another entity (partition)
    Fact("user.likes", "The user likes chess", "chess", claim_id="k1"),
])
def test_an_erased_claims_id_stays_taken(store, fact):
    with Vault.open(store, embedder=HashingEmbedder(), partitions=4) as vault:
        mem = vault.agent("a")
        mem.add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="k1"))
        vault.erase("user.diet", decided_by="dpo")
        with pytest.raises(InvalidFact, match="erased") as err:
            mem.add_facts([Fact("user.job", "The user is a pilot", "pilot"), fact])
        assert err.value.claim_id == "k1" and err.value.index == 1
        with pytest.raises(InvalidFact, match="another agent"):  # another agent's write is refused as before
            vault.agent("b").add_facts(fact)
        # nothing changed: no claim was written, the erased one is still its skeleton
        assert vault.get(fact.entity).values == () and vault.get("user.job").values == ()
        assert is_erased(vault.claim("k1")) and [c.id for c in vault.claims()] == ["k1"]
        (fresh,) = mem.add_facts(Fact(fact.entity, fact.text, fact.value)).decisions  # without the id it is stored
        assert fresh.outcome == "active" and vault.get(fact.entity).values == (fact.value,)
