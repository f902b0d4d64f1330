"""Report for the ingest benchmark (benchmarks/bench_ingest.py): formats its measurements
as the markdown section printed at the end of a run and records that section in
docs/benchmarks.md (or the file given with `--out`), replacing only the section of the
run's mode (full or quick). Also says what the numbers belong to: the machine (facts from
machine.py plus library versions) and the code version (git HEAD and uncommitted changes).

This module only formats and records; it measures nothing. The measuring script imports it
as a sibling module (run as `python benchmarks/bench_ingest.py`, benchmarks/ is on sys.path).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from ingest_runs import Settings, TextRun, WriteRun

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks.md"


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def code_version() -> str:
    """HEAD, plus the core files that differ from it (the numbers belong to the tree as run)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "vault_ray", "storage", "actors", "evals"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    changed = [line[3:] for line in dirty if line.strip()]
    return f"git {head}" + (f" with uncommitted changes to {', '.join(changed)}" if changed else "")


def machine() -> dict[str, str]:
    # versions from metadata: importing torch here would inflate the RSS measured in part 1
    from machine import host_facts

    return {
        **host_facts(),
        "torch": metadata.version("torch"),
        "numpy": np.__version__,
        "sentence-transformers": metadata.version("sentence-transformers"),
        "code": code_version(),
    }


def write_tables(runs: list[WriteRun]) -> tuple[str, str]:
    rows = []
    for r in runs:
        lat = np.array(r.latencies)
        rows.append([f"{r.level:,}", f"{r.stored:,}", r.batch, "on" if r.resolve else "off", len(lat),
                     fmt_ms(np.median(lat)), fmt_ms(np.percentile(lat, 99)), fmt_ms(r.total / r.claims),
                     f"{r.claims / r.total:,.0f}", fmt_ms(sum(r.cpu) / r.claims)])
    main = table(["level", "claims in store", "batch", "resolve", "calls", "p50 ms/call", "p99 ms/call",
                  "ms/claim (mean)", "claims/s", "CPU ms/claim"], rows)
    names = list(runs[0].stages)
    stage_rows = [[f"{r.level:,}", r.batch, "on" if r.resolve else "off",
                   *(fmt_ms(r.stages[n] / len(r.latencies)) for n in names)] for r in runs]
    stages = table(["level", "batch", "resolve", *names], stage_rows)
    return main, stages


