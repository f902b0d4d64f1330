"""Real text through the local model: the `map_batches` actor-pool stage of the eval job.

With `EvalConfig.embedder = "local"`, the job runs

    read_parquet -> map_batches(EmbedWrites, concurrency=embed_actors)   # actors: torch + the model
                 -> map_batches(replay_batch)                             # tasks: DuckDB + FAISS

`EmbedWrites` loads all-MiniLM-L6-v2 once per actor, embeds each distinct write text
once (an LRU table across batches: templated and repeated assertions share texts) and
adds a `vectors` column, one list of unit vectors per scenario in write order. The
replay then uses those precomputed vectors (salted per tenant, namespace.py) for every
policy, and `registry_table_ref` gives it the registry descriptions' vectors, so replays
never import torch: torch's and FAISS's OpenMP runtimes do not share a process well.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray import EntityRegistry, LocalEmbedder
from vault_ray.reasoners.labels import label_texts

from .catalog import CATALOG

VECTORS = "vectors"
"""The column EmbedWrites adds: list<list<float32>>, per scenario one vector per write."""


class EmbedWrites:
    """A Ray Data callable class: each actor holds one model (loaded on its first batch)."""

    def __init__(self, *, batch_size: int = 256, cache_size: int = 100_000, threads: int = 1) -> None:
        self.embedder = LocalEmbedder(batch_size=batch_size)
        self.cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.cache_size = cache_size
        self.threads = threads
        self.embedded = 0
        """Texts that went through the model (the rest came from the cache)."""

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = [[w["text"] for w in writes] for writes in batch.column("writes").to_pylist()]
        vectors = self.vectors({t for row in texts for t in row})
        column = pa.array([[vectors[t] for t in row] for row in texts], type=pa.list_(pa.list_(pa.float32())))
        if VECTORS in batch.column_names:
            batch = batch.drop_columns([VECTORS])
        return batch.append_column(VECTORS, column)

    def vectors(self, texts: set[str]) -> dict[str, np.ndarray]:
        missing = sorted(t for t in texts if t not in self.cache)
        if missing:
            self._limit_threads()
            for text, vec in zip(missing, self.embedder.embed(missing), strict=True):
                self.cache[text] = vec
            self.embedded += len(missing)
        found = {}
        for text in texts:
            self.cache.move_to_end(text)
            found[text] = self.cache[text]
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return found

    def _limit_threads(self) -> None:
        """One actor per Ray CPU: torch's default (every core) would oversubscribe them."""
        if self.threads:
            import torch  # noqa: PLC0415  (loaded by the model anyway)

            if torch.get_num_threads() != self.threads:
                torch.set_num_threads(self.threads)


def vectors_by_write(batch: pa.Table) -> list[np.ndarray] | None:
    """Per scenario row, its writes' vectors as one (writes, dim) array; None if the batch
    carries no `vectors` column (the replay then hashes the texts itself)."""
    if VECTORS not in batch.column_names:
        return None
    return [np.asarray(rows, dtype=np.float32) for rows in batch.column(VECTORS).to_pylist()]


def registry_texts(registry: EntityRegistry | None = None) -> list[str]:
    """Every text a replay embeds without the model at hand: the registry's descriptions
    (relevance) and the words of every label and entity of the catalog (the rule
    reasoner's label evidence when it disambiguates a drifted label)."""
    registry = registry or EntityRegistry.builtin()
    labels = [key for spec in CATALOG for key in (spec.key, *spec.aliases, *spec.novel)]
    return list(dict.fromkeys(registry.description_texts() + label_texts(labels, list(registry.entries.values()))))


def embed_texts(texts: list[str]) -> dict[str, list[float]]:
    """The local model's vectors for `texts` (run as a throwaway Ray task: see registry_table)."""
    vectors = EmbedWrites().vectors(set(texts))
    return {t: vectors[t].tolist() for t in texts}


def registry_table_ref(registry: EntityRegistry | None = None) -> Any:
    """The ObjectRef of the registry descriptions' vectors (`embed_texts`), computed in a Ray
    worker that exits afterwards (`max_calls=1`: no torch is left behind in a worker that
    could then run replays)."""
    import ray  # noqa: PLC0415

    # num_cpus=0: a one-off model load that must not wait behind the actor pool and the
    # replays for a free CPU (the replays wait for its result).
    task: Any = ray.remote(num_cpus=0, max_calls=1)(embed_texts)
    return task.remote(registry_texts(registry))
