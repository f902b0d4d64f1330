"""The Ray Data evaluation job: scenarios Parquet in, per-(policy, scenario) counts out.

    ds = read_on_driver_node(files)                  # one row per scenario, read where the files are
           .repartition(target_num_rows_per_block=block_size)
          [.map_batches(EmbedWrites, compute=ActorPoolStrategy(size=k))]  # embedder="local" (embedding.py)
           .map_batches(replay_batch, batch_format="pyarrow")   # every policy, one vault per policy per batch

The driver streams the result blocks into `results.parquet` and a per-policy
`Aggregator` while the job runs, so memory stays flat from 10 to 1,000,000
scenarios. The same code runs on a laptop (`ray.init()`) and on a cluster
(`ray.init(address=...)`): nothing here assumes one machine.
"""

from __future__ import annotations

import inspect
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .config import EvalConfig, GeneratorConfig
from .embedding import VECTORS, EmbedWrites, registry_table_ref, vectors_by_write
from .metrics import RESULTS_SCHEMA, Aggregator, as_row
from .namespace import TableEmbedder, TenantEmbedder
from .policies import build_policies
from .replay import replay_block, text_vectors
from .scenario import scenarios_from_arrow


def replay_batch(batch: pa.Table, *, policies: Sequence[str], generator: dict[str, Any], evaluation: dict[str, Any],
                 seed: int, registry_vectors: Any = None) -> pa.Table:
    """Replay one batch of scenarios under every policy (a Ray Data `map_batches` UDF).

    A batch with a `vectors` column (the local model's, from `EmbedWrites`) replays with
    those, and `registry_vectors` (a dict, or the ObjectRef of one) answers for the
    registry descriptions; otherwise the texts are hashed here."""
    import faiss  # noqa: PLC0415  (imported by the vault anyway; see the note below)
    import ray  # noqa: PLC0415

    # FAISS's OpenMP threads fight the other Ray workers for the same cores: a flat
    # search over a few thousand vectors is faster on one thread.
    faiss.omp_set_num_threads(1)
    gen, ev = GeneratorConfig.from_dict(generator), EvalConfig(**evaluation)
    scenarios = scenarios_from_arrow(batch.drop_columns([VECTORS]) if VECTORS in batch.column_names else batch)
    precomputed = vectors_by_write(batch)
    embedder = None
    if precomputed is not None:
        if isinstance(registry_vectors, ray.ObjectRef):
            registry_vectors = ray.get(registry_vectors)
        if not registry_vectors:
            raise ValueError("a batch with precomputed vectors needs the registry descriptions' vectors")
        embedder = TenantEmbedder(TableEmbedder(registry_vectors, name=f"precomputed-{ev.embedder}"))
    vectors = text_vectors(scenarios, precomputed)
    node = _node_id()
    rows = []
    for spec in build_policies(policies, gen, ev):
        started = time.process_time()
        counts = replay_block(scenarios, spec, ev, seed=seed, vectors=vectors, embedder=embedder)
        cpu = (time.process_time() - started) / max(len(scenarios), 1)
        rows += [as_row(spec.name, s, c, cpu, node) for s, c in zip(scenarios, counts, strict=True)]
    return pa.Table.from_pylist(rows, schema=RESULTS_SCHEMA)


def _node_id() -> str:
    """The Ray node this task runs on (first 12 hex digits), "" outside Ray."""
    import ray  # noqa: PLC0415

    return ray.get_runtime_context().get_node_id()[:12] if ray.is_initialized() else ""


def evaluation_dataset(scenarios: str | Path | Sequence[str], policies: Sequence[str], *, generator: GeneratorConfig,
                       evaluation: EvalConfig, seed: int = 0):  # type: ignore[no-untyped-def]
    """The lazy Ray Dataset of result rows (nothing runs until it is consumed)."""
    import ray  # noqa: PLC0415  (Ray is optional for the core)

    paths = scenario_files(scenarios)
    rows = sum(pq.read_metadata(p).num_rows for p in paths)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    check_cpus(evaluation, cpus)
    block = block_size_for(rows, cpus, evaluation.block_size)
    ds = read_on_driver_node(paths)
    if rows > block:  # split big files so that every CPU gets batches; one block needs no extra stage
        ds = ds.repartition(target_num_rows_per_block=block)
    registry_vectors = None
    if evaluation.embedder == "local":
        # The registry descriptions embed in a throwaway task while the actor pool loads its
        # model; replays fetch the result by reference (see replay_batch).
        registry_vectors = registry_table_ref()
        extra = {"ray_remote_args_fn": _no_restarts} if _takes("ray_remote_args_fn") else {}
        with warnings.catch_warnings():  # ray_remote_args_fn: deprecated from Ray 2.60, see _no_restarts
            warnings.simplefilter("ignore", DeprecationWarning)
            ds = ds.map_batches(EmbedWrites, batch_size=block, batch_format="pyarrow", num_cpus=1,
                                compute=ray.data.ActorPoolStrategy(size=evaluation.embed_actors), **extra)
    return ds.map_batches(
        replay_batch, batch_size=block, batch_format="pyarrow", num_cpus=1,
        fn_kwargs={"policies": list(policies), "generator": generator.to_dict(),
                   "evaluation": evaluation.to_dict(), "seed": seed, "registry_vectors": registry_vectors},
    )


