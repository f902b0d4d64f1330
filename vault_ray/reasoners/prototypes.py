"""Classify a sentence to the registry entry whose prototype statements it is nearest
to. The vectors come from the injected embedder; each entry's examples are embedded
once per (embedder, examples) and cached."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..embedders import Embedder
from ..registry import RegistryEntry


@dataclass(frozen=True)
class Nearest:
    entity: str
    similarity: float
    margin: float
    """How far the best entity is ahead of the next one."""


class PrototypeClassifier:
    """`nearest(sentences, entries)`: per sentence, the entry with the most similar
    example (ties and near-ties are reported through `margin`)."""

    def __init__(self, embedder: Embedder, *, threshold: float | None = None, margin: float = 0.05) -> None:
        self.embedder = embedder
        # the local model rates paraphrases ~0.45-0.8; hashing vectors only share words, so less
        self.threshold = threshold if threshold is not None else (0.3 if embedder.name.startswith("hashing") else 0.45)
        self.margin = margin
        self._cache: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
        self._lock = threading.Lock()

    def _examples(self, entry: RegistryEntry) -> np.ndarray:
        key = (entry.key, tuple(entry.examples))
        with self._lock:
            found = self._cache.get(key)
        if found is None:
            found = self.embedder.embed([_masked(x) for x in entry.examples])
            with self._lock:
                if len(self._cache) > 4096:
                    self._cache.clear()
                self._cache[key] = found
        return found

    def nearest(self, sentences: Sequence[str], entries: Sequence[RegistryEntry]) -> list[Nearest | None]:
        usable = [e for e in entries if e.examples]
        if not sentences or not usable:
            return [None] * len(sentences)
        vectors = self.embedder.embed([_masked(s) for s in sentences])
        best = np.stack([(self._examples(e) @ vectors.T).max(axis=0) for e in usable])  # entries x sentences
        out: list[Nearest | None] = []
        for col in range(best.shape[1]):
            order = np.argsort(-best[:, col])
            top = float(best[order[0], col])
            second = float(best[order[1], col]) if len(order) > 1 else 0.0
            if top < self.threshold or top - second < self.margin:
                out.append(None)
            else:
                out.append(Nearest(usable[order[0]].key, top, top - second))
        return out


def _masked(text: str) -> str:
    """Lowercase with the subject normalized, so 'I am' and "I'm" embed alike; a bracketed
    example value ("I drive a [Tesla]") loses its brackets."""
    return re.sub(r"\bi am\b", "i'm", text.strip().lower().replace("[", "").replace("]", ""))
