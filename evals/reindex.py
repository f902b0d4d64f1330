"""Reindex: move a store to another embedder (docs/jobs.md).

1. **Read.** Every claim, active and historical, that has no vector staged for the
   new embedder yet: `id` and `text`, from each partition's owner. An erased claim
   (`Vault.erase`: its text is the marker "[erased]") is not embedded: it is staged
   with zeros, as the erasure left its old vector.
2. **Embed.** The distinct texts go through a Ray Data `map_batches` actor pool
   (text_vectors.py): each distinct text is embedded once.
3. **Stage.** The vectors are written beside the claims' own, through the owners
   (`staged_vectors`; storage/bulk_log.py), batch by batch. Reads and searches keep
   using the old vectors meanwhile.
4. **Switch**, in one crash-safe step: check every claim has a staged vector, then
   name the new embedder and dimension in vault.json (atomic rewrite: the commit
   point); each partition adopts its staged vectors and rebuilds its index as it
   reopens (also on the next open, had the process died in between). In cluster
   mode the control actor does this with writes frozen for the moment it takes;
   claims written during the run are embedded here first (the catch-up).

A run that dies before step 4 leaves the store on the old embedder with some vectors
staged; the next run stages only the rest.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vault_ray import StoreError
from vault_ray.backends import BulkBackend
from vault_ray.errors import NothingToReindex

from .embedder_spec import EmbedderFactory, EmbedderSpec, as_factory, describe
from .job_store import JobStore, ensure_ray, open_store, store_embedder
from .text_vectors import NODE, SECONDS, TEXT, embed_texts, vectors_of

CATCH_UP_ROUNDS = 5
Progress = Callable[[int, int], None]
"""on_progress(claims with a vector so far, claims in the store)."""


@dataclass(frozen=True)
class ReindexResult:
    store: str
    old_embedder: str
    old_dim: int
    embedder: str
    dim: int
    claims: int
    """Claims in the store, every one now with a vector of the new embedder."""
    embedded: int
    """Claims given a vector by this run, catch-up included (the rest, but for `erased`, were staged by an
    interrupted earlier run)."""
    texts: int
    """Distinct texts embedded by the actor pool."""
    caught_up: int
    """Claims written while the job ran, embedded just before the switch (cluster mode)."""
    seconds: float
    embed_seconds: float
    """From the first text sent to the pool to the last vector staged."""
    model_seconds: float = 0.0
    """Of which the model's own `encode` calls, summed over the actors."""
    nodes: dict[str, int] = field(default_factory=dict)
    """Ray node -> texts it embedded."""
    erased: int = 0
    """Erased claims (no content to embed) this run staged with zeros."""

    @property
    def staged_before(self) -> int:
        """Claims whose new vector an interrupted earlier run staged (this one found them done)."""
        return max(0, self.claims - self.embedded - self.erased)

    @property
    def claims_per_s(self) -> float:
        return self.embedded / self.embed_seconds if self.embed_seconds > 0 else float("nan")


def reindex(embedder: str | EmbedderSpec | EmbedderFactory, *, store: str | Path | None = None,
            address: str | None = None, namespace: str = "vault", dim: int | None = None, batch_size: int = 256,
            actors: int = 1, cpus_per_actor: int | None = None, on_progress: Progress | None = None) -> ReindexResult:
    """Re-embed every claim of a store with `embedder` ('local', 'hashing', 'openai:MODEL',
    an EmbedderSpec or a factory) and switch the store to it.

    `store`: an embedded store's directory (no other process may hold it); the Ray Data
    stages run on the Ray cluster at `address`, or on a Ray started here. Without
    `store`: the cluster-mode store in `namespace` at `address`."""
    factory = as_factory(embedder, dim)
    if isinstance(factory, EmbedderSpec):
        factory.check()  # a missing key or package is one error now, not an actor's traceback later
    name, new_dim = describe(factory)
    started = time.perf_counter()
    if store_embedder(store, address=address, namespace=namespace) == (name, new_dim):  # before any job starts
        raise NothingToReindex(f"the store already uses {name!r} ({new_dim} dimensions): nothing to reindex")
    with open_store(store, address=address, namespace=namespace, job="this reindex") as target:
        info = target.info
        if (name, new_dim) == (info.embedder, info.dim):
            raise NothingToReindex(f"the store already uses {name!r} ({new_dim} dimensions): nothing to reindex")
        ensure_ray(address, store=store, namespace=namespace)
        run = _Run(target, name, new_dim, on_progress)
        backend = target.backend
        backend.drop_staged((name, new_dim))  # vectors of an abandoned reindex to yet another embedder
        run.embed(factory, batch_size=batch_size, actors=actors, cpus_per_actor=cpus_per_actor)
        caught_up = run.switch(factory)
    return ReindexResult(info.store, info.embedder, info.dim, name, new_dim, run.total, run.embedded, run.texts,
                         caught_up, time.perf_counter() - started, run.embed_seconds, run.model_seconds, dict(run.nodes),
                         run.erased)


