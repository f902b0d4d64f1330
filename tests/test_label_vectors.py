"""The label vectors entity resolution compared survive a close and reopen
(STORE/label_vectors.npz): a reopened store does not embed its entities' phrases again
on the write path (storage/label_vectors.py)."""

from __future__ import annotations

import logging
import shutil

import numpy as np

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.storage import label_vectors


class Words(HashingEmbedder):
    """Hashing vectors under another name: the rule reasoner weighs label evidence with
    them as with a model's (it does not with hashing vectors, whose few label words collide)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "words-384"


class CountingEmbedder(Words):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(list(texts))
        return super().embed(texts)


FIRST = Fact("user.favourite_drink", "I drink green tea every morning", value="green tea")
NEAR = Fact("user.morning_drink", "The user drinks green tea every morning", value="green tea")


def embedded_for_a_near_label(path) -> list[str]:
    """Every text the model embedded while a reopened store wrote a fact near FIRST's entity."""
    embedder = CountingEmbedder()
    with Vault.open(path, embedder=embedder) as vault:
        embedder.calls.clear()
        decision = vault.agent("b").add_facts([NEAR]).decisions[0]
        assert decision.entity in (FIRST.entity, NEAR.entity)
        return [t for call in embedder.calls for t in call]


def test_a_reopened_store_compares_known_labels_without_embedding_them_again(tmp_path):
    with Vault.open(tmp_path / "s", embedder=Words()) as vault:
        vault.agent("a").add_facts([FIRST])
    assert (tmp_path / "s" / label_vectors.FILE).exists()
    kept = label_vectors.load(tmp_path / "s", "words-384", 384)
    assert kept is not None and any("favourite drink" in t for t in kept[0])

    (tmp_path / "s").rename(tmp_path / "copy")  # the same store twice: with and without its file
    shutil.copytree(tmp_path / "copy", tmp_path / "bare")
    (tmp_path / "bare" / label_vectors.FILE).unlink()
    # the known entity's label was compared (a candidate), but embedded again only without the file
    assert not [t for t in embedded_for_a_near_label(tmp_path / "copy") if "favourite drink" in t]
    assert [t for t in embedded_for_a_near_label(tmp_path / "bare") if "favourite drink" in t]


def test_a_damaged_or_foreign_file_is_ignored_and_replaced(tmp_path, caplog):
    with Vault.open(tmp_path / "s", embedder=Words()) as vault:
        vault.agent("a").add_facts([FIRST])
    path = tmp_path / "s" / label_vectors.FILE
    path.write_bytes(b"not a numpy archive")
    with caplog.at_level(logging.WARNING, logger="vault_ray"), Vault.open(tmp_path / "s", embedder=Words()) as vault:
        assert [d.op for d in vault.agent("b").add_facts([NEAR]).decisions]
    assert "ignoring the label vector cache" in caplog.text
    assert label_vectors.load(tmp_path / "s", "words-384", 384) is not None  # rewritten at close

    label_vectors.save(tmp_path / "s", "another-model", 384, ["x"], np.ones((1, 384), np.float32))
    assert label_vectors.load(tmp_path / "s", "words-384", 384) is None  # another embedder's vectors


def test_a_store_that_compared_nothing_writes_no_file(tmp_path):
    with Vault.open(tmp_path / "s", embedder=Words()) as vault:
        vault.agent("a").add_facts([FIRST], vectors=Words().embed([FIRST.text]), resolve=False)
    assert not (tmp_path / "s" / label_vectors.FILE).exists()
