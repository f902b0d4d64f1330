"""Targets benchmark (issue 16): every row of the targets table measured in one run,
beside its raw parts (model encode, FAISS search, DuckDB commit, an fsync'd append)
measured in the same run, with the machine and its load noted.

    .venv/bin/python benchmarks/bench_targets.py            # full run (100k claims; ~10 min on 2 quiet cores)
    .venv/bin/python benchmarks/bench_targets.py --quick    # smoke run (10k claims; about 2 minutes)

Prints the table and records it in docs/benchmarks.md (a section per mode). Asserts
nothing about time: the "met" column compares with the issue's targets.

Method: stores of 1k and 100k claims (10k with --quick) on 16 partitions are filled
with 10k-fact bulk calls of generated sentences (hashing vectors, precomputed), then
copied and converted to the HNSW index. Each measurement runs on its own copy, opened
and closed once first (a copied store rebuilds its snapshots and HNSW graph on its first
open; the measurements are of a store in service):
single `add_facts` calls (new entities on new topics, precomputed hashing vectors:
resolution searches but never aligns), one bulk call of 10k facts, single text writes and searches through
the local model (all-MiniLM-L6-v2), reopen and RSS in a fresh process, text ingest
at batch 256 interleaved with raw `model.encode`, and 8 client processes writing to
a 2-shard cluster. "Under load" rows run while 2 processes spin on the 2 cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import targets as t
from ingest_report import code_version, record
from machine import host_facts

from vault_ray import Fact, HashingEmbedder, LocalEmbedder, Vault
from vault_ray.storage.layout import partition_of

OUT = t.ROOT / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Settings:
    mode: str
    levels: tuple[int, int]
    single: int
    bulk: int
    text_single: int
    ingest: int
    queries: int
    cluster_calls: int


FULL = Settings("targets-full", (1_000, 100_000), single=200, bulk=10_000, text_single=100, ingest=2048, queries=300,
                cluster_calls=150)
QUICK = Settings("targets-quick", (1_000, 10_000), single=40, bulk=2_000, text_single=20, ingest=512, queries=60,
                 cluster_calls=25)


def say(text: str) -> None:
    print(text, flush=True)


def build_stores(s: Settings, work: Path, name: str, vectors: np.ndarray) -> tuple[dict[tuple[str, int], Path],
                                                                                  dict[str, float]]:
    texts = t.sentences(s.levels[1])
    base, stores, steps = work / "base", {}, {}
    have = 0
    for level in s.levels:
        steps[f"fill to {level:,} claims (10k-fact calls, resolve off)"] = t.fill(base, name, texts[:level], vectors, have)
        have = level
        stores[("flat", level)] = t.copy(base, work / f"flat-{level}")
        stores[("hnsw", level)] = t.copy(base, work / f"hnsw-{level}")
        steps[f"build the HNSW graph of {level:,} claims (open with index='hnsw')"] = t.convert(
            stores[("hnsw", level)], name, "hnsw")
        say(f"  stores at {level:,} claims ready")
    return stores, steps


def measure_writes(s: Settings, stores: dict[tuple[str, int], Path], work: Path, name: str) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    out: dict[str, Any] = {}
    for (kind, level), src in stores.items():
        with Vault.open(t.settled_copy(src, work / "w", name), embedder=t.ModelName(name)) as vault:
            for resolve in (False, True):
                out[f"single {kind} {level} {resolve}"] = t.single_writes(vault, s.single, resolve, rng,
                                                                           f"s{kind}{level}{int(resolve)}")
            if level == s.levels[1]:
                for resolve in (False, True):
                    out[f"bulk {kind} {resolve}"] = t.bulk_write(vault, s.bulk, resolve, rng, f"b{kind}{int(resolve)}")
        say(f"  writes {kind} {level:,}: " + ", ".join(f"{k} {v}" for k, v in out.items() if f"{kind} {level}" in k))
    return out


def measure_model_rows(s: Settings, stores: dict[tuple[str, int], Path], work: Path, local: LocalEmbedder) -> dict[str, Any]:
    out: dict[str, Any] = {}
    queries = t.sentences(s.queries, seed=23)
    top = s.levels[1]
    for kind in ("flat", "hnsw"):
        with Vault.open(t.settled_copy(stores[(kind, top)], work / "m", local.name), embedder=local) as vault:
            out[f"text {kind}"] = t.text_writes(vault, local.model, s.text_single, f"t{kind}")
            out[f"text update {kind}"] = t.text_updates(vault, local.model, s.text_single, f"u{kind}")
            out[f"search {kind}"] = t.searches(vault, local.model, queries)
            with t.Burners(2):
                out[f"search {kind} loaded"] = t.searches(vault, local.model, queries[: max(20, s.queries // 3)])
        say(f"  {kind}: text {out[f'text {kind}']}, text update {out[f'text update {kind}']}, "
            f"search {out[f'search {kind}']}, "
            f"loaded {out[f'search {kind} loaded']}")
    return out


def measure_recall(s: Settings, stores: dict[tuple[str, int], Path], name: str) -> dict[str, float]:
    vectors = HashingEmbedder().embed(t.sentences(s.levels[1] + s.queries)[-s.queries:])
    top = s.levels[1]
    with Vault.open(stores[("flat", top)], embedder=t.ModelName(name)) as exact, \
            Vault.open(stores[("hnsw", top)], embedder=t.ModelName(name)) as approx:
        return t.recall(exact, approx, vectors)


def measure_reopen(s: Settings, stores: dict[tuple[str, int], Path], name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("flat", "hnsw"):
        store = stores[(kind, s.levels[1])]
        t.reopen(store, name)  # the first open after the conversion may write the snapshot; the page cache warms
        out[kind] = t.reopen(store, name)
        with t.Burners(2):
            out[f"{kind} loaded"] = t.reopen(store, name)
        say(f"  reopen {kind}: {out[kind]}; under load {out[f'{kind} loaded']}")
    return out


def measure_ingest(s: Settings, work: Path, local: LocalEmbedder) -> dict[str, float]:
    """Raw encode and ingest (resolve on, off), 256 per call, interleaved chunk by chunk.
    A new store's first call (it creates the partitions' tables) is timed on its own,
    with 8 other facts, and is not in the rates."""
    texts = t.sentences(s.ingest, seed=31)
    wall = {"raw": 0.0, "on": 0.0, "off": 0.0}
    vaults = {r: Vault.open(work / f"ingest-{r}", embedder=local, partitions=t.PARTITIONS) for r in ("on", "off")}
    first = {}
    try:
        for run, vault in vaults.items():
            start = time.perf_counter()
            vault.agent("ingest").add_facts([Fact(f"user.w{i}", x) for i, x in enumerate(t.sentences(8, seed=37))],
                                            resolve=run == "on")
            first[f"first {run}"] = time.perf_counter() - start
        for c in range(0, len(texts), 256):
            chunk = texts[c:c + 256]
            for run in [("raw", "on", "off"), ("on", "off", "raw"), ("off", "raw", "on")][(c // 256) % 3]:
                start = time.perf_counter()
                if run == "raw":
                    local.model.encode(chunk, batch_size=256, normalize_embeddings=True, convert_to_numpy=True)
                else:
                    vaults[run].agent("ingest").add_facts([Fact(f"user.n{c + i}", x) for i, x in enumerate(chunk)],
                                                          resolve=run == "on")
                wall[run] += time.perf_counter() - start
    finally:
        for v in vaults.values():
            v.close()
    return {**{k: len(texts) / v for k, v in wall.items()}, **first}


def measure_cluster(s: Settings, work: Path) -> dict[str, Any]:
    """8 client processes against a 2-shard cluster, and (the raw part) the same clients
    making as many bare calls to 2 echo actors that do nothing, in the same Ray session."""
    import ray

    from vault_ray.actors import connect, shutdown
    from vault_ray.actors.control import SHARD_CALLS
    from vault_ray.models import Decision, Op, Outcome

    @ray.remote(num_cpus=0, max_concurrency=SHARD_CALLS)
    class Echo:  # a shard's shape (threaded, answers a decision per item), none of its work
        def write(self, calls: list[dict[int, list[Any]]], now: Any, embedder: str) -> tuple[int, list[Any]]:
            return 0, [{p: [Decision(i.entity, Op.ADD, Outcome.ACTIVE, i.id) for i in items] for p, items in call.items()}
                       for call in calls]

        def pid(self) -> int:
            return os.getpid()

    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False,
             _temp_dir=str(work / "ray"))
    try:
        address = ray.get_runtime_context().gcs_address
        vault = connect(address, namespace="targets", store=work / "cluster", shards=2, partitions=t.PARTITIONS,
                        embedder=HashingEmbedder())
        # a store in service: every partition's log exists and is open. A new store creates
        # each partition's DuckDB file on the first write there; left to the timed calls, those
        # 16 creations fell inside the few seconds measured (the echo has nothing to create).
        warm = [Fact(f"bench.open{i}", f"partition warm-up {i}") for i in range(8 * t.PARTITIONS)]
        vault.agent("warm-up").add_facts(warm, resolve=False)
        if {partition_of(f.entity, t.PARTITIONS) for f in warm} != set(range(t.PARTITIONS)):
            raise RuntimeError("the warm-up write missed a partition")
        shard_pids = [i["pid"] for i in vault._backend.shard_infos()]  # type: ignore[attr-defined]
        out = _clients(s, address, shard_pids, profile=os.environ.get("VAULT_PROFILE_SHARD"))
        groups = sum(i["commit_groups"] for i in vault._backend.shard_infos())  # type: ignore[attr-defined]
        calls = sum(i["commit_calls"] for i in vault._backend.shard_infos())  # type: ignore[attr-defined]
        shutdown(namespace="targets")
        echoes = [Echo.options(name=f"echo-{i}", namespace="targets").remote() for i in range(2)]  # type: ignore[attr-defined]
        bare = _clients(s, address, ray.get([e.pid.remote() for e in echoes]), echo=True)
    finally:
        ray.shutdown()
    return {**out, "calls per commit": calls / max(1, groups),
            "echo calls/s": bare["claims/s"], "echo p50": bare["p50"], "echo client CPU ms/call": bare["client CPU ms/claim"],
            "echo actor CPU ms/call": bare["shard CPU ms/claim"]}


def _clients(s: Settings, address: str, actor_pids: list[int], *, echo: bool = False,
             profile: str | None = None) -> dict[str, float]:
    """Start 8 client processes, let them begin together, and sum what they report."""
    start = time.time() + 25
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("targets_client.py")), address,
                               "targets", str(c), str(s.cluster_calls), str(start), *(["echo"] if echo else [])],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in range(8)]
    # the actors' CPU from the clients' common start: not their idle wait, nor the clients joining
    time.sleep(max(0.0, start - time.time()))
    cpu0 = sum(t.process_cpu(pid) for pid in actor_pids)
    if profile:  # py-spy on the first shard while the clients run
        subprocess.Popen(["py-spy", "record", "-p", str(actor_pids[0]), "-d", "40", "-r", "50", "-f", "raw",
                          "-o", profile], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        if p.returncode:
            raise RuntimeError(f"a cluster client failed: {err[-2000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    actor_cpu = sum(t.process_cpu(pid) for pid in actor_pids) - cpu0
    began, ended = min(r["began"] for r in results), max(r["ended"] for r in results)
    total = sum(r["calls"] for r in results)
    lat = [x for r in results for x in r["latencies"]]
    return {"claims/s": total / (ended - began), "p50": t.pct(lat, 50) * 1e3, "p99": t.pct(lat, 99) * 1e3,
            "client CPU ms/claim": sum(r["cpu"] for r in results) / total * 1e3,
            "shard CPU ms/claim": actor_cpu / total * 1e3}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k claims instead of 100k: a smoke run of ~2 minutes")
    parser.add_argument("--no-record", action="store_true", help="print only; do not touch docs/benchmarks.md")
    parser.add_argument("--skip-cluster", action="store_true", help="leave out the cluster-mode row (no Ray)")
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    command = shlex.join([".venv/bin/python", "benchmarks/bench_targets.py", *(sys.argv[1:] if argv is None else argv)])
    started, t0, load_start = dt.datetime.now(dt.UTC), time.perf_counter(), os.getloadavg()
    info = {**host_facts(), "code": code_version()}
    say(f"vault-ray targets benchmark ({s.mode}): " + ", ".join(f"{k} {v}" for k, v in info.items()))
    work = t.scratch()
    try:
        local = LocalEmbedder(batch_size=256)
        local.model.encode(t.sentences(256), batch_size=256)  # load and warm up, not timed
        m: dict[str, Any] = {"loads": {}}
        corpus = HashingEmbedder().embed(t.sentences(s.levels[1]))
        stores, m["steps"] = build_stores(s, work, local.name, corpus)
        m["raw"] = t.raw_parts(local.model, corpus, work, 200 if s.mode == "targets-full" else 60)
        say(f"  raw parts: {m['raw']}")
        m["loads"]["writes"] = os.getloadavg()[0]
        m["writes"] = measure_writes(s, stores, work, local.name)
        m["loads"]["model rows"] = os.getloadavg()[0]
        m["model"] = measure_model_rows(s, stores, work, local)
        m["recall"] = measure_recall(s, stores, local.name)
        m["loads"]["reopen"] = os.getloadavg()[0]
        m["reopen"] = measure_reopen(s, stores, local.name)
        m["loads"]["ingest"] = os.getloadavg()[0]
        m["ingest"] = measure_ingest(s, work, local)
        m["loads"]["cluster"] = os.getloadavg()[0]
        m["cluster"] = None if args.skip_cluster else measure_cluster(s, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    from targets_report import report

    section = report(s, m, info, command, started, time.perf_counter() - t0, (load_start, os.getloadavg()))
    say(section)
    if not args.no_record:
        record(OUT, section, s.mode)
        say(f"recorded in {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
