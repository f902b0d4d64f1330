"""`vault-ray eval`: compare conflict policies on synthetic scenarios (a Ray Data job),
or replay a real store's claim log under other policies (`--from-store`); with
`--recommend`, propose a policy (strategy per entity pattern, learned authority weights)
as a policy file for `vault-ray policy apply`.

Ray, pyarrow and matplotlib are imported only when the command runs."""

from __future__ import annotations

import functools
import json
import os
import platform
import shlex
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from ..errors import StoreError, StoreLocked
from .common import (
    check_out_dir,
    console,
    err_console,
    handle_errors,
    print_table,
    quiet_ray_data,
    removes_ray_session,
    require_input,
    stopped,
)
from .eval_out import (  # noqa: F401  (OUTPUTS, SYNTHETIC_OUTPUTS: what a run writes, read by tests and docs)
    FROM_STORE_OUTPUTS,
    OUTPUTS,
    PROPOSAL,
    SYNTHETIC_OUTPUTS,
    move_in,
    partial_dir,
    reads_scenarios_of,
)

DEFAULT_POLICIES = "lww,recency,authority,consensus,judge,mixed"
SHORT = {  # the terminal table; report.md has every column, with intervals
    "final_accuracy": "final", "final_vs_oracle": "/oracle", "final_strict_accuracy": "uncont.",
    "wrong_overwrite_rate": "wrong ow.",
    "stale_read_rate": "stale", "disputes_per_1k": "disp/1k", "escalation_recall": "esc.rec",
    "escalation_precision": "esc.prec", "judge_calls_per_1k": "judge/1k", "resolution_accuracy": "resol.",
    "false_alignment_rate": "false al.",
}


SCENARIOS = typer.Option(1000, "--scenarios", "-n", min=1, help="How many synthetic scenarios (users) to generate.")
POLICIES = typer.Option(None, "--policies", "-p",  # ", " in the help: rich wraps the list instead of cutting it
                        help="Comma-separated policies; left out: every policy of the mode. Synthetic: "
                             f"{DEFAULT_POLICIES.replace(',', ', ')}. --from-store: lww, store, recency, authority, "
                             "consensus, judge.")
OUT = typer.Option(Path("eval-out"), "--out", "-o", help="Directory for results, report and charts.")
SEED = typer.Option(None, "--seed", help="Seed of the generator and of the scripted judge (default: --config's, else 0).")
JUDGE_ACCURACY = typer.Option(None, "--judge-accuracy", min=0.0, max=1.0,
                              help="Accuracy of the scripted judge (default 0.9).")
BLOCK_SIZE = typer.Option(None, "--block-size", min=1,
                          help="Largest number of scenarios per Ray Data batch, replayed in one vault (default 1000).")
CONFIG = typer.Option(None, "--config", dir_okay=False,
                      help="TOML or JSON file with \\[generator] and \\[eval] settings.")
INPUT = typer.Option(None, "--input", help="Replay existing scenario Parquet files instead of generating.")
FROM_STORE = typer.Option(None, "--from-store",
                          help="Replay this store's claim log (store dir, .duckdb file or Vault.export dir) "
                               "under other policies.")
ADDRESS = typer.Option(None, "--address", help="Ray cluster address (default: start Ray locally).")
NUM_CPUS = typer.Option(None, "--num-cpus", min=1, help="CPUs for a locally started Ray.")
EMBEDDER = typer.Option(None, "--embedder",
                        help="Text vectors for entity resolution: hashing (default) or local (the local "
                             "sentence-transformers model, in a Ray Data actor pool).")
MIXED = typer.Option(None, "--mixed",
                     help="The mixed policy's strategy per entity pattern: PATTERN=STRATEGY, comma-separated, "
                          "'*' for every other entity (example above).")
EMBED_ACTORS = typer.Option(None, "--embed-actors", min=1, help="Embedding actors with --embedder local (default 1).")
RECOMMEND = typer.Option(False, "--recommend",
                         help="Propose a strategy per entity pattern and authority weights learned from the data, "
                              "with the gain over the current policy; writes OUT/proposal.json for "
                              "`vault-ray policy apply`.")
CURRENT = typer.Option(None, "--current", dir_okay=False,
                       help="Synthetic --recommend: the policy file to improve on (default: a new store's policy).")
MIN_AGE = typer.Option(7.0, "--min-age-days", min=0.0,
                       help="--from-store --recommend: a value is a label once it stood this many days uncontradicted.")
