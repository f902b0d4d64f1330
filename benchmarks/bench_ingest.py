"""Ingest benchmark: the write path's cost as the store grows, and text ingest
against the raw sentence-transformers encoder (issue 2, "Benchmark").

    .venv/bin/python benchmarks/bench_ingest.py            # full run (~5-10 min on 2 cores)
    .venv/bin/python benchmarks/bench_ingest.py --quick    # smoke run (about a minute)

Prints its tables and records them in docs/benchmarks.md, in a section per mode (a
quick run never overwrites the full numbers). Not a timed test: nothing asserts.

Part 1, precomputed vectors. One store is filled with bulk `add_facts` calls (1,000
facts per call, distinct entities over the 16 partitions, 4 agents, `resolve=False`)
and copied aside at each level (1k, 10k, 100k claims). Each configuration (batch size
1 and 256; entity resolution off and on) runs on fresh copies of every level, open
together, its calls spread over rounds that visit the levels in turn, so that load
from other work on a shared machine hits every level alike. Measured writes go to
new entities with random unit vectors: resolution searches but never aligns (cosine
far below 0.70), so the numbers are the pipeline's own cost plus the search.

Part 2, text. The same sentences go through `model.encode` and through
`AgentMemory.add_facts` (LocalEmbedder, 256 per call, resolution on and off, each on
a fresh store), interleaved chunk by chunk in the same process.

Timers wrapped around the write path's stages (microseconds of overhead per call)
say where the time goes; wall and process CPU time are both reported.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import resource
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from ingest_report import DEFAULT_OUT, fmt_ms, machine, record, report
from ingest_runs import Settings, TextRun, WriteRun
from stages import STAGES

from vault_ray import Fact, HashingEmbedder, LocalEmbedder, Vault

DIM = 384
PARTITIONS = 16
AGENTS = 4
FILL_BATCH = 1000


FULL =Settings("full", (1_000, 10_000, 100_000), calls_bs1=150, calls_bs256=8, rounds=4, sentences=2048)
QUICK = Settings("quick", (1_000, 5_000), calls_bs1=30, calls_bs256=2, rounds=2, sentences=512)


# -- helpers ------------------------------------------------------------------------------
def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def open_store(path: Path, embedder: Any) -> tuple[Vault, float]:
    start = time.perf_counter()
    vault = Vault.open(path, embedder=embedder, partitions=PARTITIONS)
    return vault, time.perf_counter() - start


def stored_claims(vault: Vault) -> int:
    return sum(part.log.count() for part in vault._backend.host.opened())  # type: ignore[attr-defined]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def chunks(seq: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def say(text: str = "") -> None:
    print(text, flush=True)


# -- part 1: precomputed vectors ------------------------------------------------------------



def fill(vault: Vault, start: int, target: int, rng: np.random.Generator) -> float:
    """Bulk-load distinct entities up to `target` claims; returns seconds spent."""
    agents = [vault.agent(f"agent-{i}") for i in range(AGENTS)]
    spent = 0.0
    for n in range(start, target, FILL_BATCH):
        size = min(FILL_BATCH, target - n)
        facts = [Fact(f"user.f{n + i}", f"fill fact {n + i}: the value of f{n + i}") for i in range(size)]
        vectors = unit_vectors(rng, size)
        t0 = time.perf_counter()
        agents[(n // FILL_BATCH) % AGENTS].add_facts(facts, vectors=vectors, resolve=False)
        spent += time.perf_counter() - t0
    return spent


def write_payloads(batch: int, calls: int, rng: np.random.Generator, tag: str) -> list[tuple[list[Fact], np.ndarray]]:
    return [([Fact(f"user.{tag}_{c}_{i}", f"measured fact {tag} {c} {i}") for i in range(batch)],
             unit_vectors(rng, batch)) for c in range(calls)]


def timed_writes(vault: Vault, payloads: Sequence[tuple[list[Fact], np.ndarray]],
                 resolve: bool) -> tuple[list[float], list[float]]:
    """Wall and process CPU seconds per call (CPU time is less sensitive to other load on the machine)."""
    agents = [vault.agent(f"agent-{i}") for i in range(AGENTS)]
    wall, cpu = [], []
    for c, (facts, vectors) in enumerate(payloads):
        c0, t0 = time.process_time(), time.perf_counter()
        agents[c % AGENTS].add_facts(facts, vectors=vectors, resolve=resolve)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def snapshot_levels(settings: Settings, work: Path, embedder: Any,
                    rng: np.random.Generator) -> tuple[dict[int, Path], list[tuple[int, int, float]], dict[str, float]]:
    """Fill one store level by level; copy it aside at each level (closed, so the copy is complete)."""
    base = work / "store"
    snapshots: dict[int, Path] = {}
    fills: list[tuple[int, int, float]] = []
    memory: dict[str, float] = {}
    have = 0
    for level in settings.levels:
        vault, _ = open_store(base, embedder)
        spent = fill(vault, have, level, rng)
        fills.append((level, level - have, spent))
        say(f"filled to {level:,} claims: {level - have:,} added in {spent:.1f} s")
        have = level
        memory = {"level": level, "rss_mb": rss_mb(), "peak_rss_mb": peak_rss_mb()}
        vault.close()
        snapshots[level] = work / f"snapshot-{level}"
        shutil.copytree(base, snapshots[level])
    shutil.rmtree(base)
    return snapshots, fills, memory


def bench_writes(settings: Settings, work: Path) -> tuple[list[WriteRun], list[tuple[int, int, float]], dict[str, float]]:
    """Every configuration runs on fresh copies of every level's snapshot, all open at once, and
    its calls are spread over rounds that visit the levels in turn: a load change on a shared
    machine then hits every level alike instead of skewing the comparison between them."""
    rng = np.random.default_rng(7)
    embedder = HashingEmbedder(DIM)
    snapshots, fills, memory = snapshot_levels(settings, work, embedder, rng)
    runs: list[WriteRun] = []
    for batch, calls in ((1, settings.calls_bs1), (256, settings.calls_bs256)):
        for resolve in (False, True):
            runs += run_config(snapshots, work, embedder, batch, calls, resolve, settings.rounds, rng)
    memory["peak_rss_after_writes_mb"] = peak_rss_mb()
    return runs, fills, memory


def run_config(snapshots: dict[int, Path], work: Path, embedder: Any, batch: int, calls: int, resolve: bool,
               rounds: int, rng: np.random.Generator) -> list[WriteRun]:
    tag = f"w{batch}{'r' if resolve else 'n'}"
    vaults: dict[int, Vault] = {}
    reopen: dict[int, float] = {}
    latencies: dict[int, list[float]] = {level: [] for level in snapshots}
    cpu: dict[int, list[float]] = {level: [] for level in snapshots}
    stages: dict[int, Counter[str]] = {level: Counter() for level in snapshots}
    try:
        for level, snap in snapshots.items():
            shutil.copytree(snap, work / f"copy-{level}")
            vaults[level], reopen[level] = open_store(work / f"copy-{level}", embedder)
        stored = {level: stored_claims(v) for level, v in vaults.items()}
        for vault in vaults.values():  # warm-up, not timed
            timed_writes(vault, write_payloads(batch, 3 if batch == 1 else 1, rng, f"{tag}x"), resolve)
        rounds = max(1, min(rounds, calls))
        for r in range(rounds):
            share = calls // rounds + (1 if r < calls % rounds else 0)
            for level, vault in vaults.items():
                payloads = write_payloads(batch, share, rng, f"{tag}r{r}")
                STAGES.reset()
                wall, used = timed_writes(vault, payloads, resolve)
                latencies[level] += wall
                cpu[level] += used
                stages[level].update(STAGES.seconds)
    finally:
        for level, vault in vaults.items():
            vault.close()
            shutil.rmtree(work / f"copy-{level}", ignore_errors=True)
    runs = []
    for level in snapshots:
        run = WriteRun(level, stored[level], batch, resolve, latencies[level], cpu[level], reopen[level],
                       STAGES.breakdown(sum(latencies[level]), stages[level]))
        lat = np.array(run.latencies)
        say(f"  store {run.stored:>7,} | batch {batch:>3} | resolve {'on ' if resolve else 'off'} | "
            f"p50 {fmt_ms(np.median(lat))} ms/call | p99 {fmt_ms(np.percentile(lat, 99))} ms/call | "
            f"{run.claims / run.total:,.0f} claims/s")
        runs.append(run)
    return runs


# -- part 2: text ------------------------------------------------------------------------------
SUBJECTS = ["I", "My partner", "My manager", "Our team", "My sister", "The landlord", "My doctor", "Our client"]
VERBS = ["prefer", "usually book", "asked about", "cancelled", "want to try", "keep forgetting", "recommended",
         "scheduled", "complained about", "pay for"]
OBJECTS = ["the vegan ramen place downtown", "a window seat on long flights", "the Tuesday standup meeting",
           "early morning gym sessions", "decaf oat milk lattes", "the quarterly tax filing", "Spanish lessons online",
           "a dentist appointment", "the new project dashboard", "weekend hiking trips", "noise-cancelling headphones",
           "the annual insurance renewal", "Thai food deliveries", "a standing desk at work", "the kids' piano recital",
           "train tickets to Berlin"]
WHENS = ["every week", "last Friday", "since March", "before noon", "on weekends", "twice a month", "next year",
         "after work"]


def sentences(n: int) -> list[str]:
    """`n` distinct, varied first-person-ish memory sentences (a mixed-radix walk)."""
    total = len(SUBJECTS) * len(VERBS) * len(OBJECTS) * len(WHENS)
    order = np.random.default_rng(11).permutation(total)
    out = []
    for k in order[: min(n, total)]:
        k = int(k)
        s, k = SUBJECTS[k % len(SUBJECTS)], k // len(SUBJECTS)
        v, k = VERBS[k % len(VERBS)], k // len(VERBS)
        o, k = OBJECTS[k % len(OBJECTS)], k // len(OBJECTS)
        w = WHENS[k % len(WHENS)]
        verb = v if s in ("I", "Our team") else re.sub(r"^(\w+)", lambda m: _third(m.group(1)), v)
        out.append(f"{s} {verb} {o} {w}.")
    return out


def _third(verb: str) -> str:
    if verb in ("asked", "cancelled", "recommended", "scheduled", "complained"):
        return verb
    return {"usually": "usually", "want": "wants", "keep": "keeps", "pay": "pays"}.get(verb, verb + "s")





def text_step(run: TextRun, model: Any, memory: Any, chunk: Sequence[str], start: int) -> None:
    """One chunk of 256 through `model.encode` (raw) or `add_facts` (an agent of a vault)."""
    STAGES.reset()
    c0, t0 = time.process_time(), time.perf_counter()
    if run.resolve is None:
        model.encode(list(chunk), batch_size=len(chunk), normalize_embeddings=True, convert_to_numpy=True)
    else:
        facts = [Fact(f"user.note{start + i}", text) for i, text in enumerate(chunk)]
        result = memory.add_facts(facts, resolve=run.resolve)
        run.decisions.update(f"{d.op}/{d.outcome}" + ("/aligned" if d.aligned_from else "") for d in result.decisions)
    run.wall += time.perf_counter() - t0
    run.cpu += time.process_time() - c0
    run.stages.update(STAGES.seconds)


def bench_text(settings: Settings, work: Path) -> dict[str, Any]:
    """Raw encode and ingest with resolution on and off, interleaved chunk by chunk (rotating the
    order) so that load from elsewhere on the machine hits the three alike."""
    texts = sentences(settings.sentences)
    embedder = LocalEmbedder(batch_size=256)
    t0 = time.perf_counter()
    model = embedder.model
    model.encode(texts[:256], batch_size=256, normalize_embeddings=True)  # warm-up, not timed
    load = time.perf_counter() - t0
    import torch  # already imported by the model

    say(f"model loaded and warmed up in {load:.1f} s; {len(texts):,} sentences")
    runs = [TextRun("raw `model.encode`, 256 per call"),
            TextRun("`add_facts`, 256 per call, resolve on", resolve=True),
            TextRun("`add_facts`, 256 per call, resolve off", resolve=False)]
    vaults = {run.label: open_store(work / f"text-{i}", embedder)[0] for i, run in enumerate(runs) if run.resolve is not None}
    try:
        for c, chunk in enumerate(chunks(texts, 256)):
            for k in range(len(runs)):
                run = runs[(c + k) % len(runs)]
                vault = vaults.get(run.label)
                text_step(run, model, vault.agent("ingest") if vault else None, chunk, c * 256)
    finally:
        for vault in vaults.values():
            vault.close()
    for run in runs:
        say(f"  {run.label:42s} {len(texts) / run.wall:,.0f} sentences/s ({run.cpu:.1f} CPU s)")
    stages = {run.label: STAGES.breakdown(run.wall, run.stages) for run in runs if run.resolve is not None}
    return {"n": len(texts), "load_s": load, "torch_threads": torch.get_num_threads(), "runs": runs, "stages": stages}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes: a smoke run under a minute")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown file to update")
    parser.add_argument("--no-record", action="store_true", help="print only; do not touch the markdown file")
    parser.add_argument("--faiss-threads", type=int, default=None,
                        help="set faiss OpenMP threads (default: leave the library's setting); implies --no-record")
    args = parser.parse_args(argv)
    if args.faiss_threads is not None:
        import faiss

        faiss.omp_set_num_threads(args.faiss_threads)
        args.no_record = True
    settings = QUICK if args.quick else FULL
    command = shlex.join([".venv/bin/python", "benchmarks/bench_ingest.py", *(sys.argv[1:] if argv is None else argv)])
    started = dt.datetime.now(dt.UTC)
    t0 = time.perf_counter()
    load_start = os.getloadavg()
    info = machine()
    say(f"vault-ray ingest benchmark ({settings.mode}): " + ", ".join(f"{k} {v}" for k, v in info.items()))
    with tempfile.TemporaryDirectory(prefix="vault-bench-") as tmp:
        work = Path(tmp)
        runs, fills, memory = bench_writes(settings, work)
        text = bench_text(settings, work)
    elapsed = time.perf_counter() - t0
    section = report(settings, command, info, started, elapsed, (load_start, os.getloadavg()), runs, fills, memory, text,
                     agents=AGENTS, partitions=PARTITIONS, dim=DIM)
    say()
    say(section)
    if not args.no_record:
        record(args.out, section, settings.mode)
        say(f"recorded in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
