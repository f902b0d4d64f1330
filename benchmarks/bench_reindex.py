"""Reindex throughput against raw `model.encode` at the same batch size (issue 12).

    .venv/bin/python benchmarks/bench_reindex.py                 # 6,000 claims (a few minutes on 2 cores)
    .venv/bin/python benchmarks/bench_reindex.py --claims 1000   # smoke run

A store of N claims with distinct texts (hashing vectors) is reindexed to the local
model (one embedding actor holding every Ray CPU, torch threads = its CPUs) on a Ray
started here. The same texts go through `SentenceTransformer.encode` in this process
(torch's default threads: one per core), before and after the job, so load from other
work on a shared machine hits both alike. Printed as a Markdown table for docs/jobs.md;
not a timed test: nothing asserts.

- raw: texts per second of `encode` (model loaded and warmed up first);
- encode inside the actor: the same calls the job makes, timed around `encode` alone
  in the actor (the job's own `model_seconds`): the raw encoder at the same batch size
  and under the very load the job ran in, which a shared machine makes worth having;
- reindex, steady: claims staged per second between the first and the last staged
  batch (the pool's model is loaded; reading, embedding and staging all count);
- reindex, whole job: claims per second from start to switch, with Ray Data's start,
  the actor's model load (about 6 s) and the switch.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from machine import host_facts  # noqa: E402

from vault_ray import Fact, HashingEmbedder, LocalEmbedder, Vault, WriteRequest  # noqa: E402

SUBJECTS = ["home", "office", "gym", "bank", "doctor", "school", "garden", "car", "cat", "dog", "club", "team"]
VERBS = ["is near", "opens at", "is called", "was moved to", "belongs to", "costs", "is next to", "closes at"]


def texts(n: int) -> list[str]:
    return [f"The user's {SUBJECTS[i % len(SUBJECTS)]} {VERBS[(i // 12) % len(VERBS)]} place {i} on street {i * 7 % 997}"
            for i in range(n)]


def build(store: Path, sentences: list[str]) -> None:
    with Vault.open(store, embedder=HashingEmbedder(dim=64), partitions=16) as vault:
        requests = [WriteRequest(f"agent-{i % 4}", facts=[Fact(f"user.item.i{i}", t, str(i))], resolve=False)
                    for i, t in enumerate(sentences)]
        for start in range(0, len(requests), 1000):
            vault.write_batch(requests[start:start + 1000])


def raw_rate(model, sentences: list[str], batch: int) -> float:  # type: ignore[no-untyped-def]
    model.encode(sentences[:batch], batch_size=batch, normalize_embeddings=True)  # warm-up
    started = time.perf_counter()
    model.encode(sentences, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
    return len(sentences) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=6000)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    import ray

    from vault_ray.evals.reindex import reindex

    sentences = texts(args.claims)
    load_before = os.getloadavg()
    model = LocalEmbedder(batch_size=args.batch_size).model
    raw_before = raw_rate(model, sentences, args.batch_size)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        build(store, sentences)
        ray.init(address="local", num_cpus=len(os.sched_getaffinity(0)), include_dashboard=False, logging_level="ERROR",
                 log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        marks: list[tuple[float, int]] = []
        result = reindex("local", store=store, batch_size=args.batch_size,
                         on_progress=lambda done, total: marks.append((time.perf_counter(), done)))
        ray.shutdown()
    raw_after = raw_rate(model, sentences, args.batch_size)
    load_after = os.getloadavg()
    staged = [(t, d) for t, d in marks if d > 0]
    steady = (staged[-1][1] - staged[0][1]) / (staged[-1][0] - staged[0][0]) if len(staged) > 1 else float("nan")
    raw = (raw_before + raw_after) / 2
    facts = host_facts()
    print(f"\n{args.claims:,} claims, distinct texts, batch size {args.batch_size}; {facts['nproc']} cores "
          f"({facts['CPU']}); load average {load_before[0]:.1f} before, {load_after[0]:.1f} after\n")
    in_actor = result.texts / result.model_seconds if result.model_seconds else float("nan")
    whole = result.claims / result.seconds
    print("| measure | texts or claims / s | vs raw encode here | vs encode in the actor |")
    print("|---|---|---|---|")
    print(f"| raw `model.encode`, this process (before, after the job) | {raw_before:,.0f}, {raw_after:,.0f} | 1.00 | |")
    print(f"| `encode` inside the actor, its time only | {in_actor:,.0f} | {in_actor / raw:.2f} | 1.00 |")
    print(f"| reindex, steady (first to last staged batch) | {steady:,.0f} | {steady / raw:.2f} | {steady / in_actor:.2f} |")
    print(f"| reindex, whole job ({result.seconds:.1f} s: Ray Data start, model load, switch) | {whole:,.0f} "
          f"| {whole / raw:.2f} | {whole / in_actor:.2f} |")


if __name__ == "__main__":
    main()