HASHING_FROM_STORE = typer.Option(
    False, "--hashing", help="Accepted with --from-store, as on every memory command: the replay uses the vectors "
    "the store holds, whatever its embedder, so it changes nothing.")

def register(app: typer.Typer) -> None:
    @app.command("eval")
    @functools.partial(handle_errors, as_options=False)  # --config's keys are the settings' Python names
    # outside: an error the signal caused (a DuckDB read cut short) is the interruption's
    @removes_ray_session  # of a Ray started here, at exit; kept when the run fails
    @stopped("interrupted: nothing was written to --out (an earlier run's files there are as they were)")
    def eval_(scenarios: int = SCENARIOS, policies: str = POLICIES, out: Path = OUT, seed: int | None = SEED,
              judge_accuracy: float = JUDGE_ACCURACY, block_size: int = BLOCK_SIZE, config: Path = CONFIG,
              input_dir: Path = INPUT, from_store: Path = FROM_STORE, address: str = ADDRESS,
              num_cpus: int = NUM_CPUS, embedder: str = EMBEDDER, embed_actors: int = EMBED_ACTORS,
              mixed: str = MIXED, recommend: bool = RECOMMEND, current: Path = CURRENT,
              min_age_days: float = MIN_AGE, hashing: bool = HASHING_FROM_STORE) -> None:
        """Evaluate conflict policies: replay synthetic multi-agent scenarios under each policy
        with Ray Data and write results.parquet, summary.parquet, report.md and PNG charts to OUT.
        Every report adds the reliability oracle (the ceiling) and learned authority; every metric
        has a 95% bootstrap interval.

        Example: vault-ray eval --mixed 'user.timezone=authority,user.diet=judge,*=recency'"""
        for given, what in ((config, "config file"), (input_dir, "scenario files"), (from_store, "store or export"),
                            (current, "policy file")):
            if given is not None:  # not found (exit code 3), as a mistyped --store, before OUT is made
                require_input(given, what)
        check_out_dir(out)  # a file there: one error line, not a traceback
        made = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
        try:
            if policies is not None and not policies.replace(",", "").strip():
                raise ValueError("--policies names no policy (leave it out for the defaults)")
            if current is not None and not recommend:
                raise ValueError("--current names the policy --recommend improves on: give --recommend too")
            if hashing and from_store is None:
                raise ValueError("--hashing is for --from-store (a store written with the hashing embedder); "
                                 "synthetic scenarios choose their vectors with --embedder hashing|local")
            if from_store is not None and current is not None:
                raise ValueError("--current is for synthetic scenarios: --from-store improves on the store's policy")
            with partial_dir(out) as work:  # OUT changes only once the run succeeded
                if from_store is not None:
                    _from_store(from_store, policies, (out, work), recommend, min_age_days * 86_400.0, seed or 0)
                    report = move_in(work, out, keep_scenarios=False)
                else:
                    settings = {"judge_accuracy": judge_accuracy, "block_size": block_size, "embedder": embedder,
                                "embed_actors": embed_actors, "mixed": mixed}
                    _synthetic(scenarios, policies or DEFAULT_POLICIES, out, work, seed, settings, config, input_dir,
                               address, num_cpus, current if recommend else None, recommend)
                    report = move_in(work, out, keep_scenarios=reads_scenarios_of(out, input_dir))
            _say_written(out, report)
        except ValueError as exc:
            err_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        finally:  # a run that failed before writing anything leaves no empty OUT behind
            if made and out.is_dir() and not any(out.iterdir()):
                out.rmdir()


def _say_written(out: Path, written: tuple[str, ...]) -> None:
    """Where the run's report and results are, now that they are in OUT."""
    if "from_store.md" in written:
        console.print(f"report: {out / 'from_store.md'}\nper entity: {out / 'from_store.parquet'}")
    else:
        console.print(f"report: {out / 'report.md'}\nresults: {out / 'results.parquet'}")


