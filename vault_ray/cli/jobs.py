"""`vault-ray export | import | reindex | normalize`: the bulk jobs (docs/jobs.md).

Each takes `--store PATH` (an embedded store, which no other process may hold) or
`--address ADDR` (the cluster-mode store served in `--namespace` there). With both,
the store is the embedded one and the Ray Data stages run on the cluster at ADDR.
The jobs open the store with its own embedder's name and size and never load a model
they were not asked for. `vault_ray.evals` (and Ray) are imported inside the commands.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from vault_ray.storage.layout import check_not_held
from vault_ray.storage.restoring import read_restoring

from ..backends.unfinished import refusal
from ..errors import InvalidInput, VaultError
from .common import (
    HASHING,
    RESUMES,
    check_out_dir,
    console,
    handle_errors,
    quiet_ray_data,
    removes_ray_session,
    require_input,
    require_store,
    resumable,
)

STORE = typer.Option(None, "--store", "-s", help="Path of an embedded store.")
ADDRESS = typer.Option(None, "--address",
                       help="Ray address: of the cluster-mode store (without --store), or where the Ray Data stages "
                            "run (with --store).")
NAMESPACE = typer.Option("vault", "--namespace", help="Ray namespace of the cluster-mode store.")
ACTORS = typer.Option(1, "--actors", min=1, help="Embedding actors in the Ray Data pool.")
CPUS = typer.Option(None, "--cpus-per-actor", min=1, help="Ray CPUs (and torch threads) per embedding actor "
                                                           "(default: Ray's CPUs shared out).")
BATCH = typer.Option(256, "--batch-size", min=1, help="Texts per model call.")
EXPORT_OUT = typer.Option(..., "--out", "-o", help="New (or empty) directory for the export.")
EXPORTED = typer.Argument(..., help="A directory written by `vault-ray export`.")
PLAN_OUT = typer.Option(Path("normalize-plan"), "--out", "-o", help="Directory for plan.parquet, plan.md and kept.csv.")
APPLY = typer.Option(None, "--apply", help="Apply this plan (plan.parquet or its directory) instead of planning.")
SIMILARITY = typer.Option("local", "--embedder", "-e",
                          help="Similarity vectors: local (the default), hashing or openai:MODEL.")
ACCEPT = typer.Option(None, "--accept", min=0.0, max=1.0, help="Merge from this combined score (default 0.66).")
ASK = typer.Option(None, "--ask", min=0.0, max=1.0, help="The reasoner decides from this score (default 0.55).")
ANY_STORE = typer.Option(False, "--any-store", help="Apply the plan even if it was made for another store.")
EXPORT_STOPPED = ("nothing was exported (the files written so far were removed) and the store is unchanged; run "
                  "the same command again to start over")
IMPORT_STOPPED = ("the store is whole; run the same command again to resume (a restore keeps the partitions it "
                  "restored and restores the rest; a merge skips the claims it wrote)")


def register(app: typer.Typer) -> None:
    # resumable inside handle_errors: an error the signal caused (a StorageFailure of a cut query) is the interruption
    # removes_ray_session between them: an error (not an interruption) keeps the session of a Ray started here
    for name, fn, then in (("export", export, EXPORT_STOPPED), ("import", import_, IMPORT_STOPPED),
                           ("reindex", reindex, RESUMES), ("normalize", normalize, RESUMES)):
        app.command(name, help=fn.__doc__)(handle_errors(removes_ray_session(resumable(fn, then))))


def _target(store: str | None, address: str | None, *, existing: bool = True, job: str | None = None) -> None:
    """--store or --address; a --store that must exist is checked before Ray starts (a typo
    is an error at once, with the exit code every command gives it), and so is a --store
    another process holds (`vault-ray up`, `vault-ray serve --store`: StoreLocked names
    the --address and --namespace that reach it) instead of after Ray's start-up, and a
    --store whose restore is unfinished, which refuses `job` (RestoreUnfinished; a cluster-mode
    store refuses it once joined)."""
    if not store and not address:
        raise InvalidInput("give --store PATH (embedded) or --address ADDR (cluster mode)")
    if store and not address and existing:
        require_store(store)
    if store:
        check_not_held(store)
    marker = read_restoring(store) if store and job is not None else None
    if marker is not None:
        raise refusal(marker, store, f"--store {store}", job)  # type: ignore[arg-type]


def _check_pool(actors: int, cpus_per_actor: int | None, address: str | None, *, joined: bool = False) -> None:
    """The embedding pool (--actors x --cpus-per-actor) against the Ray CPUs the job gets, said before
    any Ray work: without --address the Ray started here offers this machine's CPUs (checked before it
    starts); with it, the cluster's (checked once joined, `joined`, before any job or bar starts)."""
    from vault_ray.evals.text_vectors import check_pool  # noqa: PLC0415

    if address is None and not joined:
        check_pool(actors, cpus_per_actor, os.cpu_count() or 1, "this machine has")
    elif address is not None and joined:
        import ray  # noqa: PLC0415

        check_pool(actors, cpus_per_actor, int(ray.cluster_resources().get("CPU", 0)),
                   f"the Ray cluster at {address} has")


