"""What bench_targets.py measures: the raw parts (model encode, FAISS search, DuckDB
commit, an fsync'd append), the stores it fills, and each row of issue 16's targets
table. Measuring only; bench_targets.py orchestrates and reports.

Stores are created under the local model's embedder name but filled with hashing
vectors of generated sentences (precomputed: filling 100k claims through the model
would take minutes); measured text writes and searches then use the real model on
them, so their timings are the model's plus the store's own cost at that size.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vault_ray import Fact, HashingEmbedder, Vault

DIM = 384
PARTITIONS = 16
ROOT = Path(__file__).resolve().parents[1]

NAMES = ["Alice", "Bob", "Chen", "Dana", "Emil", "Fatima", "Gus", "Hana", "Ivan", "Jade", "Kofi", "Lena", "Mateo",
         "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara"]
RELATIONS = ["sister", "manager", "dentist", "landlord", "partner", "coach", "neighbor", "client", "teacher", "cousin"]
VERBS = ["prefers", "usually books", "asked about", "cancelled", "wants to try", "keeps forgetting", "recommended",
         "scheduled", "complained about", "pays for", "loves", "avoids"]
OBJECTS = ["the vegan ramen place downtown", "a window seat on long flights", "the Tuesday standup meeting",
           "early morning gym sessions", "decaf oat milk lattes", "the quarterly tax filing", "Spanish lessons online",
           "a dentist appointment", "the new project dashboard", "weekend hiking trips", "noise-cancelling headphones",
           "the annual insurance renewal", "Thai food deliveries", "a standing desk at work", "the kids' piano recital",
           "train tickets to Berlin", "jazz concerts", "a red bicycle", "the blue notebook", "sourdough bread"]
WHENS = ["every week", "last Friday", "since March", "before noon", "on weekends", "twice a month", "next year",
         "after work", "in the summer", "at night"]


def sentences(n: int, seed: int = 3) -> list[str]:
    """`n` distinct memory-like sentences (up to 480,000)."""
    combos = list(itertools.product(NAMES, RELATIONS, VERBS, OBJECTS, WHENS))
    random.Random(seed).shuffle(combos)
    return [f"{a}'s {b} {c} {d} {e}." for a, b, c, d, e in combos[:n]]


def novel(n: int, seed: int) -> list[str]:
    """`n` texts on new topics: words of their own (cosine with the stored sentences about
    0.16, with each other about 0.3), so a measured write to a new entity is never aligned
    with an incumbent (resolution searches, then keeps the label)."""
    rng = random.Random(seed)
    words = [f"{a}{b}{c}" for a in "bdfgklmnprstvz" for b in "aeiou" for c in "xyzqjw"]
    return [" ".join(rng.sample(words, 6)) + f" item {seed}-{i}" for i in range(n)]


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if len(values) else float("nan")


def timed(fn: Callable[[], Any], n: int, warm: int = 3) -> list[float]:
    for _ in range(warm):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


class ModelName(HashingEmbedder):
    """A hashing embedder under another embedder's name: fills a store the local model
    can open (vectors are precomputed; this one never embeds anything measured)."""

    def __init__(self, name: str) -> None:
        super().__init__(DIM)
        self.name = name


# -- raw parts ------------------------------------------------------------------------------
def raw_parts(model: Any, corpus: np.ndarray, work: Path, n: int) -> dict[str, float]:
    """Seconds (p50) of each raw part, and raw encode throughput at batch 256."""
    import duckdb
    import faiss
    import pyarrow as pa

    texts = sentences(300, seed=9)
    out = {"encode 1 sentence": statistics.median(timed(lambda: model.encode([texts[0]], normalize_embeddings=True), n))}
    t = time.perf_counter()
    model.encode(texts[:256], batch_size=256, normalize_embeddings=True)
    out["encode 256 sentences/s"] = 256 / (time.perf_counter() - t)
    faiss.omp_set_num_threads(1)
    flat = faiss.IndexFlatIP(DIM)
    flat.add(corpus)
    queries = corpus[np.random.default_rng(5).integers(len(corpus), size=n)]
    it = iter(queries)
    out[f"FAISS flat search, {len(corpus):,} vectors, 1 query"] = statistics.median(
        timed(lambda: flat.search(next(it)[None, :], 5), n - 3))
    con = duckdb.connect(str(work / "raw.duckdb"))
    for name in "abc":
        con.execute(f"CREATE TABLE {name} (id VARCHAR PRIMARY KEY, x BIGINT)").fetchall()
    counter = itertools.count()

    def txn() -> None:
        i = next(counter)
        table = pa.table({"id": [f"k{i}"], "x": [i]})
        con.begin()
        for name in "abc":
            con.register("t", table)
            con.execute(f"INSERT INTO {name} SELECT * FROM t").fetchall()
            con.unregister("t")
        con.commit()

    out["DuckDB transaction of three 1-row inserts"] = statistics.median(timed(txn, n))
    out["DuckDB point read"] = statistics.median(timed(lambda: con.execute("SELECT x FROM a WHERE id = 'k5'").fetchall(), n))
    con.close()
    fd = os.open(work / "raw.append", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    block = os.urandom(2048)
    out["fsync'd 2 KB append"] = statistics.median(timed(lambda: (os.write(fd, block), os.fdatasync(fd)), n))
    os.close(fd)
    return out


# -- stores --------------------------------------------------------------------------------
def fill(path: Path, name: str, texts: list[str], vectors: np.ndarray, start: int, per_call: int = 10_000) -> float:
    """Bulk add_facts of texts[start:] (one entity each, 4 agents, resolve off); seconds."""
    with Vault.open(path, embedder=ModelName(name), partitions=PARTITIONS) as vault:
        t = time.perf_counter()
        for i in range(start, len(texts), per_call):
            chunk = range(i, min(i + per_call, len(texts)))
            facts = [Fact(f"user.f{j}", texts[j]) for j in chunk]
            vault.agent(f"agent-{(i // per_call) % 4}").add_facts(facts, vectors=vectors[chunk.start:chunk.stop],
                                                                  resolve=False)
        return time.perf_counter() - t


def convert(path: Path, name: str, index: str) -> float:
    """Open a store with another index kind (built from the partitions' vectors) and close it."""
    t = time.perf_counter()
    Vault.open(path, embedder=ModelName(name), index=index).close()
    return time.perf_counter() - t


def copy(src: Path, dst: Path) -> Path:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    return dst


def settled_copy(src: Path, dst: Path, name: str) -> Path:
    """A copy opened and closed once before it is measured: a copy's files are new, so its
    first open rebuilds the snapshots and the HNSW graph from the logs, as after any copy
    of a store; a store in service has them."""
    copy(src, dst)
    Vault.open(dst, embedder=ModelName(name)).close()
    return dst


# -- rows --------------------------------------------------------------------------------------
def single_writes(vault: Vault, calls: int, resolve: bool, rng: np.random.Generator, tag: str) -> dict[str, float]:
    """p50/p99 ms and CPU ms of one-fact add_facts calls (new entities on new topics,
    precomputed vectors)."""
    mem = [vault.agent(f"agent-{i}") for i in range(4)]
    texts = novel(calls + 3, int(rng.integers(1 << 30)))
    vecs = HashingEmbedder().embed(texts)
    wall, cpu = [], []
    for c in range(calls + 3):
        fact = [Fact(f"user.{tag}_{c}", texts[c])]
        c0, t0 = time.process_time(), time.perf_counter()
        mem[c % 4].add_facts(fact, vectors=vecs[c:c + 1], resolve=resolve)
        if c >= 3:
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    return {"p50": pct(wall, 50) * 1e3, "p99": pct(wall, 99) * 1e3, "cpu": pct(cpu, 50) * 1e3}


def bulk_write(vault: Vault, n: int, resolve: bool, rng: np.random.Generator, tag: str) -> float:
    """Claims per second of one add_facts call of `n` facts (new entities, new topics)."""
    texts = novel(n, int(rng.integers(1 << 30)))
    facts = [Fact(f"user.{tag}_{i}", text) for i, text in enumerate(texts)]
    vecs = HashingEmbedder().embed(texts)
    t = time.perf_counter()
    vault.agent("bulk").add_facts(facts, vectors=vecs, resolve=resolve)
    return n / (time.perf_counter() - t)


def paired(vault: Vault, model: Any, texts: list[str], call: Callable[[int, str], Any]) -> dict[str, float]:
    """Each text: raw `model.encode` of it, then the vault call that encodes it too. The
    overhead is the median of the per-text differences: load that slows the model slows
    both halves of a pair alike."""
    raw, wall = [], []
    for c, text in enumerate(texts):
        t = time.perf_counter()
        model.encode([text], normalize_embeddings=True)
        r = time.perf_counter() - t
        t = time.perf_counter()
        call(c, text)
        if c >= 3:
            raw.append(r)
            wall.append(time.perf_counter() - t)
    over = [w - r for w, r in zip(wall, raw, strict=True)]
    return {"p50": pct(wall, 50) * 1e3, "p99": pct(wall, 99) * 1e3, "raw": pct(raw, 50) * 1e3,
            "raw p99": pct(raw, 99) * 1e3, "over": pct(over, 50) * 1e3, "over p99": pct(over, 99) * 1e3}


def text_writes(vault: Vault, model: Any, calls: int, tag: str) -> dict[str, float]:
    mem = vault.agent("texts")
    return paired(vault, model, sentences(calls + 3, seed=17),
                  lambda c, text: mem.add_facts([Fact(f"user.{tag}_{c}", text)]))


def text_updates(vault: Vault, model: Any, calls: int, tag: str) -> dict[str, float]:
    """Single text writes to entities the store has: the same agent's new statement on each
    of `calls` entities it wrote first (not timed). No new label, so no label phrase is
    embedded beside the text, and no entity resolution runs."""
    mem = vault.agent("texts")
    first = sentences(calls + 3, seed=19)
    mem.add_facts([Fact(f"user.{tag}_{c}", text) for c, text in enumerate(first)])
    return paired(vault, model, sentences(calls + 3, seed=29),
                  lambda c, text: mem.add_facts([Fact(f"user.{tag}_{c}", text)]))


def searches(vault: Vault, model: Any, queries: list[str]) -> dict[str, float]:
    return paired(vault, model, queries, lambda c, q: vault.search(q, k=5))


def recall(exact: Vault, approx: Vault, vectors: np.ndarray, k: int = 5) -> dict[str, float]:
    """recall@k of approximate against exact search on the same claims: by id, and
    counting a hit whose score reaches the exact k-th score (hashing vectors tie often)."""
    truth = exact._backend.search(vectors, k)  # type: ignore[attr-defined]
    found = approx._backend.search(vectors, k)  # type: ignore[attr-defined]
    by_id, by_score = [], []
    for t, f in zip(truth, found, strict=True):
        ids = {c.id for _, c in t}
        by_id.append(len(ids & {c.id for _, c in f}) / k)
        by_score.append(sum(1 for s, _ in f if s >= t[-1][0] - 1e-5) / k)
    return {"by id": float(np.mean(by_id)), "ties counted": float(np.mean(by_score))}


REOPEN = """
import json, os, resource, sys, time
from pathlib import Path
import vault_ray.storage, vault_ray.engine.partitions  # imports are not part of a reopen
sys.path.insert(0, {bench!r})
from targets import ModelName
from vault_ray import Vault

def rss():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) / 1024

before = rss()
t = time.perf_counter()
vault = Vault.open({store!r}, embedder=ModelName({name!r}))
seconds = time.perf_counter() - t
after = rss()
active = vault._backend.host.active_count()
import numpy as np
query = np.ones((1, vault.embedder.dim), np.float32) / np.sqrt(vault.embedder.dim)
vault._backend.search(query, 5)  # a search (both pools): what a store in service holds
searched = rss()
vault.close()
print(json.dumps({{"seconds": seconds, "rss_mb": after - before, "rss_searched_mb": searched - before, "active": active}}))
"""


def reopen(store: Path, name: str) -> dict[str, float]:
    """Vault.open of `store` in a fresh process (imports done before the clock starts)."""
    code = REOPEN.format(bench=str(Path(__file__).parent), store=str(store), name=name)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=900)
    return json.loads(done.stdout.strip().splitlines()[-1])


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Burners:
    """Synthetic load: `n` processes spinning on the CPU while a measurement runs."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Burners:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


def scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="vault-targets-"))