def _synthetic(n: int, policies: str, out: Path, work: Path, seed: int | None, settings: dict[str, object], config: Path | None,
               input_dir: Path | None, address: str | None, num_cpus: int | None, current: Path | None = None,
               recommend: bool = False) -> None:
    """`settings`: EvalConfig fields given on the command line (None: keep the config's). The files
    are written into `work` (moved into `out` once the run succeeded)."""
    from dataclasses import replace  # noqa: PLC0415

    from vault_ray import Policy  # noqa: PLC0415
    from vault_ray.evals.config import EvalConfig, GeneratorConfig, load_config, parse_mixed  # noqa: PLC0415
    from vault_ray.evals.generator import read_config, write_scenarios  # noqa: PLC0415
    from vault_ray.evals.job import check_cpus, count_scenarios, scenario_files  # noqa: PLC0415
    from vault_ray.evals.policies import REFERENCES, build_policies, check_names  # noqa: PLC0415
    from vault_ray.policy_file import read_policy_file  # noqa: PLC0415

    gen, ev = load_config(config) if config else (GeneratorConfig(), EvalConfig())
    gen = replace(gen, seed=seed) if seed is not None else gen  # the command line's, else the config's
    seed = gen.seed
    if settings.get("mixed") is not None:
        settings = {**settings, "mixed": parse_mixed(str(settings["mixed"]))}
    ev = replace(ev, **{k: v for k, v in settings.items() if v is not None})
    names = [p.strip() for p in policies.split(",") if p.strip()]
    check_names(names)
    names += [r for r in REFERENCES if r not in names]  # every report: the oracle and learned authority
    build_policies([p for p in names if p != "learned"], gen, ev)
    base = (read_policy_file(current) if current else Policy()) if recommend else None
    if address is None:  # a Ray started here: its CPUs are known before any work (a cluster's, once joined)
        check_cpus(ev, num_cpus or os.cpu_count() or 1)
    if input_dir is not None:
        files = scenario_files(input_dir)  # none, or not scenarios: one line (exit code 2) before Ray starts
        n = count_scenarios(files)
        gen = read_config(files[0]) or gen
        source: str | list[str] = files
    else:
        started = time.perf_counter()
        with console.status(f"generating {n:,} scenarios"):
            write_scenarios(n, work / "scenarios", gen)
        console.print(f"generated {n:,} scenarios in {time.perf_counter() - started:.1f} s (into {out / 'scenarios'} "
                      "once the run succeeds)")
        source = str(work / "scenarios")
    run, machine, proposal = _run_job(source, names, gen, ev, seed, n, work, address, num_cpus, base)
    _write_outputs(run, machine, (out, work), gen, ev, names, seed, n, input_dir, config, proposal)


@contextmanager
def _ray(address: str | None, num_cpus: int | None) -> Iterator[tuple[int, int, str]]:
    """(Ray CPUs, alive nodes, a description of the machine); a Ray started here stops after."""
    import ray  # noqa: PLC0415

    started_here = not ray.is_initialized()
    if started_here:
        from vault_ray.backends.connect import init_ray  # noqa: PLC0415

        kwargs = {} if address else {"num_cpus": num_cpus}
        # a closed port fails in seconds; a head `vault-ray up` started here gets this machine's token
        init_ray(address or "local", include_dashboard=False, logging_level="ERROR", log_to_driver=False, **kwargs)
    try:
        quiet_ray_data(ray.data.DataContext.get_current())
        cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
        machine = f"{nodes} Ray node{'s' if nodes != 1 else ''}, {cpus} Ray CPUs "
        machine += f"({platform.machine()}, {os.cpu_count()} cores on the driver), Ray {ray.__version__}"
        yield cpus, nodes, machine
    finally:
        if started_here:
            ray.shutdown()


def _run_job(source, names, gen, ev, seed, n, out, address, num_cpus, base):  # type: ignore[no-untyped-def]
    from vault_ray.evals.job import learn_weights, ray_replays, run_eval  # noqa: PLC0415
    from vault_ray.evals.recommend import recommend  # noqa: PLC0415

    proposal = None
    with _ray(address, num_cpus) as (cpus, nodes, machine):
        with Progress(TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), TextColumn("scenarios"),
                      TimeElapsedColumn(), console=console, transient=False) as bar:
            task = bar.add_task("replay", total=n)
            run = run_eval(source, names, generator=gen, evaluation=ev, seed=seed,
                           results_path=out / "results.parquet",
                           on_progress=lambda done: bar.update(task, completed=done))
        if base is not None:
            started = time.perf_counter()
            with console.status("recommending: candidate strategies on the fit half, the proposal on the held half"):
                proposal = recommend(ray_replays(source, gen, ev, seed), run.learned or learn_weights(source), base,
                                     resamples=ev.bootstrap_resamples, seed=seed)
            run.extra["recommend_seconds"] = time.perf_counter() - started
    run.extra["cpus"] = cpus
    run.extra["nodes"] = nodes
    return run, machine, proposal


