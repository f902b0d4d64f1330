"""Cluster-mode benchmark: `add_facts` through 1, 2 and 4 shard actors beside
embedded mode, and search with 100k claims in the store.

    .venv/bin/python benchmarks/bench_cluster.py            # full run (a few minutes on 2 cores)
    .venv/bin/python benchmarks/bench_cluster.py --quick    # smoke run

Prints its tables; the full run also writes them to docs/benchmarks-cluster.md,
with the machine and the command.

Writes: one client (this process) calls `add_facts` back to back with precomputed
hashing-embedder vectors and `resolve=False` (a fixed taxonomy: no entity-resolution
scatter), on a fresh 16-partition store per configuration. Facts go to 2,000
entities by 4 agents with distinct values, so writes contradict each other under
the default recency policy (pass 1 and pass 2 both run). Latency is per call;
claims/s is facts over wall time. A second table runs 4 client threads at batch
size 1, where shards can work in parallel.

Search: a 16-partition store is filled with 100k claims on 100k distinct entities
(so all 100k are active and indexed), then 200 queries (k=5, hashing vectors of
stored texts) run in embedded mode, and in cluster mode on the same store with 4,
2 and 1 shards (reopening the store in 4 shards and the rebalances are timed too).
One Ray runtime (ray.init, 2 CPUs) serves every cluster configuration.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from vault_ray import Fact, HashingEmbedder, Vault

ROOT = Path(__file__).resolve().parents[1]
PARTITIONS = 16
ENTITIES = 2000
AGENTS = ("a0", "a1", "a2", "a3")
EMBEDDER = HashingEmbedder()


@dataclass(frozen=True)
class Settings:
    mode: str
    calls_bs1: int
    calls_bs256: int
    search_claims: int
    queries: int


FULL = Settings("full", calls_bs1=300, calls_bs256=20, search_claims=100_000, queries=200)
QUICK = Settings("quick", calls_bs1=40, calls_bs256=3, search_claims=5_000, queries=40)


@dataclass
class Run:
    mode: str
    batch: int
    clients: int
    facts: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.facts / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3


# -- workload ------------------------------------------------------------------------------
def facts_for(n: int, seed: int, entities: int = ENTITIES) -> tuple[list[tuple[str, Fact]], np.ndarray]:
    """`n` facts by the 4 agents in turn on `entities` random entities (0: a new entity each)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        entity = f"bench.e{int(rng.integers(entities))}" if entities else f"bench.s{seed}_{i}"
        value = f"v{seed}_{i}"
        out.append((AGENTS[i % len(AGENTS)], Fact(entity, f"{entity.replace('.', ' ')} is {value}", value,
                                                  claim_id=uuid.uuid4().hex)))
    return out, EMBEDDER.embed([f.text for _, f in out])


def drive(vault: Vault, batch: int, calls: int, clients: int, seed: int) -> tuple[int, float, list[float]]:
    """`clients` threads, each making `calls` add_facts calls of `batch` facts."""
    latencies: list[float] = []
    lock = threading.Lock()
    work = [facts_for(batch * calls, seed * 100 + c) for c in range(clients)]

    def client(c: int) -> None:
        facts, vectors = work[c]
        mine = []
        for k in range(calls):
            chunk = facts[k * batch:(k + 1) * batch]
            agent = chunk[0][0]
            t = time.perf_counter()
            vault.agent(agent).add_facts([f for _, f in chunk], vectors=vectors[k * batch:(k + 1) * batch],
                                         resolve=False)
            mine.append(time.perf_counter() - t)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return batch * calls * clients, time.perf_counter() - start, latencies


