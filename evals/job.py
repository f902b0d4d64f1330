"""The Ray Data evaluation job: scenarios Parquet in, per-(policy, scenario) counts out.

    ds = read_on_driver_node(files)                  # one row per scenario, read where the files are
           .repartition(target_num_rows_per_block=block_size)
          [.map_batches(EmbedWrites, compute=ActorPoolStrategy(size=k))]  # embedder="local" (embedding.py)
           .map_batches(replay_batch, batch_format="pyarrow")   # every policy, one vault per policy per batch

The driver streams the result blocks into `results.parquet`, a per-policy
`Aggregator` and the per-unit counts of the bootstrap (uncertainty.py) while the job
runs, so memory stays flat from 10 to 1,000,000 scenarios. The `learned` reference
first takes a light pass over the held-in half (weights.agreement, one `map_batches`).
The same code runs on a laptop (`ray.init()`) and on a cluster (`ray.init(address=...)`):
nothing here assumes one machine.
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
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vault_ray import Policy

from .config import EvalConfig, GeneratorConfig
from .embedding import VECTORS, EmbedWrites, registry_table_ref, vectors_by_write
from .metrics import COUNT_COLUMNS, PATTERN_RESULTS_SCHEMA, RESULTS_SCHEMA, Aggregator, as_row
from .namespace import TableEmbedder, TenantEmbedder
from .policies import build_policies, check_names
from .replay import replay_entities, text_vectors
from .scenario import Scenario, scenarios_from_arrow
from .uncertainty import UnitCounts, comparisons, gap_intervals, policy_intervals
from .weights import HELD, LearnedWeights, agreement, entity_pattern, learned_policy, scenario_half


def replay_batch(batch: pa.Table, *, policies: Sequence[str], generator: dict[str, Any], evaluation: dict[str, Any],
                 seed: int, registry_vectors: Any = None, custom: dict[str, dict[str, Any]] | None = None,
                 scopes: dict[str, str] | None = None, by_pattern: bool = False) -> pa.Table:
    """Replay one batch of scenarios under every policy (a Ray Data `map_batches` UDF).

    A batch with a `vectors` column (the local model's, from `EmbedWrites`) replays with
    those, and `registry_vectors` (a dict, or the ObjectRef of one) answers for the
    registry descriptions; otherwise the texts are hashed here. `custom`: policies given
    as `Policy.to_dict()` (user-level, see policies.custom_spec) by name; `scopes`: the
    half (weights.FIT / HELD) a policy replays, all scenarios otherwise; `by_pattern`:
    rows per (policy, scenario, entity pattern), PATTERN_RESULTS_SCHEMA."""
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
    custom_policies = {name: Policy.from_dict(d) for name, d in (custom or {}).items()}
    for spec in build_policies(policies, gen, ev, custom_policies):
        half = (scopes or {}).get(spec.name)
        chosen = [s for s in scenarios if half is None or scenario_half(s.id) == half]
        if not chosen:
            continue
        started = time.process_time()
        counts = replay_entities(chosen, spec, ev, seed=seed, vectors=vectors, embedder=embedder)
        cpu = (time.process_time() - started) / len(chosen)
        rows += _rows(spec.name, chosen, counts, cpu, node, by_pattern)
    return pa.Table.from_pylist(rows, schema=PATTERN_RESULTS_SCHEMA if by_pattern else RESULTS_SCHEMA)


def _rows(policy: str, scenarios: list[Scenario], counts: dict[tuple[int, str], dict[str, int]], cpu: float,
          node: str, by_pattern: bool) -> list[dict[str, Any]]:
    """Result rows per scenario, or per (scenario, entity pattern)."""
    grouped: dict[int, dict[str, dict[str, int]]] = {s.id: {} for s in scenarios}
    for (sid, entity), c in counts.items():
        key = entity_pattern(entity) if by_pattern else ""
        total = grouped[sid].setdefault(key, dict.fromkeys(COUNT_COLUMNS, 0))
        for k in COUNT_COLUMNS:
            total[k] += c[k]
    rows = []
    for s in scenarios:
        for pattern, total in sorted(grouped[s.id].items()):
            row = as_row(policy, s, total, cpu, node)
            rows.append({**row, "pattern": pattern} if by_pattern else row)
    return rows


def _node_id() -> str:
    """The Ray node this task runs on (first 12 hex digits), "" outside Ray."""
    import ray  # noqa: PLC0415

    return ray.get_runtime_context().get_node_id()[:12] if ray.is_initialized() else ""


def evaluation_dataset(scenarios: str | Path | Sequence[str], policies: Sequence[str], *, generator: GeneratorConfig,
                       evaluation: EvalConfig, seed: int = 0, custom: dict[str, Policy] | None = None,
                       scopes: dict[str, str] | None = None, by_pattern: bool = False):  # type: ignore[no-untyped-def]
    """The lazy Ray Dataset of result rows (nothing runs until it is consumed); `custom`,
    `scopes`, `by_pattern` as in `replay_batch`."""
    import ray  # noqa: PLC0415  (Ray is optional for the core)

    paths = scenario_files(scenarios)
    rows = sum(pq.read_metadata(p).num_rows for p in paths)
    free, cpus = free_cpus(evaluation.embed_actors + 1 if evaluation.embedder == "local" else 1)
    check_cpus(evaluation, free, cpus)
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
                   "evaluation": evaluation.to_dict(), "seed": seed, "registry_vectors": registry_vectors,
                   "custom": {n: p.to_dict() for n, p in (custom or {}).items()}, "scopes": dict(scopes or {}),
                   "by_pattern": by_pattern},
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


SCENARIO_COLUMNS = ("scenario_id", "entities", "truth", "writes", "queries")
"""The columns of SCENARIO_SCHEMA a replay cannot do without (`gap` and `reliability` may be missing)."""


def count_scenarios(files: Sequence[str]) -> int:
    """The scenarios in `files`, read from their footers: a file that is no Parquet, lacks a scenario
    column, or a set of files with no row at all is a ValueError (bad input), said before Ray starts."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    rows = 0
    for path in files:
        try:
            meta = pq.read_metadata(path)
        except (pa.ArrowException, OSError) as exc:
            raise ValueError(f"{path!r} is not a Parquet file of scenarios ({exc})") from None
        missing = [c for c in SCENARIO_COLUMNS if c not in meta.schema.to_arrow_schema().names]
        if missing:
            raise ValueError(f"{path!r} is not a scenario file: it has no {', '.join(missing)} column(s) "
                             "(docs/evals.md, \"Scenario Parquet schema\"; `vault-ray eval --out DIR` writes them)")
        rows += meta.num_rows
    if not rows:
        raise ValueError(f"the scenario files hold no scenarios: {', '.join(map(repr, files))}")
    return rows


CPU_HINT = ("other actors hold the rest (a `vault-ray serve --address` replica holds --replica-cpus, 1 by default, "
            "for as long as it runs): start serve with --replica-cpus 0.5 (or 0), give the Ray head more --num-cpus, "
            "or stop serve while the job runs")
"""What to do when a job beside a served cluster finds too few free CPUs (docs/jobs.md)."""


def free_cpus(need: int = 1, wait_s: float = 15.0, still_s: float = 5.0) -> tuple[int, int]:
    """(free, total) whole Ray CPUs, waiting up to `wait_s` for `need` of them to be free (the
    actors of a stage that just finished give theirs back a moment later), but no longer than
    `still_s` while none comes back (CPUs held by actors that live on, a Serve replica, are not
    waited for). A job sizes its tasks and actors by the free ones: sized by the total, an actor
    or task asks for CPUs that other actors hold and waits for them, silently, for ever."""
    import ray  # noqa: PLC0415

    started = time.monotonic()
    last, changed = None, started
    while True:
        total = int(ray.cluster_resources().get("CPU", 0))
        free = min(total, int(ray.available_resources().get("CPU", 0) + 1e-6))
        now = time.monotonic()
        if free != last:
            last, changed = free, now
        if free >= min(max(1, need), total) or now - started >= wait_s or now - changed >= still_s:
            return free, total
        time.sleep(0.25)


def check_cpus(evaluation: EvalConfig, cpus: int, total: int | None = None) -> None:
    """Each embedding actor holds a CPU for as long as it lives: with no CPU left for the
    replays, the job would wait forever. Refuse that up front. `cpus`: the free ones (`total`:
    all of Ray's, when some are held by others)."""
    held = f" ({cpus} of Ray's {total} free: {CPU_HINT})" if total is not None and total > cpus else ""
    if cpus < 1:
        raise ValueError(f"no Ray CPU is free for the replays; Ray has {cpus}{held}")
    if evaluation.embedder == "local" and cpus < evaluation.embed_actors + 1:
        raise ValueError(f"--embedder local with {evaluation.embed_actors} embedding actor(s) needs at least "
                         f"{evaluation.embed_actors + 1} Ray CPUs (one per actor, one or more for the replays); "
                         f"Ray has {cpus}{held}")


def block_size_for(scenarios: int, cpus: int, largest: int, smallest: int = 100) -> int:
    """Scenarios per batch: `largest` amortizes a vault's fixed costs best, but every CPU
    should get at least one batch."""
    return max(1, min(largest, max(smallest, math.ceil(scenarios / max(cpus, 1)))))


@dataclass
class EvalRun:
    """What one run measured; `summary` follows metrics.SUMMARY_SCHEMA (with intervals),
    `comparisons` uncertainty.COMPARISONS_SCHEMA (paired differences)."""

    summary: pa.Table
    accuracy_by_gap: dict[str, list[tuple[float, float, int]]]
    scenarios: int
    seconds: float
    policies: list[str]
    results_path: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    comparisons: pa.Table | None = None
    gap_intervals: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)
    """policy -> [(bin centre, low, high)] of final-state accuracy."""
    learned: LearnedWeights | None = None
    """The `learned` reference's weights and their evidence (when it ran)."""

    @property
    def scenarios_per_s(self) -> float:
        return self.scenarios / self.seconds if self.seconds > 0 else float("nan")