def _quiet_ray() -> None:
    import ray  # noqa: PLC0415

    quiet_ray_data(ray.data.DataContext.get_current())


def export(out: Path = EXPORT_OUT, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
           hashing: bool = HASHING) -> None:
    """Export a store to OUT: claims (with embeddings), disputes, events and receipts as Parquet
    partitioned by partition number, the policy and registry, and a manifest with checksums.
    --hashing is accepted like on every memory command (an export embeds nothing: it changes nothing)."""
    del hashing  # the vectors are copied as stored, whatever the embedder
    from vault_ray.evals.job_store import open_store  # noqa: PLC0415

    _target(store, address, job="this export")
    check_out_dir(out, empty=True)  # as eval and normalize say it, before Ray starts
    with open_store(store, address=None if store else address, namespace=namespace) as job:
        result = job.vault.export(out)
    rows = ", ".join(f"{n:,} {table}" for table, n in result.rows.items())
    console.print(f"exported {rows} from {result.partitions} partition(s) in {result.seconds:.1f} s -> {result.directory}")


def import_(directory: Path = EXPORTED, store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
            hashing: bool = HASHING) -> None:
    """Import an export: restored verbatim into an empty (or new) store, merged by claim id into one
    with claims (new claims go through the write path). A tampered export is refused whole. An
    interrupted restore is resumed by the same command (another import is refused until it is).
    --hashing is accepted like on every memory command (an import embeds nothing: it takes the vectors as exported)."""
    del hashing  # the new store gets the export's embedder name and dimension; merged claims keep their vectors
    from vault_ray.evals.job_store import open_store  # noqa: PLC0415

    require_input(directory, "vault-ray export", "; nothing was imported")
    _target(store, address, existing=False)
    made = bool(store) and not Path(store).exists()  # a refused import leaves no store it made behind
    if store and not (Path(store) / "vault.json").exists():
        _create_like(store, directory)
    try:
        with open_store(store, address=None if store else address, namespace=namespace) as job:
            result = job.vault.import_from(directory)
    except VaultError:
        if made and read_restoring(store) is None:  # an unfinished restore stays, for the same import to resume
            shutil.rmtree(store, ignore_errors=True)
        raise
    if result.mode == "restore":
        resumed = (f" ({result.resumed} partition(s) restored by an interrupted run of this import: checked and kept)"
                   if result.resumed else "")
        console.print(f"restored {', '.join(f'{n:,} {t}' for t, n in result.rows.items())} in {result.seconds:.1f} s"
                      f"{resumed}")
    else:
        console.print(_merge_summary(result), highlight=False)
    _exit_on_errors(result.errors, "refused by the write path")


def _merge_summary(result: Any) -> str:
    """What a merge did, plainly: the new claims and where they stand now (and how each was written:
    a later claim of the same import may supersede one written active), the claims skipped because
    the store holds them already, the retractions replayed."""
    def counts(found: Mapping[str, int]) -> str:
        return ", ".join(f"{n:,} {o}" for o, n in sorted(found.items()))

    parts = []
    if result.claims:
        parts.append(f"merged {result.claims:,} new claim(s), now {counts(result.statuses)} "
                     f"(as each was written: {counts(result.outcomes)})")
    elif result.skipped:
        parts.append(f"nothing new: all {result.skipped:,} claim(s) of the export are already in the store (skipped)")
    elif not result.erased:
        parts.append("nothing new: the export holds no claim")
    if result.claims and result.skipped:
        parts.append(f"{result.skipped:,} skipped: already in the store")
    if result.retracted:
        parts.append(f"{result.retracted:,} retracted as in the source")
    if result.erased:
        parts.append(f"{result.erased:,} erased claim(s) left out: the source erased them, no content is left to merge")
    if result.erased_here:
        parts.append(f"{result.erased_here:,} of them erased here too: this store held a copy")
    return "; ".join([*parts, f"{result.seconds:.1f} s"])


