"""Batching and concurrency over HTTP.

Requests that arrive together are decided together (`@serve.batch` -> one
`Vault.write_batch`); the `Vault-Batch` answer header says in which batch and at
which position each was decided. Replaying the same requests one at a time, in
that order, against a second store gives the very same decisions and the same
final state: batching changes the cost, never the outcome. And 16 clients writing
conflicting facts on shared entities at once leave every DESIGN §7 invariant
holding.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import httpx

from vault_ray import Fact, Policy, VaultError
from vault_ray.wire import encode

from .parity import check_invariants, normalize
from .served import served

T0 = datetime(2026, 1, 1, tzinfo=UTC)
AGENTS = ("a0", "a1", "a2", "a3")
POLICY = Policy(strategies={"auth.*": "authority"}, max_open_disputes=1000,
                authority={a: {"auth.*": w} for a, w in zip(AGENTS, (0.2, 0.4, 0.6, 0.8), strict=True)})
ENTITIES = ("user.timezone", "user.diet", "auth.key", "auth.door")
BATCH = re.compile(r"batch=(\d+); position=(\d+); size=(\d+)")


def requests(n: int, seed: int) -> list[tuple[str, dict]]:
    """Contradicting single-fact writes with fixed claim ids and event times; every
    tenth is invalid (its neighbours in a batch must not notice)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        entity, value = rng.choice(ENTITIES), rng.choice(("red", "green", "blue"))
        fact = Fact(entity, f"the {entity.split('.')[1]} is {value}", value, claim_id=f"c{seed}-{i:03d}",
                    observed_at=T0 + timedelta(minutes=rng.randrange(60)))
        body = {"facts": [encode(fact)], "resolve": False}
        if i % 10 == 7:
            body["facts"][0]["entity"] = "Not An Entity"
        out.append((rng.choice(AGENTS), body))
    return out


def post(client: httpx.Client, token: str, body: dict) -> tuple[int, dict, tuple[int, int, int] | None]:
    resp = client.post("/v1/facts", json=body, headers={"Authorization": f"Bearer {token}"})
    found = BATCH.fullmatch(resp.headers.get("vault-batch", ""))
    body = {k: v for k, v in resp.json().items() if k != "instance"}  # problem details name the app's path
    return resp.status_code, body, tuple(map(int, found.groups())) if found else None  # type: ignore[return-value]


def state(vault) -> dict:
    """The store's answers, in an order that does not depend on ties: the disputes one
    batch opens share their opened_at (the batch's time), so sort by id."""
    views = [replace(v, candidates=tuple(sorted(v.candidates, key=lambda c: c.claim.id)),
                     disputes=tuple(sorted(v.disputes, key=lambda d: d.id))) for v in map(vault.get, ENTITIES)]
    return {"views": views, "history": [sorted(vault.history(e), key=lambda c: c.id) for e in ENTITIES],
            "disputes": sorted(vault.disputes(None), key=lambda d: d.id)}


def test_a_batch_decides_as_the_same_requests_one_by_one(serve_port, tmp_path):
    sent = requests(48, seed=1)
    with served(tmp_path / "batched", serve_port, policy=POLICY) as batched, \
            served(tmp_path / "alone", serve_port, policy=POLICY) as alone:
        tokens = {a: batched.token(a) for a in AGENTS}
        with httpx.Client(base_url=batched.url, timeout=120) as client, ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda r: post(client, tokens[r[0]], r[1]), sent))
        sizes = Counter(a[2][2] for a in answers if a[2])
        assert max(sizes) > 1, f"no two requests were decided together: {sizes}"
        assert sorted(a[2][:2] for a in answers if a[2]) == sorted({a[2][:2] for a in answers if a[2]})

        order = sorted(range(len(sent)), key=lambda i: answers[i][2][:2])  # type: ignore[index]
        tokens = {a: alone.token(a) for a in AGENTS}
        with httpx.Client(base_url=alone.url, timeout=120) as client:
            replayed = {i: post(client, tokens[sent[i][0]], sent[i][1]) for i in order}
        for i in order:
            (status, body, _), (again, expected, where) = answers[i], replayed[i]
            assert where is not None and where[2] == 1  # alone in its batch
            assert (status, normalize(body)) == (again, normalize(expected)), (i, body, expected)
        assert Counter(a[0] for a in answers) == Counter({200: 43, 422: 5})
        assert normalize(state(batched.vault)) == normalize(state(alone.vault))
        check_invariants(batched.vault)


def test_sixteen_clients_writing_conflicting_facts_keep_the_invariants(serve_port, tmp_path):
    clients, writes = 16, 12
    with served(tmp_path, serve_port, policy=POLICY) as store:
        fleet = [(f"agent-{i}", store.client(f"agent-{i}")) for i in range(clients)]
        store.client("ops", admin=True).set_authority("agent-15", "auth.*", 0.9)

        def run(n: int) -> list[tuple[str, object]]:
            name, client = fleet[n]
            rng, done = random.Random(n), []
            for i in range(writes):
                entity, value = rng.choice(ENTITIES), rng.choice(("red", "green", "blue", f"v{n}"))
                fact = Fact(entity, f"the {entity.split('.')[1]} is {value}", value)
                try:
                    done.append((name, client.add_facts([fact], resolve=bool(i % 2)).decisions[0]))
                except VaultError as exc:  # a 5xx would come back as ClusterError
                    done.append((name, exc))
            return done

        with ThreadPoolExecutor(clients) as pool:
            results = [r for part in pool.map(run, range(clients)) for r in part]
        errors = Counter(type(d).__name__ for _, d in results if isinstance(d, VaultError))
        assert not errors, errors
        assert len(results) == clients * writes
        assert {str(d.outcome) for _, d in results} >= {"active", "disputed"}  # type: ignore[attr-defined]
        check_invariants(store.vault)  # §7.1 one value per 'one' entity, §7.2 supersessions and disputes name claims
        assert all(store.vault.check().values())  # §7.3 index == active claims
        stored = {c.id: c for c in store.vault.claims()}
        for name, d in results:  # §7.4 every acknowledged write is there
            claim = stored[d.claim_id]  # type: ignore[attr-defined]
            # as its token's agent; an agent repeating its own open challenge is answered with that dispute's challenger
            assert claim.agent == name or (d.dispute_id and "repeats an open challenge" in d.reason), d  # type: ignore[attr-defined]
        assert {c.agent for c in stored.values()} <= {name for name, _ in fleet}
