"""A/B of the bulk rows (and, with --reopen, the reopen) across checkouts, run in turn in one phase of the machine.

    .venv/bin/python benchmarks/ab_bulk.py ROOT [ROOT ...]
    .venv/bin/python benchmarks/ab_bulk.py --claims 100000 --per-call 10000 --off 2 --on 1 --reopen ROOT [ROOT ...]

For each ROOT (a checkout, e.g. a `git worktree add /tmp/base <commit>`), in a process of
its own that imports vault-ray from ROOT: a store of --claims claims (benchmarks/targets.py
sentences, hashing vectors, resolution off; 10,000 by default), then --off calls of
--per-call facts with resolution off and --on with it on (2 and 3 calls of 2,000 by default);
prints claims/s of each call, and with --reopen the seconds of a `Vault.open` of the store in a
fresh process, quiet and with 2 processes spinning beside it (targets.reopen). Run the roots in
turn, twice or more: on a shared host only what is measured in the same phase compares."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CALLS = """
import sys
from pathlib import Path
root, work, claims, per_call, off, on, reopen = sys.argv[1], Path(sys.argv[2]), *map(int, sys.argv[3:8])
sys.path[:0] = [root, root + "/benchmarks"]
import numpy as np
import vault_ray
assert vault_ray.__file__.startswith(root), vault_ray.__file__
import targets as t
from vault_ray import HashingEmbedder, Vault
name = "hashing-384"
texts = t.sentences(claims)
t.fill(work / "base", name, texts, HashingEmbedder().embed(texts), 0)
rng = np.random.default_rng(7)
with Vault.open(t.settled_copy(work / "base", work / "w", name), embedder=t.ModelName(name)) as vault:
    offs = [t.bulk_write(vault, per_call, False, rng, f"off{i}") for i in range(off)]
    ons = [t.bulk_write(vault, per_call, True, rng, f"on{i}") for i in range(on)]
said = f"{root} resolve off {[round(x) for x in offs]} on {[round(x) for x in ons]} claims/s"
if reopen:
    t.reopen(work / "base", name)  # the first open after the fill may write the snapshots; the page cache warms
    quiet = t.reopen(work / "base", name)
    with t.Burners(2):
        loaded = t.reopen(work / "base", name)
    said += f"; reopen {quiet['seconds']:.2f} s ({quiet['rss_mb']:.0f} MB), under load {loaded['seconds']:.2f} s"
print(said, flush=True)
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="*", help="checkouts to compare (default: this one)")
    parser.add_argument("--claims", type=int, default=10_000, help="claims in the store before the calls")
    parser.add_argument("--per-call", type=int, default=2_000, help="facts per add_facts call")
    parser.add_argument("--off", type=int, default=2, help="calls with resolution off")
    parser.add_argument("--on", type=int, default=3, help="calls with resolution on")
    parser.add_argument("--reopen", action="store_true", help="also time a reopen, quiet and under load")
    args = parser.parse_args(argv)
    for root in args.roots or [str(Path(__file__).resolve().parents[1])]:
        work = Path(tempfile.mkdtemp(prefix="vault-ab-"))
        try:
            subprocess.run([sys.executable, "-c", CALLS, str(Path(root).resolve()), str(work), str(args.claims),
                            str(args.per_call), str(args.off), str(args.on), str(int(args.reopen))], check=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
