"""A client process of the concurrency test: joins a running cluster-mode store and
writes contradicting facts, `per_call` facts per `add_facts` call, then saves what
was acknowledged.

    python cluster_client.py ADDRESS NAMESPACE AGENT COUNT PER_CALL SEED OUT.json
"""

from __future__ import annotations

import json
import random
import sys

from vault_ray import Fact, HashingEmbedder, Vault

ENTITIES = [f"rec.e{i}" for i in range(10)] + [f"auth.e{i}" for i in range(10)]


def main(address: str, namespace: str, agent: str, count: int, per_call: int, seed: int, out: str) -> None:
    rng = random.Random(seed)
    facts = []
    for i in range(count):
        entity, value = rng.choice(ENTITIES), f"{agent}_{i}"
        facts.append(Fact(entity, f"{entity} is {value}", value, claim_id=f"{agent}-{i:04d}"))
    acked = []
    with Vault.connect(address, namespace=namespace, embedder=HashingEmbedder()) as vault:
        mem = vault.agent(agent)
        for start in range(0, count, per_call):
            for d in mem.add_facts(facts[start:start + per_call], resolve=False).decisions:
                acked.append({"claim_id": d.claim_id, "entity": d.entity, "outcome": str(d.outcome), "op": str(d.op)})
    with open(out, "w") as fh:
        json.dump(acked, fh)


if __name__ == "__main__":
    address, namespace, agent, count, per_call, seed, out = sys.argv[1:8]
    main(address, namespace, agent, int(count), int(per_call), int(seed), out)
