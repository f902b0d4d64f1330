"""Issue 12: the bulk jobs' Ray Data stages on a two-node Ray cluster (1 CPU each, on
127.0.0.1; see test_eval_cluster.py for how it is started and the loopback caveat).

The store is an embedded one, held by the job's own process (`vault-ray ... --store
PATH --address GCS`); the embedding actor pools of reindex and normalize run one actor
on each node, and normalize's pair scoring runs in tasks on both."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pyarrow.parquet as pq
import pytest
from bulk_data import configure, generated_requests
from drifted import write_drifted

from vault_ray import Fact, HashingEmbedder, LocalEmbedder, Vault

from .test_eval_cluster import ray_env, two_node_cluster  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow
JOB_TIMEOUT_S = 420


def run_cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "vault_ray.cli", *args], env=env, capture_output=True, text=True,
                          timeout=JOB_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_reindex_and_normalize_spread_their_actor_pools_over_both_nodes(two_node_cluster, tmp_path):  # noqa: F811
    address, tmp = two_node_cluster  # starting in the background while the store is filled
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(dim=64), partitions=4) as vault:
        write_drifted(vault)
        # written before the registry named `user.dwelling` an alias of user.location
        vault.agent("agent-z").add_facts([Fact("user.dwelling", "The user lives in Oslo", "Oslo")], resolve=False)
        entry = vault.registry.lookup("user.location")
        vault.register(replace(entry, aliases=(*entry.aliases, "user.dwelling")), check_claims=False)
        configure(vault)
        vault.write_batch(generated_requests(300, seed=11))
    env = ray_env(tmp)
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # keep 127.0.0.1 as given
    gcs = address()
    pool = ["--address", gcs, "--actors", "2", "--cpus-per-actor", "1"]

    out = run_cli(env, "reindex", "--store", str(store), "--embedder", "local", "--batch-size", "32", *pool)
    print("\n" + out)
    assert "on 2 Ray nodes" in " ".join(out.split()) and "hashing-64 (64) -> all-MiniLM-L6-v2 (384)" in out

    # hashing similarity vectors here (the local model's plan is tests/integration/test_normalize.py's):
    # the same Ray Data stages, without loading the model on both nodes once more
    out = run_cli(env, "normalize", "--store", str(store), "--out", str(tmp_path / "plan"), "--embedder", "hashing", *pool)
    print(out)
    assert "on 2 Ray nodes" in " ".join(out.split())
    merges = [r for r in pq.read_table(tmp_path / "plan" / "plan.parquet").to_pylist() if r["action"] == "merge"]
    assert ("user.dwelling", "user.location", "registry alias") in {(r["from_label"], r["to_label"], r["decided_by"])
                                                                 for r in merges}
    assert not any("user.work_schedule" in (r["from_label"], r["to_label"]) for r in merges)

    with Vault.open(store, embedder=LocalEmbedder()) as vault:
        assert vault.info().dim == 384 and all(vault.check().values())
        assert "The user is in PST" in [h.claim.text for h in vault.search("what timezone is the user in?", k=3)]
