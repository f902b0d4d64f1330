"""QA round 98 L6: `Vault.connect("auto")` on a machine where several Ray clusters run (a
shared host, a test's Ray beside `vault-ray up`'s) refuses to guess, and a Ray cluster
that serves no vault-ray store in the namespace says which cluster it joined, where it
does serve one, and to pass the address `vault-ray up` printed.

The second Ray cluster is a real one, started by a helper process; the client that asks
for "auto" is a fresh process (this one is joined to the session's Ray already)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from vault_ray import ClusterError, HashingEmbedder, Vault

SECOND_RAY = """
import sys, ray
ctx = ray.init(address="local", num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
               _temp_dir=sys.argv[1])
print(ctx.address_info["gcs_address"], flush=True)
sys.stdin.read()  # until the test closes it
"""

CONNECT = """
import sys
from vault_ray import HashingEmbedder, Vault, VaultError
try:
    Vault.connect(sys.argv[1], namespace="vault", embedder=HashingEmbedder(), store=sys.argv[2] if len(sys.argv) > 2 else None)
except VaultError as exc:
    print(type(exc).__name__, exc)
"""


def client_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), os.getcwd()) if p)
    return env


@pytest.fixture
def second_ray(ray_session, tmp_path_factory):
    """Another Ray cluster on this machine, beside the session's: its GCS address."""
    temp = tmp_path_factory.mktemp("r2", numbered=True)
    proc = subprocess.Popen([sys.executable, "-c", SECOND_RAY, str(temp)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=client_env())
    try:
        address = proc.stdout.readline().strip()
        assert address, "the second Ray did not start"
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def connect_in_a_new_process(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", CONNECT, *args], capture_output=True, text=True, timeout=120,
                          env=client_env())
    assert done.returncode == 0, done.stderr[-2000:]
    return " ".join(done.stdout.split())


def test_auto_with_several_ray_clusters_here_refuses_and_names_them(gcs_address, second_ray, tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "cluster.json").write_text('{"head": {"address": "127.0.0.1:6399"}}')  # what `vault-ray up` records
    said = connect_in_a_new_process("auto", str(store))
    assert said.startswith("ClusterError address 'auto' is ambiguous"), said
    assert gcs_address in said and second_ray in said  # the clusters it found, the session's and the other
    assert "`vault-ray up` printed" in said and "Vault.connect('HOST:PORT'" in said
    assert "127.0.0.1:6399" in said  # the address the store's `vault-ray up` recorded
    # an address names the one meant: that cluster is joined, and says it serves no store there, naming
    # the address as typed (127.0.0.1) and Ray's name for the cluster (its head's address on the network)
    host, _, port = second_ray.rpartition(":")
    said = connect_in_a_new_process(f"127.0.0.1:{port}")
    assert said.startswith("ClusterError no vault-ray cluster serves namespace 'vault'")
    assert f"on the Ray cluster at 127.0.0.1:{port}" in said and "vault-ray up" in said
    assert host == "127.0.0.1" or f"(Ray's name for it: {second_ray})" in said


def test_a_ray_cluster_without_the_store_says_where_stores_are_served(cluster):
    served = cluster().info().namespace  # a store in a namespace of its own, on the session's Ray
    with pytest.raises(ClusterError) as caught:
        Vault.connect("auto", namespace=f"nothing-{uuid.uuid4().hex[:6]}", embedder=HashingEmbedder())
    said = str(caught.value)
    assert "no vault-ray cluster serves namespace 'nothing-" in said and "on the Ray cluster at " in said
    assert repr(served) in said or "..." in said  # the namespaces that do serve one (the first five)
    assert "pass the address `vault-ray up` printed" in said and "vault-ray up --store PATH" in said