def report(settings: Settings, command: str, info: dict[str, str], started: dt.datetime, elapsed: float,
           loads: tuple[tuple[float, ...], tuple[float, ...]], runs: list[WriteRun],
           fills: list[tuple[int, float, float]], memory: dict[str, float], text: dict[str, Any], *,
           agents: int, partitions: int, dim: int) -> str:
    """The markdown section of one run; `text["stages"]` maps each ingest run's label to its stage breakdown."""
    main, stages = write_tables(runs)
    reopen = {lvl: float(np.median([r.reopen_s for r in runs if r.level == lvl])) for lvl, _, _ in fills}
    fill_rows = [[f"{lvl:,}", f"{added:,}", f"{spent:.1f}", f"{added / spent:,.0f}", fmt_ms(reopen[lvl])]
                 for lvl, added, spent in fills]
    n = text["n"]
    runs_t: list[TextRun] = text["runs"]
    raw = runs_t[0]
    text_rows = [
        [r.label, f"{r.wall:.2f}", f"{n / r.wall:,.0f}", f"{r.cpu:.2f}",
         "-" if r is raw else f"{r.wall / raw.wall:.2f}", "-" if r is raw else f"{r.cpu / raw.cpu:.2f}"]
        for r in runs_t
    ]
    ingests = [r for r in runs_t if r is not raw]
    named = [(r, text["stages"][r.label]) for r in ingests]
    text_stages = table(["run", *(f"{k} (s)" for k in named[0][1])],
                        [[r.label, *(f"{v:.2f}" for v in view.values())] for r, view in named])
    machine_rows = "\n".join(f"- {k}: {v}" for k, v in info.items())
    return f"""<!-- bench:{settings.mode} -->
## {settings.mode.capitalize()} run

- command: `{command}`
- date: {started.strftime("%Y-%m-%d %H:%M UTC")}; wall time {elapsed:.0f} s
- load average (1/5/15 min) at start {" / ".join(f"{x:.2f}" for x in loads[0])}, \
at end {" / ".join(f"{x:.2f}" for x in loads[1])} (the machine may be shared: read p99 with that in mind)
{machine_rows}

### `add_facts` with precomputed vectors, by store size

A store is filled to each level (1,000-fact bulk calls, `resolve=False`, {agents} agents, distinct
entities over {partitions} partitions) and copied aside. Each configuration then runs on fresh copies of all
levels, open together, its calls spread over {settings.rounds} rounds that visit the levels in turn (a load
change on a shared machine hits every level alike). Measured writes go to new entities with random unit
vectors ({dim}-d), so resolution searches but never aligns; batch 1 after 3 warm-up calls, batch 256 after 1.
Latency is per `add_facts` call; `ms/claim` = total time / claims written; with few calls p99 is about the max.

{main}

Where the time goes (mean ms per call; exclusive stage timers around the write path):

{stages}

Bulk fill (`add_facts`, 1,000 facts per call, `resolve=False`; the first call also creates the partition files)
and reopen time (`Vault.open` on a store of that size: load the claim logs, rebuild the FAISS indexes; median of
the 4 configurations' opens):

{table(["level", "claims added", "fill s", "claims/s", "reopen ms"], fill_rows)}

Memory with {int(memory["level"]):,} claims open (one store): RSS {memory["rss_mb"]:.0f} MiB; peak RSS \
(`ru_maxrss`) {memory["peak_rss_mb"]:.0f} MiB after the fill, {memory["peak_rss_after_writes_mb"]:.0f} MiB after \
the measured writes (copies of every level open at once; before the sentence-transformers model is loaded).

### Text ingest with LocalEmbedder (all-MiniLM-L6-v2, CPU) against raw `model.encode`

{n:,} distinct sentences; batch size 256 for both (`add_facts` gets 256 facts per call and LocalEmbedder
encodes with `batch_size=256`); model load + one warm-up batch ({text["load_s"]:.1f} s) not timed;
torch uses {text["torch_threads"]} threads.
The three runs are interleaved chunk by chunk (rotating order), each vault a fresh store; overhead =
time / raw time (wall and process CPU time separately). The ingest times include the store's one-off
creation of its 16 partition files on the first write (shown below).

{table(["run", "wall s", "sentences/s", "CPU s", "overhead x raw (wall)", "overhead x raw (CPU)"], text_rows)}

Where the ingest time goes (seconds, whole run):

{text_stages}

Decisions (resolve on; entity labels are all distinct, so an `aligned` decision is resolution merging two
sentences' labels): {dict(sorted(ingests[0].decisions.items()))}
<!-- /bench:{settings.mode} -->
"""


HEADER = """# Benchmarks

Numbers recorded by `benchmarks/bench_ingest.py` (issue 2, "Benchmark"); see the script's docstring for
the method. The full run and the quick (`--quick`) run each own a section below; rerunning one replaces
only its own section. Everything is measured on the machine and code version listed in the section;
nothing here is extrapolated.

How to read them:

- With `resolve=False` a write touches only its partitions' claim logs and indexes, so its cost should not
  depend on how many claims the store holds: compare the rows of one configuration across levels.
- With resolution on (the default), every new entity label is searched against the entities'
  representatives (exact with the flat index: that part grows with the number of entities).
- A batch of facts on distinct entities touches up to 16 partitions, and each touched partition appends
  its change set to its journal (one fsync); DuckDB gets the changes in the background.
- `CPU ms/claim` is this process's CPU time; on a busy machine it moves less than wall time.
"""


def record(path: Path, section: str, mode: str) -> None:
    """Replace the `mode` section of the markdown file at `path` (created with HEADER if missing) or append it."""
    text = path.read_text() if path.exists() else HEADER
    pattern = re.compile(rf"<!-- bench:{mode} -->.*?<!-- /bench:{mode} -->\n?", re.S)
    found = pattern.search(text)
    text = pattern.sub(lambda _: section, text) if found else text.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def publish(path: Path, lines: list[str], mode: str, *, no_record: bool) -> None:
    """Print a benchmark's section (its markdown `lines`) and, unless `no_record`, record it in `path`."""
    section = "\n".join(lines)
    print(section)
    if not no_record:
        record(path, section, mode)


def begin(script: str, title: str, argv: list[str] | None) -> tuple[str, dt.datetime, tuple[float, float, float], dict]:
    """A benchmark's start: (its command as run, the UTC time, the load average, the host facts), the facts printed."""
    from machine import host_facts  # noqa: PLC0415

    command = shlex.join([".venv/bin/python", f"benchmarks/{script}", *(sys.argv[1:] if argv is None else argv)])
    started, load = dt.datetime.now(dt.UTC), os.getloadavg()
    info = {**host_facts(), "code": code_version()}
    print(f"vault-ray {title} benchmark: " + ", ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    return command, started, load, info
