"""One client process of the cluster row of bench_targets.py: joins the cluster-mode
store, waits for the common start time, makes `calls` single-fact `add_facts` calls
(precomputed vectors, resolve off), prints what it did as JSON.

    python targets_client.py ADDRESS NAMESPACE CLIENT CALLS START_EPOCH
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


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
