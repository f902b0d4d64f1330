"""The local model is loaded once per process: every `LocalEmbedder` of it shares the weights,
and a second store's registry descriptions are not embedded again."""

from __future__ import annotations

import threading
import uuid

import numpy as np

from vault_ray import LocalEmbedder
from vault_ray.registry import EntityRegistry, RegistryEntry

TEXTS = ["I moved to Lisbon in March", "My budget is $5k a month", "user timezone"]


def test_embedders_of_one_model_share_it_and_give_the_same_vectors(local_embedder):
    other = LocalEmbedder(threads=1)
    assert other.model is local_embedder.model and other.vector_space is local_embedder.vector_space
    assert np.allclose(other.embed(TEXTS), local_embedder.embed(TEXTS), atol=1e-6)


class Counting(LocalEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return super().embed(texts)


def test_a_second_registry_of_the_same_entries_embeds_no_description_again():
    def registry(boat: str) -> EntityRegistry:  # entries no other test embedded before in this process
        made = EntityRegistry.builtin()
        made.add(RegistryEntry("user.boat", f"the user's boat, {boat}", examples=("I sail a small boat",)))
        return made

    first, second = Counting(), Counting()
    query = first.embed(["I live in Berlin now"])[0]
    boat = uuid.uuid4().hex
    found = registry(boat).relevant(query, first.embed)
    assert found and first.calls[-1] == len(registry(boat).entries)  # the descriptions, embedded once
    again = registry(boat).relevant(query, second.embed)  # another store's registry, the same entries
    assert [e.key for e in again] == [e.key for e in found] and second.calls == []
    registry(boat + "x").relevant(query, second.embed)  # another entry: its descriptions embedded
    assert second.calls == [len(registry(boat).entries)]


def test_threads_embedding_at_once_through_embedders_of_one_model_get_their_own_vectors(local_embedder):
    expected = {text: local_embedder.embed([text])[0] for text in TEXTS}
    got: dict[str, list[np.ndarray]] = {text: [] for text in TEXTS}
    errors: list[BaseException] = []

    def run(text: str) -> None:
        try:
            embedder = LocalEmbedder()
            for _ in range(5):
                got[text].append(embedder.embed([text, "padding for a packed call"])[0])
        except BaseException as exc:  # noqa: BLE001  (reported by the assertion below)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(text,)) for text in TEXTS]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for text in TEXTS:
        assert len(got[text]) == 5 and all(np.allclose(v, expected[text], atol=1e-5) for v in got[text])
