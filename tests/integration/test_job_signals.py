"""qa9 F3 and F5: a bulk job or `eval` stopped by SIGTERM (`kill`, `timeout`, systemd) or Ctrl-C,
in a process of its own with a Ray it started: one line, exit 143 or 130, no Ray fault dump nor
traceback, the store whole (a rerun finishes), an earlier eval run's files in --out untouched."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from bulk_data import fill, reads

from vault_ray import HashingEmbedder, Vault

OLD = HashingEmbedder(dim=64)
WAIT_S = 300


def start(*args: str) -> subprocess.Popen[bytes]:
    """`vault-ray ARGS` as a terminal runs it: SIGINT at its default, its own process group, a live
    progress bar (FORCE_COLOR: rich draws it as on a terminal)."""
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    env.pop("RAY_ADDRESS", None)
    return subprocess.Popen([sys.executable, "-m", "vault_ray.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def signal_when(proc: subprocess.Popen[bytes], ready: Callable[[str], bool], signum: int, *,
                group: bool = False) -> str:
    """Send `signum` (to the process, or to its process group as a terminal or systemd does) once
    `ready(output so far)`; the whole output (escape codes removed) once the process ended."""
    chunks: list[bytes] = []
    fd = proc.stdout.fileno()  # type: ignore[union-attr]
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: os.read(fd, 4096), b"")), daemon=True)
    reader.start()
    deadline = time.monotonic() + WAIT_S
    try:
        while not ready(plain(b"".join(chunks).decode(errors="replace"))):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the job was not caught mid-way:\n" + plain(b"".join(chunks).decode(errors="replace"))[-3000:])
            time.sleep(0.02)
        os.killpg(proc.pid, signum) if group else proc.send_signal(signum)
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    reader.join(timeout=30)
    return plain(b"".join(chunks).decode(errors="replace"))


def plain(out: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)


def claims_done(out: str) -> list[tuple[int, int]]:
    """Each `N/M claims` the progress bar showed, in order."""
    return [(int(a.replace(",", "")), int(b.replace(",", ""))) for a, b in re.findall(r"([\d,]+)/([\d,]+) claims", out)]


def mid_way(out: str, after: int = 0) -> bool:
    """The progress bar shows more than `after` claims, not all, with a vector."""
    return any(after < done < total for done, total in claims_done(out))


def test_sigterm_to_a_reindex_is_one_line_exit_143_and_the_rerun_finishes(tmp_path):
    """SIGTERM to the job's process (`kill`), then, to the run that resumes it, to its process group
    (systemd, `timeout`, a terminal): each time one line, exit 143, the store whole and as it was;
    the run after that finishes what both staged."""
    path = tmp_path / "store"
    with Vault.open(path, embedder=OLD, partitions=8) as vault:
        fill(vault, claims=800, seed=5)  # ~780 claims in batches of 4: as long a run to stop as 2,400 in 16s
        expected = reads(vault, explain=False)
    reindex = ("reindex", "--store", str(path), "--embedder", "hashing", "--dim", "32", "--batch-size", "4")
    staged = 0
    for group in (False, True):
        proc = start(*reindex)
        said = signal_when(proc, lambda out, after=staged: mid_way(out, after), signal.SIGTERM, group=group)
        assert proc.returncode == 143, said[-3000:]
        assert "interrupted: the store is whole; run the same command again to resume or start over" in said
        assert "Traceback" not in said and "SIGTERM received" not in said, said[-3000:]
        with Vault.open(path, embedder=OLD) as vault:  # still on its old embedder, whole
            assert vault.info().dim == 64 and all(vault.check().values())
            assert reads(vault, explain=False) == expected
        staged = max(done for done, _ in claims_done(said))
    again = subprocess.run([sys.executable, "-m", "vault_ray.cli", "reindex", "--store", str(path), "--embedder",
                            "hashing", "--dim", "32"], capture_output=True, text=True, timeout=WAIT_S,
                           env={**os.environ, "COLUMNS": "300"})
    kept = re.search(r"([\d,]+) staged by an earlier run", " ".join(again.stdout.split()))
    assert again.returncode == 0 and kept, again.stdout + again.stderr
    assert int(kept.group(1).replace(",", "")) >= staged  # what the two stopped runs staged, kept
    with Vault.open(path, embedder=HashingEmbedder(dim=32)) as vault:
        assert vault.info().dim == 32 and all(vault.check().values())


def digests(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): hashlib.md5(p.read_bytes()).hexdigest()  # noqa: S324
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def earlier_run(tmp_path_factory) -> Path:
    """An earlier `eval` run's --out."""
    out = tmp_path_factory.mktemp("earlier") / "out"
    first = subprocess.run([sys.executable, "-m", "vault_ray.cli", "eval", "-n", "40", "--policies", "lww", "--out",
                            str(out), "--seed", "1"], capture_output=True, text=True, timeout=WAIT_S)
    assert first.returncode == 0, first.stdout + first.stderr
    return out


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_eval_says_so_and_leaves_an_earlier_runs_out_as_it_was(tmp_path, earlier_run, signum, code):
    out = tmp_path / "out"
    shutil.copytree(earlier_run, out)
    before = digests(out)
    assert "results.parquet" in before and "scenarios/part-00000.parquet" in before
    proc = start("eval", "-n", "3000", "--out", str(out), "--seed", "2")
    said = signal_when(proc, lambda out: "replaying" in out, signum, group=True)
    assert proc.returncode == code, said[-3000:]
    assert "interrupted: nothing was written to --out" in said and "Traceback" not in said, said[-3000:]
    assert digests(out) == before  # no partial results, the earlier run's scenarios and report together
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []
