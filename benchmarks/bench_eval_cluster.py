"""The evaluation job at scale: the same `vault-ray eval` on one Ray node and on a
two-node Ray cluster (cluster/local_two_node.py, 1 CPU per node, on 127.0.0.1), with
every number compared.

    .venv/bin/python benchmarks/bench_eval_cluster.py                 # 100,000 scenarios (about an hour on 2 cores)
    .venv/bin/python benchmarks/bench_eval_cluster.py -n 400 --out /tmp/bench-eval   # a smoke run

Both runs use the default policies plus the reference rows (oracle, learned) and the same
seed, so they replay the same scenarios. The script checks that `results.parquet` (per
policy and scenario, every count), `summary.parquet` (every metric and interval) and
`comparisons.parquet` are equal, row for row, except the CPU-time column; prints wall
time, replay time, scenarios/s, replay CPU and the load average before and after each
run (the machine may be shared); and writes it all to OUT/bench.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "cluster" / "local_two_node.py"
EVAL = [sys.executable, "-m", "vault_ray.cli", "eval"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ray_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ, RAY_TMPDIR=str(tmp), RAY_USAGE_STATS_ENABLED="0", RAY_DEDUP_LOGS="0")
    env.pop("RAY_ADDRESS", None)
    return env


def run(args: list[str], env: dict[str, str], out: Path) -> dict:
    before = load()
    started = time.perf_counter()
    done = subprocess.run([*EVAL, *args, "--out", str(out)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"eval failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    meta = json.loads((out / "run.json").read_text())
    results = pq.read_table(out / "results.parquet", columns=["policy", "cpu_s", "node"])
    nodes: dict[str, int] = {}
    for node in results.column("node").to_pylist():
        nodes[node] = nodes.get(node, 0) + 1
    return {"wall_s": wall, "replay_s": meta["seconds"], "scenarios_per_s": meta["scenarios_per_s"],
            "cpu_s": sum(results.column("cpu_s").to_pylist()), "machine": meta["machine"], "rows_per_node": nodes,
            "load_before": before, "load_after": load()}


def start_cluster(tmp: Path) -> tuple[subprocess.Popen, str]:
    ready, log = tmp / "address", tmp / "cluster.log"
    with log.open("w") as f:
        proc = subprocess.Popen([sys.executable, str(CLUSTER), str(tmp), str(ready)], env=ray_env(tmp),
                                stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            sys.exit(f"the cluster did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    return proc, ready.read_text()


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the helper's own process group: its nodes
        proc.wait(timeout=10)


def same_numbers(local: Path, cluster: Path) -> dict[str, bool]:
    def table(path: Path, drop: list[str], keys: list[str]):  # type: ignore[no-untyped-def]
        t = pq.read_table(path)
        t = t.drop([c for c in drop if c in t.column_names])
        return t.sort_by([(k, "ascending") for k in keys])

    def equal(a, b) -> bool:  # type: ignore[no-untyped-def]
        if a.num_rows != b.num_rows or a.column_names != b.column_names:
            return False
        for x, y in zip(a.to_pylist(), b.to_pylist(), strict=True):
            for k in x:
                u, v = x[k], y[k]
                if u != v and not (isinstance(u, float) and isinstance(v, float) and math.isnan(u) and math.isnan(v)):
                    return False
        return True

    return {  # counts and gaps hold no NaN: Arrow's own equality, without a Python row per result
        "results": table(local / "results.parquet", ["cpu_s", "node"], ["policy", "scenario_id"]).equals(
            table(cluster / "results.parquet", ["cpu_s", "node"], ["policy", "scenario_id"])),
        "summary": equal(table(local / "summary.parquet", ["cpu_s"], ["policy"]),
                         table(cluster / "summary.parquet", ["cpu_s"], ["policy"])),
        "comparisons": equal(table(local / "comparisons.parquet", [], ["policy", "versus", "metric"]),
                             table(cluster / "comparisons.parquet", [], ["policy", "versus", "metric"])),
        "scenarios": pq.read_table(local / "scenarios").equals(pq.read_table(cluster / "scenarios")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--scenarios", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="where both runs write (default: a temp dir)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-eval-"))
    out.mkdir(parents=True, exist_ok=True)
    common = ["-n", str(args.scenarios), "--seed", str(args.seed)]
    tmp = Path(tempfile.mkdtemp(prefix="rc", dir="/tmp"))  # short: Ray's socket paths

    print(f"{args.scenarios:,} scenarios, seed {args.seed}; load average {load()}", flush=True)
    local = run([*common, "--num-cpus", "2"], ray_env(tmp), out / "local")
    print(f"one node:  {json.dumps(local)}", flush=True)
    proc, address = start_cluster(tmp)
    try:
        env = {**ray_env(tmp), "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
        two = run([*common, "--address", address], env, out / "cluster")
    finally:
        stop(proc)
    print(f"two nodes: {json.dumps(two)}", flush=True)
    checks = same_numbers(out / "local", out / "cluster")
    record = {"scenarios": args.scenarios, "seed": args.seed, "one_node": local, "two_nodes": two, "same": checks,
              "command": " ".join(["vault-ray eval", *common])}
    (out / "bench.json").write_text(json.dumps(record, indent=2))
    print(f"same numbers on one node and two: {checks}; {out / 'bench.json'}")
    if not all(checks.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
