"""The same eval job runs on a laptop and on a Ray cluster.

A two-node Ray cluster (1 CPU each) is started on this machine, on 127.0.0.1 only, in a
helper process of its own (this test process already belongs to the session's Ray, see
conftest.py, and cannot join another one). `vault-ray eval --address` runs against it in
a subprocess; both nodes must replay scenarios, and the metrics must equal, exactly,
those of the same command run on the session's single-node Ray.

Two things about Ray on one machine: `ray.init(address="127.0.0.1:PORT")` rewrites the
loopback host to the machine's routable IP (`resolve_ip_for_localhost`), where a GCS
started with node_ip_address=127.0.0.1 does not listen, unless the driver's
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER is 0 (then Ray's own IP is the loopback one); and
`ray start --node-ip-address 127.0.0.1` applies the same rewrite, so the cluster is built
with ray.cluster_utils.Cluster, which keeps the address given (cluster/local_two_node.py).
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vault_ray.cli import app

# 4 batches of 50 for 2 one-CPU nodes: both get work, and the test stays near a minute on this
# (shared, 2-core) machine; 400 scenarios in batches of 100 took 134 s under a load average of 9.
ARGS = ["-n", "200", "--block-size", "50", "--policies", "lww,recency,authority", "--seed", "3"]
START_TIMEOUT_S = 90
EVAL_TIMEOUT_S = 150
# Starts the head and one worker node in its own process (and process group), writes the
# GCS address to a file, and removes both nodes on SIGTERM.
CLUSTER = Path(__file__).resolve().parents[2] / "cluster" / "local_two_node.py"


def ray_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, RAY_TMPDIR=str(tmp), RAY_USAGE_STATS_ENABLED="0", RAY_DEDUP_LOGS="0")
    env.pop("RAY_ADDRESS", None)
    return env


@pytest.fixture
def two_node_cluster(tmp_path_factory):
    """The GCS address of a fresh two-node cluster on 127.0.0.1; torn down after the test."""
    tmp = tmp_path_factory.mktemp("rc")  # short: Ray's socket paths must stay under ~107 characters
    ready, log = tmp / "address", tmp / "cluster.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, str(CLUSTER), str(tmp), str(ready)], env=ray_env(tmp),
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def address() -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the cluster did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        return ready.read_text()

    try:
        yield address, tmp
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the helper's own process group: its nodes
            proc.wait(timeout=10)


def same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def test_eval_on_a_two_node_cluster_spreads_the_work_and_changes_no_number(two_node_cluster, ray_session, tmp_path):
    address, tmp = two_node_cluster  # starting in the background while the local run replays
    ray_session  # noqa: B018  (the local run: the same command on the session's one-node Ray)
    local = tmp_path / "local"
    t0 = time.perf_counter()
    result = CliRunner().invoke(app, ["eval", *ARGS, "--out", str(local)])
    assert result.exit_code == 0, result.output

    out = tmp_path / "cluster"
    env = ray_env(tmp)
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # keep 127.0.0.1 as given (see the module docstring)
    t1 = time.perf_counter()
    gcs = address()
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "vault_ray.cli", "eval", *ARGS, "--address", gcs, "--out", str(out)],
                         env=env, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
    wall = time.perf_counter() - started
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    meta = json.loads((out / "run.json").read_text())
    results = pq.read_table(out / "results.parquet")
    nodes = Counter(results.column("node").to_pylist())
    print(f"\nlocal run {t1 - t0:.1f} s, waited {started - t1:.1f} s for the cluster; 2-node cluster run {wall:.1f} s "
          f"wall, {meta['seconds']:.1f} s replay, result rows per node {dict(nodes)}; {meta['machine']}")
    assert meta["nodes"] == 2 and meta["cpus"] == 2 and meta["scenarios"] == 200
    assert pq.read_table(out / "scenarios").equals(pq.read_table(local / "scenarios"))  # the same input
    assert len(nodes) == 2 and "" not in nodes, nodes  # both nodes replayed scenarios
    assert results.num_rows == 200 * 4 + 100  # and the oracle, and learned authority on the odd half

    # Same counts per (policy, scenario), and the same metrics, exactly (cpu_s is a timing).
    def counts(path: Path) -> list[dict]:
        table = pq.read_table(path).drop(["cpu_s", "node"])
        return sorted(table.to_pylist(), key=lambda r: (r["policy"], r["scenario_id"]))

    assert counts(out / "results.parquet") == counts(local / "results.parquet")
    cluster_rows = pq.read_table(out / "summary.parquet").drop(["cpu_s"]).to_pylist()
    local_rows = pq.read_table(local / "summary.parquet").drop(["cpu_s"]).to_pylist()
    assert [r["policy"] for r in cluster_rows] == [r["policy"] for r in local_rows] == \
        ["lww", "recency", "authority", "oracle", "learned"]
    for c, lo in zip(cluster_rows, local_rows, strict=True):  # the intervals too: the same counts, the same draws
        differ = {k: (c[k], lo[k]) for k in c if not same(c[k], lo[k])}
        assert not differ, (c["policy"], differ)
    assert pq.read_table(out / "comparisons.parquet").equals(pq.read_table(local / "comparisons.parquet"))

    # The scenario files are read on the driver's node only (they may be on its disk only);
    # the replays ran on both nodes (above). The reader is wrapped to report where it ran.
    parts = tmp_path / "parts"  # 8 files, 8 read tasks: unpinned, some would land on the other node
    parts.mkdir()
    scenarios = pq.read_table(out / "scenarios")
    for i in range(8):
        pq.write_table(scenarios.slice(25 * i, 25), parts / f"part-{i}.parquet")
    probe = subprocess.run([sys.executable, "-c", READ_PROBE, gcs, str(parts)], env=env,
                           capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
    assert probe.returncode == 0, probe.stdout[-2000:] + probe.stderr[-3000:]
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    assert report["rows"] == 200 and report["files"] == 8
    assert set(report["read_on"]) == {report["driver"]}, report


READ_PROBE = """
import json, sys
import pyarrow as pa
import ray
from vault_ray.evals import job

ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
read = job._read_files

def located(batch):  # defined in __main__: shipped by value, and job.read_on_driver_node calls it
    table = read(batch)
    return table.append_column("read_on", pa.array([ray.get_runtime_context().get_node_id()] * table.num_rows))

job._read_files = located
files = job.scenario_files(sys.argv[2])
rows = job.read_on_driver_node(files).select_columns(["read_on"]).take_all()
print(json.dumps({"rows": len(rows), "files": len(files), "read_on": sorted({r["read_on"] for r in rows}),
                  "driver": ray.get_runtime_context().get_node_id()}))
"""
