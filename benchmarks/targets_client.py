"""One client process of the cluster row of bench_targets.py: joins the cluster-mode
store, waits for the common start time, makes `calls` single-fact `add_facts` calls
(precomputed vectors, resolve off), prints what it did as JSON.

    python targets_client.py ADDRESS NAMESPACE CLIENT CALLS START_EPOCH [echo]

With `echo`, the raw part of that row: the same number of bare Ray actor calls to the
named echo actors `echo-0` and `echo-1` (alternately), each carrying what a shard's
write carries (one write item with its vector) and answered with one decision.
"""

from __future__ import annotations

import json
import sys
import time

from vault_ray import Fact, HashingEmbedder, Vault


def main(address: str, namespace: str, client: int, calls: int, start: float) -> None:
    embedder = HashingEmbedder()
    facts = [Fact(f"bench.c{client}_{i}", f"client {client} fact {i} is v{i}", f"v{i}") for i in range(calls)]
    vectors = embedder.embed([f.text for f in facts])
    with Vault.connect(address, namespace=namespace, embedder=embedder) as vault:
        mem = vault.agent(f"client-{client}")
        mem.add_facts([Fact(f"bench.warm{client}", "warm-up call")], resolve=False)
        time.sleep(max(0.0, start - time.time()))
        began, cpu = time.time(), time.process_time()
        latencies = []
        for i, fact in enumerate(facts):
            t = time.perf_counter()
            mem.add_facts([fact], vectors=vectors[i:i + 1], resolve=False)
            latencies.append(time.perf_counter() - t)
        print(json.dumps({"calls": calls, "began": began, "ended": time.time(), "latencies": latencies,
                          "cpu": time.process_time() - cpu}))


def echo(address: str, namespace: str, client: int, calls: int, start: float) -> None:
    import ray

    from vault_ray.engine.txn import WriteItem
    from vault_ray.models import utcnow

    ray.init(address=address, namespace=namespace, logging_level="ERROR", log_to_driver=False)
    actors = [ray.get_actor(f"echo-{i}") for i in range(2)]
    vectors = HashingEmbedder().embed([f"client {client} fact {i} is v{i}" for i in range(calls)])
    items = [WriteItem(id=f"{client}-{i}", entity=f"bench.c{client}_{i}", text=f"client {client} fact {i} is v{i}",
                       value=f"v{i}", kind="semantic", agent=f"client-{client}", session=None, observed_at=utcnow(),
                       confidence=1.0, meta={}, vector=vectors[i], cardinality="one") for i in range(calls)]
    ray.get(actors[0].write.remote([{0: items[:1]}], utcnow(), "warm-up"))
    time.sleep(max(0.0, start - time.time()))
    began, cpu = time.time(), time.process_time()
    latencies = []
    for i, item in enumerate(items):
        t = time.perf_counter()
        ray.get(actors[(client + i) % 2].write.remote([{i % 16: [item]}], utcnow(), "hashing"))
        latencies.append(time.perf_counter() - t)
    print(json.dumps({"calls": calls, "began": began, "ended": time.time(), "latencies": latencies,
                      "cpu": time.process_time() - cpu}))


if __name__ == "__main__":
    run = echo if sys.argv[6:] == ["echo"] else main
    run(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
