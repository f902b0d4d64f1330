"""Texts to vectors on Ray Data: the `map_batches` actor pool the bulk jobs share.

    ray.data.from_arrow(blocks of distinct texts)
        .map_batches(EmbedTexts, compute=ActorPoolStrategy(size=actors), num_cpus=cpus_per_actor)

Each actor builds the embedder once, when it starts (for the local model: torch and
the weights, about 6 s), and gives its torch `cpus_per_actor` threads, so the pool
uses the CPUs Ray gave it and no more. Rows come back with a `vector` column and the Ray node
that embedded them.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from vault_ray import ClusterError, InvalidInput, LocalEmbedder

from .embedder_spec import EmbedderFactory
from .job import CPU_HINT, _no_restarts, _takes, free_cpus

TEXT, VECTOR, NODE, SECONDS = "text", "vector", "node", "seconds"
"""Columns out of the pool; `seconds` is each row's share of its batch's time in the model."""
POOL_START_S = 600
"""How long the pool may take to start all its actors (each loads its model) before any text is
sent: without the wait, the first actor ready takes every batch of a small job while the others
still load, and a pool spread over nodes runs on one."""


class EmbedTexts:
    """A Ray Data callable class: `text` column in; `vector` (list<float32>), `node` and
    `seconds` (the row's share of the model call) out."""

    def __init__(self, factory: EmbedderFactory, threads: int = 1) -> None:
        self.embedder = factory()
        self.node = _node_id()
        if isinstance(self.embedder, LocalEmbedder):
            # load the model now: the actor counts as ready only once it can embed
            self.embedder.model  # noqa: B018
            if threads:
                import torch  # noqa: PLC0415  (the model loaded it)

                torch.set_num_threads(threads)

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = batch.column(TEXT).to_pylist()
        started = time.perf_counter()
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        share = (time.perf_counter() - started) / max(len(texts), 1)
        flat = pa.array(vectors.reshape(-1), pa.float32())
        column = pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1]) if len(texts) else pa.array([], pa.list_(pa.float32()))
        return pa.table({TEXT: texts, VECTOR: column.cast(pa.list_(pa.float32())), NODE: [self.node] * len(texts),
                         SECONDS: [share] * len(texts)})


def _node_id() -> str:
    import ray  # noqa: PLC0415

    return ray.get_runtime_context().get_node_id()[:12] if ray.is_initialized() else ""


def check_pool(actors: int, cpus_per_actor: int | None, cpus: int, where: str) -> None:
    """--actors and --cpus-per-actor against the `cpus` Ray has in all (`where`: "this machine has", "the
    Ray cluster at ADDR has"), said before the job starts with what to give instead: a pool larger than
    the whole of Ray can never start (`pool_size` checks the CPUs free once a stage starts)."""
    need = actors * (cpus_per_actor or 1)
    if need <= cpus:
        return
    if actors > cpus:
        instead = f"give --actors {cpus} or fewer" + (" of 1 CPU each" if (cpus_per_actor or 1) > 1 else "")
    else:
        instead = (f"give --cpus-per-actor {cpus // actors} or less, or leave it out (Ray's CPUs are then shared "
                   f"out among the actors)")
    sized = f"{actors} embedding actor(s) of {cpus_per_actor} CPU(s)" if cpus_per_actor else f"{actors} embedding actors"
    raise InvalidInput(f"{sized} need {need} Ray CPUs and {where} {cpus}: {instead}; nothing was changed")


def pool_size(actors: int, cpus_per_actor: int | None) -> tuple[int, int]:
    """(actors, CPUs each): the CPUs free on Ray, shared out, and refused at once if too few (an actor
    asking for CPUs other actors hold would wait for them with no word, for ever)."""
    if actors < 1:
        raise InvalidInput(f"actors must be at least 1, got {actors}")
    free, total = free_cpus(actors * (cpus_per_actor or 1))
    held = f"; {CPU_HINT}" if free < total else ""
    if free < 1:
        raise ClusterError(f"no Ray CPU is free for the embedding actors: Ray has {total}, all held{held}")
    each = cpus_per_actor or max(1, free // actors)
    if actors * each > free:
        raise InvalidInput(f"{actors} embedding actor(s) of {each} CPU(s) need {actors * each} Ray CPUs; "
                           f"Ray has {free} free of {total}{held}")
    return actors, each


def embed_texts(texts: list[str], factory: EmbedderFactory, *, batch_size: int = 256, actors: int = 1,
                cpus_per_actor: int | None = None) -> Iterator[pa.Table]:
    """Stream (text, vector, node) tables for `texts` (each embedded once) from the pool."""
    import ray  # noqa: PLC0415

    if not texts:
        return
    actors, each = pool_size(actors, cpus_per_actor)
    # blocks of at most one model call, and at least two per actor (a small job still spreads)
    per_block = max(1, min(batch_size, math.ceil(len(texts) / (actors * 2))))
    blocks = [pa.table({TEXT: texts[i:i + per_block]}) for i in range(0, len(texts), per_block)]
    extra = {"ray_remote_args_fn": _no_restarts} if _takes("ray_remote_args_fn") else {}
    with warnings.catch_warnings():  # ray_remote_args_fn: deprecated from Ray 2.60 (see job._no_restarts)
        warnings.simplefilter("ignore", DeprecationWarning)
        ds = ray.data.from_arrow(blocks).map_batches(
            EmbedTexts, fn_constructor_kwargs={"factory": factory, "threads": each}, batch_size=batch_size,
            batch_format="pyarrow", num_cpus=each, compute=ray.data.ActorPoolStrategy(size=actors), **extra)
    ds.context.wait_for_min_actors_s = POOL_START_S  # this Dataset's copy of the context only
    try:
        yield from ds.iter_batches(batch_size=None, batch_format="pyarrow")
    except ray.exceptions.GetTimeoutError as err:
        raise ClusterError(f"the {actors} embedding actor(s) of {each} CPU(s) did not all start within {POOL_START_S} s "
                           "(each loads its embedder first): see `ray status` for the cluster's free CPUs; "
                           "nothing was changed") from err


def vectors_of(batch: pa.Table) -> np.ndarray:
    """The `vector` column of an output batch as one (rows, dim) float32 array."""
    column = batch.column(VECTOR).combine_chunks()
    if not len(column):
        return np.zeros((0, 0), np.float32)
    return np.asarray(column.flatten().to_numpy(zero_copy_only=False), np.float32).reshape(len(column), -1)