def read_on_driver_node(paths: Sequence[str]):  # type: ignore[no-untyped-def]
    """The scenario files as a Dataset, read by tasks pinned to the driver's node.

    The files are where the driver wrote or found them, maybe on its own disk only; every
    later stage runs anywhere (blocks travel through the object store), so a cluster needs
    no shared filesystem. `read_parquet` would list the files in a task that may run on
    another node (Ray 2.60 pins only its read tasks, and only for `local://` paths)."""
    import ray  # noqa: PLC0415

    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}
    files = ray.data.from_items([{"path": str(Path(p).resolve())} for p in paths], override_num_blocks=len(paths))
    return files.map_batches(_read_files, batch_size=1, batch_format="pyarrow", label_selector=here)


def _read_files(batch: pa.Table) -> pa.Table:
    return pa.concat_tables([pq.read_table(p) for p in batch.column("path").to_pylist()])


def _no_restarts() -> dict[str, Any]:
    """Embedding actors are not restarted: a lost one fails the job loudly. With Ray Data's
    default (restarts on), Ray 2.60 logs a spurious error for every actor pool
    (ray-project/ray#57733); map_batches has no named parameter for max_restarts."""
    return {"max_restarts": 0}


def _takes(parameter: str) -> bool:
    import ray  # noqa: PLC0415

    return parameter in inspect.signature(ray.data.Dataset.map_batches).parameters


def scenario_files(scenarios: str | Path | Sequence[str | Path]) -> list[str]:
    """The Parquet files of a file, a directory of files, or a list of either."""
    items = [scenarios] if isinstance(scenarios, str | Path) else list(scenarios)
    files: list[str] = []
    for item in map(Path, items):
        files += sorted(str(p) for p in item.glob("*.parquet")) if item.is_dir() else [str(item)]
    if not files:
        raise ValueError(f"no scenario Parquet files in {scenarios!s}")
    return files


def check_cpus(evaluation: EvalConfig, cpus: int) -> None:
    """Each embedding actor holds a CPU for as long as it lives: with no CPU left for the
    replays, the job would wait forever. Refuse that up front."""
    if evaluation.embedder == "local" and cpus < evaluation.embed_actors + 1:
        raise ValueError(f"--embedder local with {evaluation.embed_actors} embedding actor(s) needs at least "
                         f"{evaluation.embed_actors + 1} Ray CPUs (one per actor, one or more for the replays); "
                         f"Ray has {cpus}")


def block_size_for(scenarios: int, cpus: int, largest: int, smallest: int = 100) -> int:
    """Scenarios per batch: `largest` amortizes a vault's fixed costs best, but every CPU
    should get at least one batch."""
    return max(1, min(largest, max(smallest, math.ceil(scenarios / max(cpus, 1)))))


@dataclass
class EvalRun:
    """What one run measured; `summary` follows metrics.SUMMARY_SCHEMA."""

    summary: pa.Table
    accuracy_by_gap: dict[str, list[tuple[float, float, int]]]
    scenarios: int
    seconds: float
    policies: list[str]
    results_path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def scenarios_per_s(self) -> float:
        return self.scenarios / self.seconds if self.seconds > 0 else float("nan")


def run_eval(scenarios: str | Path | Sequence[str], policies: Sequence[str], *, generator: GeneratorConfig,
             evaluation: EvalConfig | None = None, seed: int = 0, results_path: str | Path | None = None,
             on_progress: Callable[[int], None] | None = None) -> EvalRun:
    """Run the job to completion, streaming result blocks to `results_path` (Parquet)
    and calling `on_progress(scenarios_done)` after each block."""
    evaluation = evaluation or EvalConfig()
    policies = list(policies)
    build_policies(policies, generator, evaluation)  # fail on a bad name before Ray starts work
    ds = evaluation_dataset(scenarios, policies, generator=generator, evaluation=evaluation, seed=seed)
    agg = Aggregator()
    writer = pq.ParquetWriter(str(results_path), RESULTS_SCHEMA) if results_path else None
    done_rows = 0
    start = time.perf_counter()
    try:
        for block in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            block = block.cast(RESULTS_SCHEMA)
            if writer is not None:
                writer.write_table(block)
            agg.add(block)
            done_rows += block.num_rows
            if on_progress is not None:
                on_progress(done_rows // len(policies))
    finally:
        if writer is not None:
            writer.close()
    seconds = time.perf_counter() - start
    return EvalRun(agg.summary(), agg.accuracy_by_gap(), done_rows // len(policies), seconds, policies,
                   str(results_path) if results_path else None)
