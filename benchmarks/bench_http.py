"""HTTP service benchmark: N concurrent agent clients x M requests on loopback, against
the Serve app in front of a cluster-mode store, beside a trivial Serve echo endpoint
measured in the same run with the same client and concurrency.

    .venv/bin/python benchmarks/bench_http.py              # 32 clients x 40 requests per scenario
    .venv/bin/python benchmarks/bench_http.py --quick      # smoke run (8 x 10)

Scenarios, each its own phase: `echo` (POST a small JSON body to an endpoint that
returns it), `facts` (one structured fact per request, `resolve=false`: a fixed
taxonomy), `facts+resolve` (the same with entity resolution), `text` (a user turn
to extract facts from) and `search` (k=5 over what the writes stored). Every client
is an agent with its own token; all share one httpx.AsyncClient (one connection per
client). The load generator runs on the same 2 cores as Ray, the replica and the
shards, so the ratio to the echo endpoint is the figure that matters; the machine's
load (uptime) before and after is recorded.

Prints its table; the full run also writes docs/benchmarks-http.md. Bounded: every
phase sends exactly N x M requests and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import host_facts  # noqa: E402

ENTITIES = 500
TEXTS = ("I'm in {tz}", "I live in {city}", "I am vegetarian", "I love {food} food", "I go to the gym at {h}am")
VALUES = {"tz": ("PST", "EST", "CET", "UTC"), "city": ("Berlin", "Paris", "Lima", "Oslo"),
          "food": ("Italian", "Thai", "Greek"), "h": ("6", "7", "8")}


@dataclass
class Phase:
    name: str
    requests: int
    seconds: float
    latencies: list[float]
    errors: int
    batch: float | None = None
    """Mean write requests decided together (from the replica's /metrics)."""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def body_for(scenario: str, agent: int, i: int) -> tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]:
    """(method, path, json, params) of request i of one agent."""
    if scenario == "echo":
        return "POST", "/echo", {"facts": [{"entity": f"bench.e{i}", "text": "the value is x", "value": "x"}]}, None
    if scenario.startswith("facts"):
        entity = f"bench.e{(agent * 7919 + i) % ENTITIES}"
        fact = {"entity": entity, "text": f"the value of {entity} is v{agent}", "value": f"v{agent}"}
        return "POST", "/v1/facts", {"facts": [fact], "resolve": scenario == "facts+resolve"}, None
    if scenario == "text":
        template = TEXTS[(agent + i) % len(TEXTS)]
        text = template.format(**{k: v[(agent + i) % len(v)] for k, v in VALUES.items()})
        return "POST", "/v1/messages", {"text": text}, None
    return "GET", "/v1/search", None, {"q": f"the value of bench.e{(agent + i) % ENTITIES}", "k": 5}


async def run_phase(base: str, scenario: str, tokens: list[str], per_client: int) -> Phase:
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=len(tokens), max_keepalive_connections=len(tokens))
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:

        async def agent(n: int) -> None:
            nonlocal errors
            headers = {"Authorization": f"Bearer {tokens[n]}"}
            for i in range(per_client):
                method, path, body, params = body_for(scenario, n, i)
                started = time.perf_counter()
                resp = await client.request(method, path, json=body, params=params, headers=headers)
                latencies.append(time.perf_counter() - started)
                errors += resp.status_code >= 400

        started = time.perf_counter()
        await asyncio.gather(*(agent(n) for n in range(len(tokens))))
        seconds = time.perf_counter() - started
    return Phase(scenario, len(latencies), seconds, latencies, errors)


def echo_deployment(max_ongoing: int) -> Any:
    from ray import serve

    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> Any:
        return await request.json()

    @serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=max_ongoing)
    @serve.ingress(app)
    class Echo:
        pass

    return Echo.bind()


def serve_everything(args: argparse.Namespace, store: Path) -> tuple[str, str, list[str]]:
    import ray
    from ray import serve

    from vault_ray import HashingEmbedder
    from vault_ray.actors import connect
    from vault_ray.actors.serve.deployment import Scaling, ServeConfig, start
    from vault_ray.tokens import TokenStore

    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False, namespace="bench")
    embedder = "hashing" if args.embedder == "hashing" else "local"
    connect("auto", namespace="bench", store=store, shards=args.shards, partitions=16,
            embedder=HashingEmbedder() if args.embedder == "hashing" else None).close()
    port = args.port
    scaling = Scaling(replicas=1, max_ongoing_requests=args.max_ongoing, ray_actor_options={"num_cpus": 0})
    url = start(ServeConfig(namespace="bench", embedder=embedder, max_batch_size=args.batch), scaling, port=port,
                name="vault", route_prefix="/vault")
    serve.run(echo_deployment(args.max_ongoing), name="echo", route_prefix="/bench")
    tokens = TokenStore.for_store(store)
    return url, f"http://127.0.0.1:{port}/bench", [tokens.add(f"agent-{i}")[0] for i in range(args.clients)]


