"""Profile one 10k-fact `add_facts` call (precomputed hashing vectors, new entities on
new topics), resolution off and then on, in a store of `--fill` claims: the profile
behind the bulk row of the targets table (docs/performance.md).

    .venv/bin/python benchmarks/profile_bulk.py --index flat --fill 20000 [--top 40]

Prints claims/s of each call and the cProfile listing (cumulative). The store lives in
a temporary folder, filled with 10k-fact calls, closed and opened again first (a store
in service: snapshots written, the HNSW graph settled).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import tempfile
import time
from pathlib import Path

import targets as t

from vault_ray import Fact, HashingEmbedder, Vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", choices=("flat", "hnsw"), default="flat")
    parser.add_argument("--fill", type=int, default=20_000, help="claims in the store before the measured calls")
    parser.add_argument("--size", type=int, default=10_000, help="facts per measured call")
    parser.add_argument("--top", type=int, default=40, help="rows of the profile to print")
    parser.add_argument("--sort", default="cumulative", help="pstats order: cumulative, tottime, ...")
    parser.add_argument("--callers", default=None, help="also print who calls the functions matching this regex")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vault-profile-"))
    embedder = HashingEmbedder()
    try:
        with Vault.open(root / "store", embedder=embedder, index=args.index) as vault:
            texts = t.sentences(args.fill)
            for i in range(0, args.fill, 10_000):
                chunk = texts[i:i + 10_000]
                vault.agent("fill").add_facts([Fact(f"user.f{i + j}", x) for j, x in enumerate(chunk)],
                                              vectors=embedder.embed(chunk), resolve=False)
        with Vault.open(root / "store", embedder=embedder, index=args.index) as vault:
            for resolve in (False, True):
                texts = t.novel(args.size, 5 + resolve)
                facts = [Fact(f"user.b{int(resolve)}_{i}", x) for i, x in enumerate(texts)]
                vectors = embedder.embed(texts)
                profile = cProfile.Profile()
                start = time.perf_counter()
                profile.enable()
                vault.agent("bulk").add_facts(facts, vectors=vectors, resolve=resolve)
                profile.disable()
                seconds = time.perf_counter() - start
                print(f"=== {args.index}, {args.fill:,} claims, resolve={resolve}: {args.size / seconds:,.0f} claims/s "
                      f"(profiled)", flush=True)
                stats = pstats.Stats(profile).sort_stats(args.sort)
                stats.print_stats(args.top)
                if args.callers:
                    stats.print_callers(args.callers)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
