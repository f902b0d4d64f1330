"""`vault-ray up` on a store whose restore was cut short: one warning line, the store is
served, its reads answer and its changes are refused for every command that reaches it,
until the same `vault-ray import --address` finishes the restore (backends/unfinished.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from interrupting import ctrl_c_after

from vault_ray import Fact, HashingEmbedder, Vault

VAULT_RAY = str(Path(sys.executable).with_name("vault-ray"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return subprocess.run([VAULT_RAY, *args], capture_output=True, text=True, timeout=300,
                          env={**env, "COLUMNS": "500"})


def test_up_serves_a_half_restored_store_and_the_same_import_finishes_it(gcs_address, tmp_path):
    with Vault.open(tmp_path / "source", embedder=HashingEmbedder(), partitions=4) as source:
        source.agent("ops").add_facts([Fact(f"user.pref.p{i}", f"The user's preference {i} is blue", "blue")
                                       for i in range(12)], resolve=False)
        source.export(tmp_path / "export")
    store = tmp_path / "copy"
    vault = Vault.open(store, embedder=HashingEmbedder(), partitions=4)
    with ctrl_c_after(vault._backend, "restore_partition", 2), pytest.raises(KeyboardInterrupt):
        vault.import_from(tmp_path / "export")
    vault.close()
    target = ["--address", gcs_address, "--namespace", f"half-{uuid.uuid4().hex[:8]}"]
    up = run("up", "--store", str(store), *target, "--hashing")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        warned = [line for line in up.stderr.splitlines() if line.startswith("warning:")]
        assert len(warned) == 1 and "unfinished restore" in warned[0] and "partial" in warned[0], up.stderr
        assert f"--namespace {target[-1]}" in warned[0]
        read = run("get", "user.pref.p1", *target, "--hashing")
        assert read.returncode == 0 and "unfinished restore" in read.stderr, read.stdout + read.stderr
        refused = run("forget", "user.pref.p1", "--by", "ops", *target, "--hashing")
        assert refused.returncode == 4 and "error: this write was refused" in refused.stderr, refused.stderr
        exported = run("export", "--out", str(tmp_path / "out"), *target)
        assert exported.returncode == 4 and "this export was refused" in exported.stderr, exported.stderr
        finished = run("import", str(tmp_path / "export"), *target)
        assert finished.returncode == 0 and "interrupted run" in finished.stdout, finished.stdout + finished.stderr
        forgot = run("forget", "user.pref.p1", "--by", "ops", *target, "--hashing")
        assert forgot.returncode == 0 and forgot.stderr == "", forgot.stdout + forgot.stderr
    finally:
        run("down", *target)
    assert not (store / "restoring.json").exists()