def fill(base: str, token: str) -> None:
    """One fact on every entity first: every partition's log exists before anything is timed."""
    facts = [{"entity": f"bench.e{i}", "text": f"the value of bench.e{i} is v0", "value": "v0"} for i in range(ENTITIES)]
    resp = httpx.post(f"{base}/v1/facts", json={"facts": facts, "resolve": False},
                      headers={"Authorization": f"Bearer {token}"}, timeout=300)
    resp.raise_for_status()


def batches(base: str) -> tuple[float, float]:
    """(requests, batches) decided so far by the replica."""
    found = dict.fromkeys(("vault_write_batch_size_sum", "vault_write_batch_size_count"), 0.0)
    for line in httpx.get(f"{base}/metrics", timeout=60).text.splitlines():
        name, _, value = line.partition(" ")
        if name in found:
            found[name] = float(value)
    return found["vault_write_batch_size_sum"], found["vault_write_batch_size_count"]


def uptime() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=40, help="requests per client per scenario")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32, help="max requests decided together")
    parser.add_argument("--max-ongoing", type=int, default=64)
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks-http.md")
    args = parser.parse_args()
    if args.quick:
        args.clients, args.requests = 8, 10
    if not args.port:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            args.port = s.getsockname()[1]
    load_before = uptime()
    with tempfile.TemporaryDirectory(prefix="vrbench") as tmp:
        vault_url, echo_url, tokens = serve_everything(args, Path(tmp) / "store")
        fill(vault_url, tokens[0])
        phases = []
        for scenario in ("echo", "facts", "facts+resolve", "text", "search", "echo"):
            base = echo_url if scenario == "echo" else vault_url
            asyncio.run(run_phase(base, scenario, tokens[:4], 2))  # warm up this route
            before = batches(vault_url)
            phase = asyncio.run(run_phase(base, scenario, tokens, args.requests))
            after = batches(vault_url)
            if after[1] > before[1]:
                phase.batch = (after[0] - before[0]) / (after[1] - before[1])
            phases.append(phase)
            print(f"{scenario:14s} done", file=sys.stderr)
        from ray import serve

        serve.shutdown()
    load_after = uptime()
    report = render(args, phases, load_before, load_after)
    print(report)
    if not args.quick:
        args.out.write_text(report)
        print(f"wrote {args.out}", file=sys.stderr)


def render(args: argparse.Namespace, phases: list[Phase], before: str, after: str) -> str:
    echo_rate = statistics.mean(p.rate for p in phases if p.name == "echo")
    rows = ["| scenario | requests | req/s | x echo | p50 ms | p99 ms | p99/p50 | errors | mean batch |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in phases:
        batch = f"{p.batch:.1f}" if p.batch is not None else ""
        rows.append(f"| {p.name} | {p.requests} | {p.rate:.0f} | {p.rate / echo_rate:.2f} | {p.pct(0.5):.1f} | "
                    f"{p.pct(0.99):.1f} | {p.pct(0.99) / p.pct(0.5):.1f} | {p.errors} | {batch} |")
    facts = host_facts()
    facts.update({"ray": metadata.version("ray"), "fastapi": metadata.version("fastapi"),
                  "httpx": metadata.version("httpx")})
    command = " ".join(shlex.quote(a) for a in [".venv/bin/python", "benchmarks/bench_http.py", *sys.argv[1:]])
    return "\n".join([
        "# HTTP service benchmark",
        "",
        f"`{command}` — {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC. {args.clients} concurrent agent clients "
        f"(asyncio, httpx, one connection each) x {args.requests} requests per scenario, on loopback; one "
        f"replica (batches of up to {args.batch}, max_ongoing_requests {args.max_ongoing}), {args.shards} shard "
        f"actors over 16 partitions, the {args.embedder} embedder. `echo` is a trivial Serve endpoint (FastAPI "
        "ingress returning the posted JSON) measured in the same run with the same client and concurrency, "
        "before and after the store's scenarios; `x echo` is the rate over the mean echo rate.",
        "",
        *rows,
        "",
        f"Machine load (1, 5, 15 min) before: {before}; after: {after}. The 2 cores are shared with other "
        "work; the load generator runs on them too.",
        "",
        "| machine | |", "|---|---|", *[f"| {k} | {v} |" for k, v in facts.items()],
        "",
    ])


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    main()