class Opener:
    """Fresh stores in embedded mode or on N shards, one namespace per store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.count = 0

    def open(self, mode: str, store: Path | None = None) -> Vault:
        self.count += 1
        store = store or self.root / f"s{self.count}"
        if mode == "embedded":
            return Vault.open(store, partitions=PARTITIONS, embedder=EMBEDDER)
        shards = int(mode.split()[0])
        from vault_ray.actors import connect

        return connect("auto", namespace=f"bench-{self.count}", store=store, shards=shards,
                       partitions=PARTITIONS, embedder=EMBEDDER)

    @staticmethod
    def close(vault: Vault) -> None:
        if vault.info().mode == "cluster":
            from vault_ray.actors import shutdown

            shutdown(namespace=vault.info().namespace)
        vault.close()


MODES = ("embedded", "1 shard", "2 shards", "4 shards")


def bench_writes(opener: Opener, s: Settings) -> list[Run]:
    runs = []
    plans = [(1, s.calls_bs1, 1), (256, s.calls_bs256, 1), (1, s.calls_bs1 // 4, 4)]
    for mode in MODES:
        for seed, (batch, calls, clients) in enumerate(plans):
            vault = opener.open(mode)
            try:
                drive(vault, batch, max(2, calls // 10), clients, seed=99)  # warm-up: first files, imports
                facts, seconds, lat = drive(vault, batch, calls, clients, seed=seed)
            finally:
                opener.close(vault)
            run = Run(mode, batch, clients, facts, seconds, lat)
            runs.append(run)
            print(f"  write {mode:>9} batch {batch:>3} x{clients}: {run.rate:8.0f} claims/s  "
                  f"p50 {run.pct(0.5):7.1f} ms  p99 {run.pct(0.99):7.1f} ms", flush=True)
    return runs


def bench_search(opener: Opener, s: Settings) -> tuple[list[tuple[str, list[float]]], dict[str, float]]:
    store = opener.root / "search"
    timings: dict[str, float] = {}  # seconds, and one count
    vault = opener.open("embedded", store)
    t = time.perf_counter()
    facts, vectors = facts_for(s.search_claims, seed=7, entities=0)  # every claim stays active: all are searched
    for k in range(0, len(facts), 1000):
        chunk = facts[k:k + 1000]
        vault.agent(chunk[0][0]).add_facts([f for _, f in chunk], vectors=vectors[k:k + 1000], resolve=False)
    timings["fill (embedded, 1000 facts per call)"] = time.perf_counter() - t
    rng = np.random.default_rng(3)
    queries = [facts[int(i)][1].text for i in rng.integers(len(facts), size=s.queries)]
    results = [("embedded", _queries(vault, queries))]
    timings["active claims in the index"] = vault._backend.host.active_count()  # type: ignore[attr-defined]
    opener.close(vault)
    t = time.perf_counter()
    vault = opener.open("4 shards", store)
    timings["connect: 4 shards reopen the store from its logs"] = time.perf_counter() - t
    try:
        results.append(("4 shards", _queries(vault, queries)))
        for shards in (2, 1):
            t = time.perf_counter()
            vault._backend.rebalance(shards)  # type: ignore[attr-defined]
            timings[f"rebalance to {shards} shard(s)"] = time.perf_counter() - t
            results.append((f"{shards} shard{'s' if shards > 1 else ''}", _queries(vault, queries)))
    finally:
        opener.close(vault)
    return results, timings


def _queries(vault: Vault, queries: list[str]) -> list[float]:
    vault.search(queries[0], k=5)  # warm-up
    out = []
    for q in queries:
        t = time.perf_counter()
        vault.search(q, k=5)
        out.append(time.perf_counter() - t)
    return out


# -- report ----------------------------------------------------------------------------------
def machine() -> dict[str, str]:
    import ray
    from machine import host_facts

    return {**host_facts(), "ray": ray.__version__, "vault-ray": metadata.version("vault-ray")}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3


def report(s: Settings, runs: list[Run], search: list[tuple[str, list[float]]], timings: dict[str, float],
           meta: dict[str, str]) -> str:
    lines = [
        f"# Cluster-mode benchmark ({s.mode} run)", "",
        f"Made by `{meta['command']}` on {meta['date']} in {meta['wall']}. "
        "See the docstring of `benchmarks/bench_cluster.py` for the workload; docs/cluster.md for what is measured.",
        "", "| machine | |", "|---|---|",
        *(f"| {k} | {v} |" for k, v in machine().items()),
        f"| load average (1 min) at start / end | {meta['load_start']} / {meta['load_end']} |", "",
        "The machine was shared with other work while this ran (see the load average): compare rows of one "
        "table with each other rather than with other runs.", "",
        "## add_facts", "",
        "One client process; cluster mode adds two actor calls per `add_facts` (the policy version and the "
        "write, in parallel per shard) and pickling.", "",
        "| mode | batch | clients | claims/s | p50 ms/call | p99 ms/call |", "|---|---:|---:|---:|---:|---:|",
        *(f"| {r.mode} | {r.batch} | {r.clients} | {r.rate:,.0f} | {r.pct(0.5):.1f} | {r.pct(0.99):.1f} |"
          for r in runs),
        "", f"## search with {s.search_claims:,} claims ({s.queries} queries, k=5)", "",
        "| mode | p50 ms | p99 ms | mean ms |", "|---|---:|---:|---:|",
        *(f"| {mode} | {pct(v, 0.5):.1f} | {pct(v, 0.99):.1f} | {statistics.mean(v) * 1e3:.1f} |"
          for mode, v in search),
        "", "| step | seconds |", "|---|---:|",
        *(f"| {k} | {v:.1f} |" for k, v in timings.items() if k != "active claims in the index"),
        "", f"All {timings['active claims in the index']:,.0f} claims of the search store are active, so every "
        "query scans that many vectors (exact inner product, FAISS `IndexFlatIP` per partition). FAISS runs "
        "with its default OpenMP threads (one per core) in the embedded process and with one thread in each "
        "shard.", "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run in well under a minute of work")
    args = parser.parse_args()
    s = QUICK if args.quick else FULL
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    import ray

    started, load_start = time.time(), os.getloadavg()[0]
    root = Path(tempfile.mkdtemp(prefix="vrbench"))
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False,
             _temp_dir=str(root / "ray"))
    try:
        opener = Opener(root)
        print(f"bench_cluster ({s.mode}): writes", flush=True)
        runs = bench_writes(opener, s)
        print(f"bench_cluster ({s.mode}): search with {s.search_claims:,} claims", flush=True)
        search, timings = bench_search(opener, s)
        for mode, values in search:
            print(f"  search {mode:>9}: p50 {pct(values, 0.5):6.1f} ms  p99 {pct(values, 0.99):6.1f} ms", flush=True)
        for k, v in timings.items():
            print(f"  {k}: {v:,.1f}" if isinstance(v, float) else f"  {k}: {v:,}", flush=True)
    finally:
        ray.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    meta = {
        "command": " ".join(shlex.quote(a) for a in [".venv/bin/python", "benchmarks/bench_cluster.py", *sys.argv[1:]]),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "wall": f"{time.time() - started:.0f} s", "load_start": f"{load_start:.1f}",
        "load_end": f"{os.getloadavg()[0]:.1f}",
    }
    text = report(s, runs, search, timings, meta)
    print(text)
    if s.mode == "full":  # a smoke run never overwrites the recorded numbers
        out = ROOT / "docs" / "benchmarks-cluster.md"
        out.write_text(text)
        print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