def scenario_count(scenarios: str | Path | Sequence[str]) -> int:
    return sum(pq.read_metadata(p).num_rows for p in scenario_files(scenarios))


def learn_weights(scenarios: str | Path | Sequence[str]) -> LearnedWeights:
    """Authority weights from the fit half of the scenarios (weights.agreement), one light
    Ray Data pass."""
    ds = read_on_driver_node(scenario_files(scenarios)).map_batches(agreement, batch_format="pyarrow")
    return LearnedWeights.from_tables(ds.iter_batches(batch_size=None, batch_format="pyarrow"))


def run_eval(scenarios: str | Path | Sequence[str], policies: Sequence[str], *, generator: GeneratorConfig,
             evaluation: EvalConfig | None = None, seed: int = 0, results_path: str | Path | None = None,
             on_progress: Callable[[int], None] | None = None) -> EvalRun:
    """Run the job to completion, streaming result blocks to `results_path` (Parquet)
    and calling `on_progress(scenarios_done)` after each block. Policy names are taken
    as given: add `oracle` and `learned` (policies.REFERENCES) for the reference rows;
    `learned` replays the held half only, with weights from the other."""
    evaluation = evaluation or EvalConfig()
    policies = list(policies)
    check_names(policies)
    build_policies([p for p in policies if p != "learned"], generator, evaluation)  # fail before Ray starts work
    custom, scopes, learned = {}, {}, None
    if "learned" in policies:
        learned = learn_weights(scenarios)
        custom["learned"], scopes["learned"] = learned_policy(learned.weights, evaluation), HELD
    ds = evaluation_dataset(scenarios, policies, generator=generator, evaluation=evaluation, seed=seed,
                            custom=custom, scopes=scopes)
    agg = Aggregator()
    units = UnitCounts(scenario_count(scenarios), agg.bins)
    writer = pq.ParquetWriter(str(results_path), RESULTS_SCHEMA) if results_path else None
    done = 0
    start = time.perf_counter()
    try:
        for block in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            block = block.cast(RESULTS_SCHEMA)
            if writer is not None:
                writer.write_table(block)
            agg.add(block)
            units.add(block)
            done += _full_rows(block, policies, scopes)
            if on_progress is not None:
                on_progress(done)
    finally:
        if writer is not None:
            writer.close()
    seconds = time.perf_counter() - start
    ran = [p for p in policies if p in agg.totals]
    resamples = evaluation.bootstrap_resamples
    summary = agg.summary(policy_intervals(units, ran, resamples=resamples, seed=seed))
    centres = {b: (agg.bins[b] + min(agg.bins[b + 1], 1.0)) / 2 for b in range(len(agg.bins) - 1)}
    gaps = {p: [(centres[b], lo, hi) for b, lo, hi in points]
            for p, points in gap_intervals(units, ran, resamples=resamples, seed=seed).items()}
    return EvalRun(summary, agg.accuracy_by_gap(), done, seconds, policies, str(results_path) if results_path else None,
                   comparisons=comparisons(units, ran, resamples=resamples, seed=seed), gap_intervals=gaps,
                   learned=learned)


def _full_rows(block: pa.Table, policies: Sequence[str], scopes: dict[str, str]) -> int:
    """Scenarios finished in a block: the rows of a policy that replays every scenario."""
    full = [p for p in policies if p not in scopes]
    if not full:
        return block.num_rows
    return block.filter(pc.equal(block.column("policy"), full[0])).num_rows


def ray_replays(scenarios: str | Path | Sequence[str], generator: GeneratorConfig, evaluation: EvalConfig,
                seed: int = 0):  # type: ignore[no-untyped-def]
    """recommend.Replays on Ray Data: the named policies over one half, rows per pattern."""

    def run(policies, half):  # type: ignore[no-untyped-def]
        ds = evaluation_dataset(scenarios, list(policies), generator=generator, evaluation=evaluation, seed=seed,
                                custom=dict(policies), scopes=dict.fromkeys(policies, half), by_pattern=True)
        yield from ds.iter_batches(batch_size=None, batch_format="pyarrow")

    return run