def _write_outputs(run, machine, dirs, gen, ev, names, seed, n, input_dir, config, proposal) -> None:  # type: ignore[no-untyped-def]
    """Into `work` of `dirs` (out, work); `out` is what the command and the messages name."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    from vault_ray.evals.config import EvalConfig  # noqa: PLC0415
    from vault_ray.evals.report import COLUMNS, fmt, left_out, write_report  # noqa: PLC0415

    out, work = dirs
    source = f"--input {shlex.quote(str(input_dir))}" if input_dir else f"--scenarios {n}"  # a command to paste
    command = f"vault-ray eval {source} --policies {','.join(names)} --out {shlex.quote(str(out))} --seed {seed}"
    command += f" --config {shlex.quote(str(config))}" if config else ""
    command += f" --embedder {ev.embedder}" if ev.embedder != "hashing" else ""
    if "mixed" in names and ev.mixed != EvalConfig().mixed:
        command += " --mixed " + ",".join(f"{p}={s}" for p, s in ev.mixed.items())
    command += " --recommend" if proposal is not None else ""
    pq.write_table(run.summary, work / "summary.parquet")
    pq.write_table(run.comparisons, work / "comparisons.parquet")
    meta = {"scenarios": run.scenarios, "seconds": run.seconds, "scenarios_per_s": run.scenarios_per_s,
            "command": command, "seed": gen.seed, "judge_seed": seed, "judge_accuracy": ev.judge_accuracy,
            "machine": machine, "resamples": ev.bootstrap_resamples,
            "generator": gen.to_dict(), "eval": ev.to_dict(), "policies": names, "cpus": run.extra.get("cpus"),
            "nodes": run.extra.get("nodes"), "recommend_seconds": run.extra.get("recommend_seconds")}
    (work / "run.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
    if proposal is not None:
        proposal.write(work / PROPOSAL)
    write_report(work, run.summary, run.accuracy_by_gap, meta=meta, comparisons=run.comparisons,
                          gap_intervals=run.gap_intervals, recommendation=proposal)
    table = Table(title=f"{run.scenarios:,} scenarios, {run.seconds:.1f} s, {run.scenarios_per_s:.1f} scenarios/s")
    kinds = {"final_vs_oracle": "%", **{c: k for c, _, k in COLUMNS}}
    for header in ("policy", *SHORT.values()):
        table.add_column(header, overflow="fold")
    rows = run.summary.to_pylist()
    for row in rows:
        table.add_row(row["policy"], *(fmt(row[c], kinds[c]) for c in SHORT))
    notes = [fewer_note(rows, run.scenarios), *left_out(names, [r["policy"] for r in rows])]  # a policy with no row: why
    table.caption = "; ".join(n for n in notes if n) or None
    print_table(table)
    if proposal is not None:
        _print_proposal(proposal, out / PROPOSAL)


def fewer_note(rows: list[dict[str, Any]], scenarios: int) -> str | None:
    """The line under the table naming each policy replayed on fewer scenarios (`learned`): its
    columns are over those scenarios, and so is the oracle its /oracle divides by."""
    fewer = [f"{r['policy']}: replayed on {r['scenarios']:,} of the {scenarios:,} scenarios"
             + (" (the half its weights were not fitted on)" if r["policy"] == "learned" else "")
             for r in rows if r["scenarios"] < scenarios]
    return "; ".join(fewer) + "; /oracle: against the oracle on the same scenarios" if fewer else None


def _print_proposal(rec, path: Path) -> None:  # type: ignore[no-untyped-def]
    from vault_ray.evals.report import fmt, verdict  # noqa: PLC0415

    table = Table(title=f"Proposal ({rec.unit} held out): {path}")
    for header in ("entity pattern", "current", "proposed", "held-out gain (final-state accuracy)"):
        table.add_column(header, overflow="fold")
    for c in rec.choices:
        g = rec.gain("final_accuracy", c.pattern)
        table.add_row(c.pattern, c.current, "asks the user" if c.high_stakes else c.chosen,
                      Text(verdict((g.difference, g.low, g.high)) if g else "n/a"))
    table.add_row("*", rec.current.default_strategy, rec.policy.default_strategy, "")
    print_table(table)
    g = rec.gain("final_accuracy")
    if g is not None:
        console.print(Text(f"final-state accuracy {fmt(g.current, '%')} -> {fmt(g.proposed, '%')} "
                           f"({verdict((g.difference, g.low, g.high)) or 'no interval'}); review, then "
                           f"`vault-ray policy apply {path} --store PATH`"
                           + ("" if rec.unit != "scenarios" else " (it replaces the store's whole policy: "
                              "`--current FILE`, from `vault-ray policy show`, starts the proposal from yours)")))


def _partial(path: Path) -> None:
    """One line on stderr when the store's restore is unfinished: the evaluation reads what is restored."""
    from vault_ray.backends.unfinished import unfinished_note  # noqa: PLC0415
    from vault_ray.storage.restoring import read_restoring  # noqa: PLC0415

    marker = read_restoring(path)
    if marker is not None:
        err_console.print(f"[yellow]warning:[/yellow] {escape(unfinished_note(marker, str(path), f'--store {path}'))}",
                          highlight=False, soft_wrap=True)


