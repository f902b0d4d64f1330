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


def test_a_forked_childs_copy_of_a_vault_does_not_let_go_of_the_parents_store(tmp_path):
    """The child's copy shares the parent's lock: closing it when collected there would unlock the store
    while the parent still writes to it."""
    import os
    import warnings

    from vault_ray.storage.layout import check_not_held

    store = tmp_path / "s"
    vault = Vault.open(store, embedder=EMB)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork() of a process with threads (the flush thread)
        pid = os.fork()
    if pid == 0:  # the child: drops its copy, which is collected there
        del vault
        gc.collect()
        os._exit(0)
    os.waitpid(pid, 0)
    with pytest.raises(StoreLocked):  # still the parent's
        check_not_held(store)
    vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    vault.close()
    with Vault.open(store, embedder=EMB) as again:
        assert again.get("user.diet").values == ("vegan",)
