"""Issue 12: reindex an embedded store from hashing vectors to the local model, with the
job killed mid-way (SIGKILL, in a process of its own) and run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from bulk_data import fill, reads

from vault_ray import HashingEmbedder, LocalEmbedder, StoreMismatch, Vault
from vault_ray.storage import StoreReader

pytestmark = pytest.mark.slow

OLD = HashingEmbedder(dim=64)
KILL_TIMEOUT_S = 240
# Joins the session's Ray, reindexes the store and prints progress; the test kills it.
DRIVER = """
import sys
from vault_ray.backends.connect import ensure_ray
ensure_ray(sys.argv[1])
from vault_ray.evals.reindex import reindex
reindex("local", store=sys.argv[2], batch_size=16, on_progress=lambda done, total: print(done, total, flush=True))
print("finished", flush=True)
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("reindex") / "store"
    with Vault.open(path, embedder=OLD, partitions=8) as vault:
        fill(vault, claims=1000, seed=3)  # ~950 claims: size plays no part in a resume
        expected = reads(vault, explain=False)
    return path, expected


def kill_mid_way(gcs_address: str, store) -> tuple[int, int]:
    """Run the job in a child process and SIGKILL it once some, not all, vectors are staged."""
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, gcs_address, str(store)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    deadline = time.monotonic() + KILL_TIMEOUT_S
    seen = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            seen.append(line)
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and 0 < int(parts[0]) < int(parts[1]):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
                return int(parts[0]), int(parts[1])
            if time.monotonic() > deadline:
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    pytest.fail("the job was not caught mid-way:\n" + "".join(seen[-40:]))


def test_reindex_to_the_local_model_survives_a_kill_and_resumes(ray_session, gcs_address, store):
    from vault_ray.evals.reindex import reindex

    path, expected = store
    staged, total = kill_mid_way(gcs_address, path)
    assert total == len(expected["claims"]) > 900

    # the store is on its old embedder, whole and searchable
    with Vault.open(path, embedder=OLD) as vault:
        assert vault.info().dim == 64
        assert vault.search("what timezone is the user in?", k=1)[0].claim.text == "The user is in PST"
        assert all(vault.check().values())
        assert reads(vault, explain=False) == expected

    progress = []
    result = reindex("local", store=path, batch_size=64, on_progress=lambda done, total: progress.append(done))
    print(f"\nkilled after {staged}/{total} claims; the rerun embedded {result.embedded} ({result.texts} distinct texts) "
          f"in {result.embed_seconds:.1f} s, {result.claims_per_s:.0f} claims/s")
    assert (result.old_embedder, result.old_dim, result.embedder, result.dim) == ("hashing-64", 64, "all-MiniLM-L6-v2", 384)
    assert result.claims == total and staged <= result.claims - result.embedded < total  # it resumed
    assert progress[0] == result.claims - result.embedded and progress[-1] == total

    local = LocalEmbedder()
    with Vault.open(path, embedder=local) as vault:
        assert vault.info().dim == 384 and all(vault.check().values())
        hit = vault.search("what timezone is the user in?", k=1)[0]
        assert hit.claim.text == "The user is in PST" and hit.contested  # the seed facts, found by the new model
        for query, text in [("does the user like Italian food?", "The user hates Italian food"),
                            ("which cuisine does the user eat?", "The user only eats Japanese"),
                            ("is the user vegetarian?", "The user is vegan")]:
            assert text in [h.claim.text for h in vault.search(query, k=3)], query
        got = reads(vault, explain=False)
    for key in ("claims", "views", "history", "events", "disputes", "open"):
        assert got[key] == expected[key], key
    rows = StoreReader(path).claims(["text", "embedding"]).to_pylist()
    assert {len(r["embedding"]) for r in rows} == {384 * 4}  # every claim, superseded ones too
    sample = rows[::97]
    vectors = local.embed([r["text"] for r in sample])
    for r, v in zip(sample, vectors, strict=True):
        assert np.allclose(np.frombuffer(r["embedding"], np.float32), v, atol=1e-5)
    with pytest.raises(StoreMismatch, match="vault-ray reindex"):
        Vault.open(path, embedder=OLD)