def _from_store(path: Path, policies: str | None, dirs: tuple[Path, Path], recommend: bool = False,
                min_age_s: float = 0.0, seed: int = 0) -> None:
    """Into `work` of `dirs` (out, work); the messages name `out`."""
    _not_held(path)  # at once, not after the imports and the replay's start
    _partial(path)
    import pyarrow.parquet as pq  # noqa: PLC0415

    from vault_ray import Policy  # noqa: PLC0415
    from vault_ray.evals.from_store import WHATIF_POLICIES, what_if, whatif_policy, whatif_report  # noqa: PLC0415
    from vault_ray.evals.labels import recommend_from_store  # noqa: PLC0415
    from vault_ray.evals.report import recommendation_lines  # noqa: PLC0415

    names = [p.strip() for p in (policies or ",".join(WHATIF_POLICIES)).split(",") if p.strip()]
    for name in names:  # a bad name or a store without labels fails before anything is written
        whatif_policy(name, Policy())
    proposal = None
    if recommend:
        with console.status("recommending from the store's labels"):
            proposal = recommend_from_store(path, min_age_s=min_age_s, seed=seed)
    with console.status(f"replaying {path} under {len(names)} policies"):
        result = what_if(path, names)
    out, work = dirs
    pq.write_table(result.table(), work / "from_store.parquet")
    text = whatif_report(result, str(path))
    if proposal is not None:
        proposal.write(work / PROPOSAL)
        text += "\n" + "\n".join(recommendation_lines(proposal, PROPOSAL)) + "\n"
    (work / "from_store.md").write_text(text)
    table = Table(title=f"{result.claims:,} claims on {len(result.stored):,} entities"
                  + (f" ({result.erased:,} erased claims left out)" if result.erased else ""))
    for header in ("policy", "entities ending differently", "refused writes"):
        table.add_column(header)
    for name in names:
        table.add_row(name, f"{len(result.differences(name)):,}", f"{result.rejected[name]:,}")
    print_table(table)
    if proposal is not None:
        _print_proposal(proposal, out / PROPOSAL)
        for note in proposal.notes:  # what a store's few labels could not support (weights.MIN_REPORTS), ...
            console.print(Text(f"note: {note}"))


def _not_held(path: Path) -> None:
    """--from-store of a store directory another process holds (`vault-ray up`, `vault-ray serve
    --store`, an embedded open): StoreError naming what works, its export."""
    from vault_ray.storage.layout import check_not_held  # noqa: PLC0415

    if not (path / "vault.json").is_file():  # an export directory or a .duckdb file
        return
    try:
        check_not_held(path)
    except StoreLocked as exc:
        if exc.here:
            raise
        joined = f"--address {exc.address} --namespace {exc.namespace}" if exc.address and exc.namespace else None
        how = (f"export it while it is served: `vault-ray export {joined} --out DIR`, then `vault-ray eval --from-store "
               "DIR`" if joined else "export it through its holder (`vault-ray export --address ADDR --namespace NS --out "
               "DIR` with the address `vault-ray up` or `vault-ray serve` printed, or Vault.export(DIR) in the process "
               "that holds it), then `vault-ray eval --from-store DIR`; or stop the holder first")
        raise StoreError(f"store {str(path)!r} is held by another process, and --from-store reads a store no process "
                         f"holds, or an export; {how}") from None
