"""Extraction quality and speed on the phrasing corpus (tests/data/phrasings.jsonl).

    python benchmarks/bench_extraction.py [--hashing] [--show-errors]

Prints precision and recall per category and overall, and the extraction latency
per user turn (the default path: LocalEmbedder + RuleReasoner, model loaded first).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

from vault_ray import HashingEmbedder, LocalEmbedder, RegistryEntry, RuleReasoner
from vault_ray.registry import BUILTIN_ENTRIES
from vault_ray.values import canonical

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "phrasings.jsonl"


def load(path: Path = CORPUS) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def score(reasoner: RuleReasoner, rows: list[dict], registry: tuple[RegistryEntry, ...] = BUILTIN_ENTRIES):  # type: ignore[no-untyped-def]
    """Per category: [true positives, extracted, expected], plus the errors and latencies."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    errors, latencies = [], []
    for row in rows:
        start = time.perf_counter()
        facts = reasoner.extract(row["text"], registry)
        latencies.append(time.perf_counter() - start)
        got = {(f.entity, canonical(f.entity, f.value)) for f in facts}
        want = {(e, canonical(e, v)) for e, v in row["facts"]}
        c = counts[row["category"]]
        c[0] += len(got & want)
        c[1] += len(got)
        c[2] += len(want)
        if got != want:
            errors.append((row["text"], sorted(got - want), sorted(want - got)))
    return counts, errors, latencies


def totals(counts: dict[str, list[int]]) -> tuple[float, float]:
    tp = sum(c[0] for c in counts.values())
    return tp / max(1, sum(c[1] for c in counts.values())), tp / max(1, sum(c[2] for c in counts.values()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hashing", action="store_true", help="HashingEmbedder instead of the local model")
    parser.add_argument("--patterns-only", action="store_true", help="no embedder: slot patterns alone")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    embedder = HashingEmbedder() if args.hashing else LocalEmbedder()
    embedder.embed(["warm up"])
    reasoner = RuleReasoner(None if args.patterns_only else embedder)
    rows = load()
    score(reasoner, rows[:5])  # builds the name tables
    if reasoner.classifier is not None:
        reasoner.classifier.nearest(["warm up"], BUILTIN_ENTRIES)  # and the prototype vectors
    counts, errors, latencies = score(reasoner, rows)
    print(f"{'category':<12} {'precision':>9} {'recall':>7} {'n':>4}")
    for cat, (tp, got, want) in sorted(counts.items()):
        print(f"{cat:<12} {tp / got if got else 1:>9.1%} {tp / want if want else 1:>7.1%} {want:>4}")
    precision, recall = totals(counts)
    print(f"{'all':<12} {precision:>9.1%} {recall:>7.1%} {sum(c[2] for c in counts.values()):>4}  ({len(rows)} statements)")
    ms = sorted(x * 1000 for x in latencies)
    print(f"latency per turn: median {statistics.median(ms):.2f} ms, mean {statistics.mean(ms):.2f} ms, "
          f"p95 {ms[int(len(ms) * 0.95)]:.2f} ms, max {ms[-1]:.2f} ms ({embedder.name}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    if args.show_errors:
        for text, extra, missing in errors:
            print(f"  {text!r}: extra {extra} missing {missing}")


if __name__ == "__main__":
    main()
