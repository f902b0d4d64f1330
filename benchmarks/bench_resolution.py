"""Entity resolution against the number of entities, not of claims (flat index).

    .venv/bin/python benchmarks/bench_resolution.py            # ~2 minutes on 2 quiet cores
    .venv/bin/python benchmarks/bench_resolution.py --no-record

Stores of 100,000 claims on 100,000, 25,000 and 1,000 entities ('many' cardinality, so
every claim stays active: 1, 4 and 100 claims per entity) are filled with 10k-fact
bulk calls (hashing vectors of generated sentences, resolve off). On each, 200 single
`add_facts` calls with resolution on (a new entity on a new topic each) are timed, and
beside them the raw part: one FAISS exact search (`faiss.knn`, k=5) of one query over as
many random unit vectors as the store has entities. Prints the table and records it in
docs/benchmarks.md (section "resolution"). Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

import faiss
import numpy as np
import targets as t
from ingest_report import begin, publish

from vault_ray import Fact, HashingEmbedder, Policy, Vault

OUT = t.ROOT / "docs" / "benchmarks.md"
CLAIMS = 100_000
PER_ENTITY = (1, 4, 100)
CALLS = 200


def fill(path: Path, per: int, texts: list[str], vectors: np.ndarray) -> None:
    with Vault.open(path, embedder=HashingEmbedder(), policy=Policy(default_cardinality="many"),
                    partitions=t.PARTITIONS) as vault:
        for i in range(0, CLAIMS, 10_000):
            facts = [Fact(f"user.e{j // per}", texts[j], f"v{j}") for j in range(i, i + 10_000)]
            vault.agent(f"agent-{i // 10_000 % 4}").add_facts(facts, vectors=vectors[i:i + 10_000], resolve=False)


def raw_search_ms(rows: int) -> float:
    base = t.unit_vectors(np.random.default_rng(rows), rows)
    query = t.unit_vectors(np.random.default_rng(1), 1)
    faiss.omp_set_num_threads(1)  # as the index searches a single query
    return t.pct(t.timed(lambda: faiss.knn(query, base, 5, faiss.METRIC_INNER_PRODUCT), 100), 50) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-record", action="store_true", help="print only; do not touch docs/benchmarks.md")
    args = parser.parse_args(argv)
    command, started, load_start, info = begin("bench_resolution.py", "resolution", argv)
    texts = t.sentences(CLAIMS)
    vectors = HashingEmbedder().embed(texts)
    work = t.scratch()
    rows = []
    try:
        for per in PER_ENTITY:
            store = work / f"per{per}"
            fill(store, per, texts, vectors)
            with Vault.open(store, embedder=HashingEmbedder(), policy=Policy(default_cardinality="many")) as vault:
                first = t.single_writes(vault, CALLS, True, np.random.default_rng(per), "r")
                again = t.single_writes(vault, CALLS, True, np.random.default_rng(per + 1), "s")
            entities = CLAIMS // per
            rows.append((per, entities, first["p50"], again["p50"], first["cpu"], raw_search_ms(entities)))
            print(f"  {per} per entity: {rows[-1]}", flush=True)
            shutil.rmtree(store)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_end = os.getloadavg()
    lines = [
        "<!-- bench:resolution -->",
        "## Entity resolution against the number of entities (flat index)",
        "",
        f"`{command}`, {started:%Y-%m-%d %H:%M} UTC, {info['code']}; {info['nproc']} cores ({info['CPU']}), "
        f"{info['RAM']}; load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end.",
        "",
        f"Stores of {CLAIMS:,} claims ('many' cardinality: every claim stays active). {CALLS} single `add_facts` "
        "calls with resolution on, each a new entity on a new topic (precomputed hashing vectors), twice; "
        "the raw part is one exact FAISS search of one query over as many vectors as the store has entities.",
        "",
        "| claims per entity | entities | single write, resolution on, p50 (two rounds) | CPU p50 | "
        "raw FAISS search over the entities |",
        "|---|---|---|---|---|",
        *(f"| {per} | {entities:,} | {a:.2f} / {b:.2f} ms | {cpu:.2f} ms | {raw:.2f} ms |"
          for per, entities, a, b, cpu, raw in rows),
        "",
        "Before git 77abea0 a resolution search scanned every active claim, so every row cost what the first "
        "does: 7.51 / 7.01, 7.88 / 7.85 and 7.50 / 7.83 ms for 1, 4 and 100 claims per entity (git 0feef90, "
        "the same calls on stores filled the same way, 2026-12-02 05:13 UTC, this machine).",
        "<!-- /bench:resolution -->",
        "",
    ]
    publish(OUT, lines, "resolution", no_record=args.no_record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
