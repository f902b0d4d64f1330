"""Point in time in cluster mode (QA R11): `get`/`search` with `as_of` replay each dispute
from its events on the shard actors too (the same `engine/timeline.py`), so what `get` and
`search` answered at t is what `as_of=t` answers later, after retractions, updates and
resolutions, and after the shards restart (they rebuild from their logs)."""

from __future__ import annotations

import time

import ray

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.models import utcnow

ENTITIES = ("user.location", "user.budget")
QUERIES = ("where does the user live", "the user's budget")
AGENTS = ("p", "q", "s", "a", "b")


def observe(vault, at=None):
    views = {}
    for e in ENTITIES:
        v = vault.get(e, as_of=at)
        views[e] = (tuple(c.id for c in v.active), v.contested,
                    tuple((c.claim.id, str(c.claim.status), c.dispute_id) for c in v.candidates),
                    tuple((d.id, str(d.status), d.challenger, d.incumbents, d.supporters, d.needs_user)
                          for d in v.disputes))
    def key(hits):
        return sorted((h.claim.id, h.contested, tuple(sorted(a.id for a in h.alternatives))) for h in hits)
    hits = {q: key(vault.search(q, k=20, as_of=at)) for q in QUERIES}
    # the filters of a search now, on the claims of then: an agent's parked claims too (QA2 F8)
    hits |= {f"agent={x}": key(vault.search(QUERIES[0], k=20, agent=x, as_of=at)) for x in AGENTS}
    hits |= {f"entity={e}": key(vault.search(QUERIES[1], k=20, entity=e, as_of=at)) for e in ENTITIES}
    return views, hits


def test_as_of_in_cluster_mode_answers_what_the_store_answered_then(cluster):
    vault = cluster(shards=2, partitions=4)
    vault.set_strategy("user.location", "authority")
    vault.set_authority("p", "user.location", 0.9)
    seen = []

    def say(agent, entity, value):
        (d,) = vault.agent(agent).add_facts(Fact(entity, f"{entity} is {value}", value), resolve=False).decisions
        time.sleep(0.002)
        seen.append((utcnow(), observe(vault)))
        time.sleep(0.002)
        return d

    def step(call):
        call()
        time.sleep(0.002)
        seen.append((utcnow(), observe(vault)))
        time.sleep(0.002)

    say("p", "user.location", "Paris")
    q = say("q", "user.location", "Berlin")  # a dispute: q challenges p
    say("s", "user.location", "Berlin")  # a supporter
    step(lambda: vault.retract(q.claim_id, decided_by="user"))  # s takes the challenge
    say("p", "user.location", "Rome")  # the incumbent's agent updates its value
    a = say("a", "user.budget", "$5000")
    b = say("b", "user.budget", "$9000")  # high stakes: waits for the user
    step(lambda: vault.retract(a.claim_id, decided_by="user"))  # open, without incumbents
    step(lambda: vault.resolve_dispute(b.dispute_id, b.claim_id, decided_by="user"))
    assert len({str(answer) for _, answer in seen}) >= 6
    for at, answered in seen:
        assert observe(vault, at) == answered, at
    namespace = vault.info().namespace
    for i in range(2):  # restarted shards rebuild from their logs: the past reads the same
        ray.kill(ray.get_actor(f"vault-shard-{i}", namespace=namespace), no_restart=False)
    with Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder()) as again:
        for at, answered in seen:
            assert observe(again, at) == answered, at
