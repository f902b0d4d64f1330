"""Concurrency: 4 client processes x 250 contradicting writes over 20 entities,
half under recency and half under authority, against one cluster-mode store. The
invariants of DESIGN §7 hold, and the final state equals a sequential replay of
each partition's event log through a fresh partition.

Each client sends its 250 facts ten per `add_facts` call, so the Ray suite keeps
its time budget on a busy 2-core machine; VAULT_TEST_FACTS_PER_CALL=1 sends every
fact in its own call (1,000 write calls; about half a minute longer there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from vault_ray import Fact, Policy, RuleReasoner
from vault_ray.actors import shutdown
from vault_ray.engine.partition import Partition
from vault_ray.engine.txn import WriteItem
from vault_ray.storage import DuckDBClaimLog, FlatIndex
from vault_ray.storage.layout import partition_path

from .parity import check_invariants

AGENTS = ("a0", "a1", "a2", "a3")
WRITES = 250
PER_CALL = int(os.environ.get("VAULT_TEST_FACTS_PER_CALL", "10"))
PARTITIONS = 4
POLICY = Policy(
    strategies={"auth.*": "authority"},  # everything else: recency
    authority={a: {"auth.*": w} for a, w in zip(AGENTS, (0.2, 0.4, 0.6, 0.8), strict=True)},
    max_open_disputes=10_000,
)
CLIENT = Path(__file__).with_name("cluster_client.py")


def test_four_processes_writing_at_once(cluster, gcs_address, tmp_path):
    vault = cluster(shards=2, partitions=PARTITIONS, policy=POLICY)
    namespace = vault.info().namespace
    outs = [tmp_path / f"{a}.json" for a in AGENTS]
    procs = [
        subprocess.Popen([sys.executable, str(CLIENT), gcs_address, namespace, agent, str(WRITES), str(PER_CALL),
                          str(seed), str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for seed, (agent, out) in enumerate(zip(AGENTS, outs, strict=True))
    ]
    for proc in procs:
        log, _ = proc.communicate(timeout=280)
        assert proc.returncode == 0, log[-3000:]
    acked = {row["claim_id"]: row for out in outs for row in json.loads(out.read_text())}
    assert len(acked) == len(AGENTS) * WRITES
    outcomes = {row["outcome"] for row in acked.values()}
    assert {"active", "disputed"} <= outcomes  # both policies were exercised

    # every acknowledged write is stored exactly once, and nothing else
    claims = vault.claims()
    assert sorted(c.id for c in claims) == sorted(acked)
    check_invariants(vault)  # §7.1 and §7.2
    assert vault.check() == {p: True for p in range(PARTITIONS)}  # §7.3
    # §7.5: a client repeating writes with their claim ids changes nothing
    by_id = {c.id: c for c in claims}
    for cid in sorted(acked)[:: len(acked) // 20]:
        c = by_id[cid]
        (again,) = vault.agent(c.agent).add_facts([Fact(c.entity, c.text, c.value, claim_id=cid)],
                                                  resolve=False).decisions
        assert (again.claim_id, str(again.outcome)) == (cid, acked[cid]["outcome"])
    assert len(vault.claims()) == len(claims)

    final = {c.id: (str(c.status), c.superseded_by) for c in vault.claims()}
    disputes = {d.id: _dispute_state(d) for d in vault.disputes(None)}
    store = Path(vault.info().store)
    shutdown(namespace=namespace)  # close every log, so this process may read them
    replayed, replayed_disputes = {}, {}
    for p in range(PARTITIONS):
        claims_p, disputes_p = replay_partition(store, p, tmp_path / "replay", POLICY)
        replayed.update(claims_p)
        replayed_disputes.update(disputes_p)
    assert replayed == final
    assert replayed_disputes == disputes


def _dispute_state(d):
    return (str(d.status), d.challenger, d.incumbents, d.supporters, d.challenges,
            d.resolution.winner if d.resolution else None)


def replay_partition(store: Path, p: int, scratch: Path, policy: Policy):
    """Feed a partition's writes one after another, in the order its event log
    applied them, through the decisions of a fresh Partition; return its final claim
    statuses and disputes. (One transaction for the whole replay: a batch is decided
    item by item, each seeing the ones before, exactly as separate writes would.)"""
    log = DuckDBClaimLog(partition_path(store, p), dim=384)
    try:
        claims = {c.id: c for c in log.all_claims(with_vectors=True)}
        order = [e.claim_id for e in log.events() if e.kind == "claim_added"]
    finally:
        log.close()
    assert sorted(order) == sorted(claims)  # one claim_added event per stored claim
    scratch.mkdir(exist_ok=True)
    part = Partition(p, DuckDBClaimLog(scratch / f"p{p}.duckdb", dim=384), FlatIndex(384))
    try:
        items = [
            WriteItem(id=c.id, entity=c.entity, text=c.text, value=c.value, kind=str(c.kind), agent=c.agent,
                      session=c.session, observed_at=c.observed_at, confidence=c.confidence, meta=c.meta,
                      vector=c.embedding, cardinality=policy.cardinality_for(c.entity), aligned_from=c.aligned_from)
            for c in (claims[cid] for cid in order)
        ]
        txn = part.begin(datetime.now(UTC))
        part.decide(txn, items, policy, RuleReasoner())
        part.commit(txn)
        return ({c.id: (str(c.status), c.superseded_by) for c in part.log.all_claims()},
                {d.id: _dispute_state(d) for d in part.disputes(None)})
    finally:
        part.close()
