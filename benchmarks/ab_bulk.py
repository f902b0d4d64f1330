"""A/B of one bulk row across two checkouts, run in turn in one phase of the machine.

    .venv/bin/python benchmarks/ab_bulk.py ROOT [ROOT ...]

For each ROOT (a checkout, e.g. a `git worktree add /tmp/base <commit>`), in a process of
its own that imports vault-ray from ROOT: a 10,000-claim store (benchmarks/targets.py
sentences, hashing vectors, resolution off), then two 2,000-fact calls with resolution off
and three with it on; prints claims/s of each call. Run the roots in turn, twice or more:
on a shared host only what is measured in the same phase compares."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CALLS = """
import sys
from pathlib import Path
root = sys.argv[1]
sys.path[:0] = [root, root + "/benchmarks"]
import numpy as np
import vault_ray
assert vault_ray.__file__.startswith(root), vault_ray.__file__
import targets as t
from vault_ray import HashingEmbedder, Vault
work = Path(sys.argv[2])
name = "hashing-384"
texts = t.sentences(10_000)
t.fill(work / "base", name, texts, HashingEmbedder().embed(texts), 0)
rng = np.random.default_rng(7)
with Vault.open(t.settled_copy(work / "base", work / "w", name), embedder=t.ModelName(name)) as vault:
    off = [t.bulk_write(vault, 2000, False, rng, f"off{i}") for i in range(2)]
    on = [t.bulk_write(vault, 2000, True, rng, f"on{i}") for i in range(3)]
print(root, "resolve off", [round(x) for x in off], "on", [round(x) for x in on], "claims/s")
"""


def main(roots: list[str]) -> int:
    for root in roots:
        work = Path(tempfile.mkdtemp(prefix="vault-ab-"))
        try:
            subprocess.run([sys.executable, "-c", CALLS, str(Path(root).resolve()), str(work)], check=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:] or [str(Path(__file__).resolve().parents[1])]))