def _create_like(store: str, directory: Path) -> None:
    """A new store with the export's partition count, embedder name and dimension."""
    from vault_ray.evals.from_store import StoredVectors  # noqa: PLC0415
    from vault_ray.storage.archive import Archive  # noqa: PLC0415

    from ..vault import Vault  # noqa: PLC0415

    exported = Archive(directory, verify=False).store  # the import verifies every file
    Vault.open(store, partitions=exported["partitions"],
               embedder=StoredVectors(exported["dim"], exported["embedder"])).close()


class Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} claims/s")


def _bar(label: str) -> Progress:
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("claims"), Rate(),
                    TimeElapsedColumn(), console=console)


def reindex(embedder: str = typer.Option(..., "--embedder", "-e", help="local, hashing or openai:MODEL."),
            dim: int = typer.Option(None, "--dim", min=8, max=65_536, help="Vector size (hashing: 384 by default; openai)."),
            store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE, batch_size: int = BATCH,
            actors: int = ACTORS, cpus_per_actor: int = CPUS) -> None:
    """Re-embed every claim (active and historical) with another embedder and switch the store to
    it in one crash-safe step; an interrupted run resumes where it stopped."""
    from vault_ray.errors import NothingToReindex  # noqa: PLC0415
    from vault_ray.evals.embedder_spec import EmbedderSpec  # noqa: PLC0415
    from vault_ray.evals.job_store import ensure_ray, store_embedder  # noqa: PLC0415
    from vault_ray.evals.reindex import reindex as run  # noqa: PLC0415

    _target(store, address, job="this reindex")
    spec = EmbedderSpec.parse(embedder, dim)  # every argument checked before Ray starts (it takes seconds)
    spec.check()
    _check_pool(actors, cpus_per_actor, address)
    # an embedded store says without Ray; a cluster-mode one once joined, before any job or bar starts
    if store_embedder(store or None, address=address, namespace=namespace) == (spec.name, spec.dim):
        console.print(f"already on {embedder} ({spec.name}, {spec.dim} dimensions); nothing to do")
        return
    ensure_ray(address, store=store, namespace=namespace)
    _check_pool(actors, cpus_per_actor, address, joined=True)
    _quiet_ray()
    try:
        with _bar("embedding") as bar:
            task = bar.add_task("reindex", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = run(spec, store=store, address=address, namespace=namespace, batch_size=batch_size,
                         actors=actors, cpus_per_actor=cpus_per_actor, on_progress=progress)
    except NothingToReindex:  # a cluster-mode store already on it: a rerun of a finished job
        console.print(f"already on {embedder} ({spec.name}, {spec.dim} dimensions); nothing to do")
        return
    embedded = (f"{result.texts:,} distinct texts embedded at {result.claims_per_s:,.1f} claims/s" if result.embedded
                else "no claims to embed" if not result.claims else "nothing left to embed")
    console.print(
        f"reindexed {result.claims:,} claims: {result.old_embedder} ({result.old_dim}) -> {result.embedder} "
        f"({result.dim}); {embedded}"
        + (f" on {len(result.nodes)} Ray nodes" if len(result.nodes) > 1 else "")
        + (f", {result.erased:,} erased claim(s) staged as zeros" if result.erased else "")
        + (f", {result.staged_before:,} staged by an earlier run" if result.staged_before else "")
        + (f", {result.caught_up:,} written meanwhile" if result.caught_up else "")
        + f"; {result.seconds:.1f} s. Open it with the new embedder from now on.")


def normalize(store: str = STORE, address: str = ADDRESS, namespace: str = NAMESPACE,
              out: Path = PLAN_OUT, apply: Path = APPLY, embedder: str = SIMILARITY, accept: float = ACCEPT,
              ask: float = ASK, actors: int = ACTORS, cpus_per_actor: int = CPUS, any_store: bool = ANY_STORE,
              hashing: bool = HASHING) -> None:
    """Find entity labels that name one thing and write a reviewable merge plan (Parquet and
    Markdown); with --apply PLAN, merge them through the partition owners (the approved rows:
    an approved keep row merges its pair; a plan made for another store is refused).
    --hashing is accepted like on every memory command: the labels are compared with --embedder's
    vectors (`--embedder hashing` for the model-free ones), never the store's, so any store works."""
    del hashing  # a re-keyed claim keeps its stored vector; the similarity vectors are --embedder's
    _target(store, address, job="this normalize")
    if apply is not None:
        _apply(apply, store, address, namespace, any_store)
        return
    from vault_ray.evals.embedder_spec import EmbedderSpec  # noqa: PLC0415
    from vault_ray.evals.job_store import ensure_ray  # noqa: PLC0415
    from vault_ray.evals.merge_plan import Thresholds  # noqa: PLC0415
    from vault_ray.evals.normalize import normalize as run  # noqa: PLC0415

    check_out_dir(out)
    given: dict[str, Any] = {k: v for k, v in (("accept", accept), ("ask", ask)) if v is not None}
    th = Thresholds(**given)
    if th.ask > th.accept:
        raise InvalidInput(f"--ask ({th.ask}) must not be above --accept ({th.accept})")
    EmbedderSpec.parse(embedder).check()  # an unknown embedder, a missing key or package: one line, before Ray
    _check_pool(actors, cpus_per_actor, address)
    ensure_ray(address, store=store, namespace=namespace)
    _check_pool(actors, cpus_per_actor, address, joined=True)
    _quiet_ray()
    with console.status("profiling labels, embedding, scoring pairs"):
        result = run(store=store, address=address, namespace=namespace, out=out, embedder=embedder, thresholds=th,
                     actors=actors, cpus_per_actor=cpus_per_actor)
    on = f" on {len(result.nodes)} Ray nodes" if len(result.nodes) > 1 else ""
    if not result.merges and not result.kept:  # a plan with no row: nothing to review, nothing to apply
        console.print(f"{result.labels:,} labels, {result.pairs:,} pairs scored{on}: nothing to merge (no two labels "
                      f"look like one thing), nothing to apply; plan {result.plan_id}: {result.report_path}; "
                      f"{result.seconds:.1f} s")
        return
    console.print(f"{result.labels:,} labels, {result.pairs:,} pairs scored{on}: {result.merges} merge(s) re-keying "
                  f"{result.claims:,} claim(s), {result.conflicts} conflict(s) to decide, {result.kept} pair(s) kept "
                  f"apart; {result.seconds:.1f} s")
    target = f"--store {shlex.quote(store)}" if store else f"--address {shlex.quote(address)}"  # pasted into a shell
    console.print(f"review: {result.report_path}\napply:  vault-ray normalize --apply {shlex.quote(str(result.plan_path))} "
                  f"{target}", highlight=False)


def _apply(plan: Path, store: str | None, address: str | None, namespace: str, any_store: bool) -> None:
    from vault_ray.evals.normalize import apply_plan  # noqa: PLC0415
    from vault_ray.evals.plan_report import PLAN_FILE  # noqa: PLC0415

    require_input(plan / PLAN_FILE if plan.is_dir() else plan, "merge plan", f" (normalize writes {PLAN_FILE})")

    result = apply_plan(plan, store=store, address=None if store else address, namespace=namespace, any_store=any_store)
    if result.nothing_to_do:  # exit 0, as a reindex onto the store's own embedder: a rerun is no error
        console.print(f"plan {result.plan_id or plan}: nothing to apply, nothing was changed: {result.nothing_to_do}",
                      highlight=False)
        return
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    outcomes = ", ".join(f"{n:,} {o}" for o, n in sorted(result.outcomes.items())) or "nothing new"
    accepted = f" ({result.accepted} accepted from keep rows)" if result.accepted else ""
    carried = f", {result.carried} person's decision(s) carried over" if result.carried else ""
    console.print(f"plan {result.plan_id or plan}: {result.merges} merge(s){accepted}, {result.aliases} alias(es) added, "
                  f"{result.rekeyed:,} claim(s) re-keyed ({outcomes}), {result.retired:,} original(s) retired{carried}; "
                  f"{result.seconds:.1f} s")
    for label, why in result.held.items():
        console.print(f"[yellow]held:[/yellow] {label} was not merged: {why}", highlight=False)
    _exit_on_errors(result.errors, "stay on their label")
    if result.held:
        raise typer.Exit(1)


def _exit_on_errors(errors: Mapping[str, str], what: str) -> None:
    """Exit 1 naming how many claims `what` and the first one's reason (the rest were done)."""
    if errors:
        claim, why = next(iter(errors.items()))
        console.print(f"[yellow]{len(errors):,} claim(s) {what}[/yellow], e.g. {claim}: {why}", highlight=False)
        raise typer.Exit(1)
