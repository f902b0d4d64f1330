"""Where `vault-ray eval` writes: a run writes into a hidden directory inside OUT
(`.eval-partial-PID`) and moves its files into OUT only once it has succeeded. A run
that fails or is stopped (Ctrl-C, SIGTERM) removes its partial directory and leaves OUT
as it was: an earlier run's scenarios, results and report stay together."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PROPOSAL = "proposal.json"
SYNTHETIC_OUTPUTS = ("results.parquet", "summary.parquet", "comparisons.parquet", "run.json", "report.md",
                     "accuracy_vs_gap.png", "wrong_overwrites.png", "disputes_vs_accuracy.png", "oracle_fraction.png")
FROM_STORE_OUTPUTS = ("from_store.parquet", "from_store.md")
OUTPUTS = (*SYNTHETIC_OUTPUTS, *FROM_STORE_OUTPUTS, PROPOSAL, "recommendation.png")
"""Every file a run writes to OUT (and `scenarios/part-*.parquet`): what a later run removes when it does not
write it again. Nothing else in OUT is touched."""
PARTIAL = ".eval-partial-"
"""The name (+ the pid) of the directory inside OUT a run writes into before it succeeds."""


@contextmanager
def partial_dir(out: Path) -> Iterator[Path]:
    """A new directory inside OUT for this run's files, removed when the block ends (moved-in
    files are gone from it by then). A partial directory a killed run left (its process is gone)
    is removed too."""
    for left in out.glob(f"{PARTIAL}*"):
        pid = left.name.removeprefix(PARTIAL)
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
    work = out / f"{PARTIAL}{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def move_in(work: Path, out: Path, *, keep_scenarios: bool) -> tuple[str, ...]:
    """After a successful run: its files from `work` into OUT (a generated `scenarios/` replaces the
    earlier run's part files), then the outputs of an earlier run that this one did not write are
    removed, so OUT holds one run's results. Returns the names moved in."""
    written = tuple(name for name in OUTPUTS if (work / name).is_file())
    generated = sorted((work / "scenarios").glob("part-*.parquet"))
    if generated:
        (out / "scenarios").mkdir(exist_ok=True)
        for stale in (out / "scenarios").glob("part-*.parquet"):  # a bigger earlier run must not leak in
            stale.unlink()
        for part in generated:
            os.replace(part, out / "scenarios" / part.name)
    for name in written:
        os.replace(work / name, out / name)
    remove_stale(out, written, keep_scenarios=keep_scenarios or bool(generated))
    return written


def remove_stale(out: Path, written: tuple[str, ...], keep_scenarios: bool) -> None:
    """Remove the outputs of an earlier run into OUT that this one did not write; with
    `keep_scenarios` False, the generated scenarios of an earlier run too."""
    for name in OUTPUTS:
        if name not in written:
            (out / name).unlink(missing_ok=True)
    scenarios = out / "scenarios"
    if keep_scenarios or not scenarios.is_dir():
        return
    for stale in scenarios.glob("part-*.parquet"):
        stale.unlink()
    if not any(scenarios.iterdir()):
        scenarios.rmdir()


def reads_scenarios_of(out: Path, input_dir: Path | None) -> bool:
    """Whether this run generates OUT/scenarios or replays files in it (--input)."""
    return input_dir is None or (out / "scenarios").resolve() in (input_dir.resolve(), *input_dir.resolve().parents)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