class _Run:
    def __init__(self, target: JobStore, name: str, dim: int, on_progress: Progress | None) -> None:
        self.backend: BulkBackend = target.backend
        self.partitions = target.info.partitions
        self.name, self.dim = name, dim
        self.on_progress = on_progress
        self.total = sum(c["claims"] for c in self.backend.row_counts().values())
        self.done = 0
        self.embedded = 0
        self.erased = 0
        self.texts = 0
        self.embed_seconds = 0.0
        self.model_seconds = 0.0
        self.nodes: Counter[str] = Counter()

    def worklist(self, partitions: range | list[int] | None = None) -> pa.Table:
        """(partition, id, text) of the claims with no staged vector yet; erased claims
        (no content to embed) get zeros staged here and are not in it."""
        tables = []
        for p in partitions if partitions is not None else range(self.partitions):
            found = self.backend.unstaged(p, self.name, self.dim)
            if found is not None and "erased" in found.column_names:
                erased = found.filter(pc.fill_null(found.column("erased"), False))
                if erased.num_rows:
                    ids = erased.column("id").to_pylist()
                    self.backend.stage_vectors(p, self.name, self.dim, ids, np.zeros((len(ids), self.dim), np.float32))
                    self.erased += len(ids)
                found = found.filter(pc.invert(pc.fill_null(found.column("erased"), False))).select(["id", TEXT])
            if found is not None and found.num_rows:
                tables.append(found.append_column("partition", pa.array([p] * found.num_rows, pa.int64())))
        if not tables:
            return pa.table({"id": pa.array([], pa.string()), TEXT: pa.array([], pa.string()),
                             "partition": pa.array([], pa.int64())})
        return pa.concat_tables(tables)

    def embed(self, factory: EmbedderFactory, *, batch_size: int, actors: int, cpus_per_actor: int | None) -> None:
        work = self.worklist()
        self.done = self.total - work.num_rows
        self._progress()
        if not work.num_rows:
            return
        claims_of = _claims_by_text(work)
        self.texts = len(claims_of)
        started = time.perf_counter()
        for batch in embed_texts(list(claims_of), factory, batch_size=batch_size, actors=actors,
                                 cpus_per_actor=cpus_per_actor):
            self._stage(batch.column(TEXT).to_pylist(), vectors_of(batch), claims_of)
            self.nodes.update(batch.column(NODE).to_pylist())
            self.model_seconds += float(pc.sum(batch.column(SECONDS)).as_py() or 0.0)
        self.embed_seconds = time.perf_counter() - started

    def _stage(self, texts: list[str], vectors: np.ndarray, claims_of: dict[str, list[tuple[int, str]]]) -> None:
        by_p: dict[int, tuple[list[str], list[np.ndarray]]] = {}
        for text, vector in zip(texts, vectors, strict=True):
            for p, cid in claims_of[text]:
                ids, vecs = by_p.setdefault(p, ([], []))
                ids.append(cid)
                vecs.append(vector)
        for p, (ids, vecs) in sorted(by_p.items()):
            self.done += self.backend.stage_vectors(p, self.name, self.dim, ids, np.stack(vecs))
            self.embedded += len(ids)
        self._progress()

    def switch(self, factory: EmbedderFactory) -> int:
        """Commit; claims written meanwhile (cluster mode) are embedded here and the
        commit tried again. Returns how many claims that took."""
        caught_up = 0
        local = None
        for attempt in range(CATCH_UP_ROUNDS):
            # after the first catch-up, writes stay frozen while the (few) claims written
            # meanwhile are embedded: each round found new ones while clients wrote
            gaps = self.backend.commit_embedder(self.name, self.dim, hold=attempt > 0)
            if not gaps:
                return caught_up
            work = self.worklist(sorted(gaps))
            self.total += work.num_rows
            claims_of = _claims_by_text(work)
            local = local or factory()
            texts = list(claims_of)
            self._stage(texts, np.asarray(local.embed(texts), np.float32), claims_of)
            caught_up += work.num_rows
        raise StoreError(f"claims kept arriving faster than the reindex could embed them ({CATCH_UP_ROUNDS} rounds); "
                         "the store stays on its old embedder: run the reindex again (it resumes)")

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)


def _claims_by_text(work: pa.Table) -> dict[str, list[tuple[int, str]]]:
    """Each distinct text -> the (partition, claim id) pairs that carry it."""
    out: dict[str, list[tuple[int, str]]] = {}
    order = pc.sort_indices(work, [(TEXT, "ascending")])
    for row in work.take(order).to_pylist():
        out.setdefault(row[TEXT], []).append((row["partition"], row["id"]))
    return out
