"""A vault's life as a script or notebook lives it: one dropped without close() lets go of the
store when it is collected (its writes kept), a closed one says so, and one sent to another
process is refused with a message that says what to do instead."""

from __future__ import annotations

import gc
import pickle

import pytest

from vault_ray import Fact, HashingEmbedder, StoreClosed, StoreLocked, Vault

EMB = HashingEmbedder()


def test_a_vault_dropped_without_close_lets_go_of_the_store(tmp_path):
    """The store stayed locked for the rest of the process: "already open in this process: use
    that Vault", of a Vault nothing referred to any more."""
    store = tmp_path / "s"
    Vault.open(store, embedder=EMB).agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    gc.collect()
    with Vault.open(store, embedder=EMB) as again:
        assert again.get("user.diet").values == ("vegan",)


def test_a_vault_that_is_still_referred_to_still_holds_the_store(tmp_path):
    store = tmp_path / "s"
    held = Vault.open(store, embedder=EMB)
    memory = held.agent("a")  # an agent's handle keeps its vault
    del held
    gc.collect()
    with pytest.raises(StoreLocked, match="already open in this process"):
        Vault.open(store, embedder=EMB)
    memory.add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    memory.vault.close()
    with pytest.raises(StoreClosed):
        memory.add_facts([Fact("user.pets", "The user has a cat", value="cat")])
    with Vault.open(store, embedder=EMB) as again:
        assert again.get("user.diet").values == ("vegan",) and again.get("user.pets").values == ()


def test_a_vault_cannot_be_pickled_and_says_what_to_do(tmp_path):
    with Vault.open(tmp_path / "s", embedder=EMB) as vault, pytest.raises(TypeError, match="Vault.connect"):
        pickle.dumps(vault)
