"""A store worth exporting: the seed scenarios plus a few thousand generated claims
(supersedes, late arrivals, disputes, resolutions), and the reads that must agree
between a store and its copy. Shared by the embedded and cluster-mode bulk tests."""

from __future__ import annotations

import random
from datetime import timedelta

from scenarios import T0, authority_dispute, late_arrival, recency_supersede

from vault_ray import DisputeError, Fact, Vault, VaultError, WriteRequest

AGENTS = [f"agent-{i}" for i in range(5)]
VALUES = ["red", "green", "blue", "amber", "violet", "teal"]
TOPICS = ["jazz", "chess", "hiking", "opera", "sushi"]
GENERATED = ("user.auth.", "user.cons.", "user.pref.", "user.tags.")
QUERIES = ["what timezone is the user in?", "what food does the user like?", "the user's auth setting is blue",
           "the user likes jazz", "diet"]


def configure(vault: Vault) -> None:
    """Strategies and weights that make the generated claims supersede, dispute and settle."""
    vault.set_strategy("user.auth.*", "authority")
    vault.set_strategy("user.cons.*", "consensus")
    vault.set_cardinality("user.tags.*", "many")
    for i, agent in enumerate(AGENTS):
        vault.set_authority(agent, "user.auth.*", round(0.9 - 0.2 * i, 2))


def generated_requests(n: int, seed: int) -> list[WriteRequest]:
    rng = random.Random(seed)
    requests = []
    for i in range(n):
        family = rng.choice(["pref", "auth", "cons", "tags"])
        number = rng.randrange(60)
        when = T0 + timedelta(minutes=i, seconds=rng.randrange(-600, 600))  # some arrive late
        if family == "tags":
            topic = rng.choice(TOPICS)
            polarity = rng.choice(["likes", "dislikes"])
            fact = Fact(f"user.tags.t{number}", f"The user {polarity} {topic}", f"{polarity}:{topic}", observed_at=when)
        else:
            value = rng.choice(VALUES)
            fact = Fact(f"user.{family}.e{number}", f"The user's {family} setting {number} is {value}", value,
                        observed_at=when, confidence=rng.choice([0.6, 0.8, 1.0]))
        requests.append(WriteRequest(rng.choice(AGENTS), facts=[fact], session=f"s{i % 7}", resolve=False))
    return requests


def fill(vault: Vault, *, claims: int = 2500, seed: int = 7) -> None:
    """The seed scenarios, then `claims` generated writes, then some disputes resolved."""
    configure(vault)
    authority_dispute(vault)
    recency_supersede(vault)
    late_arrival(vault)
    requests = generated_requests(claims, seed)
    for start in range(0, len(requests), 250):
        vault.write_batch(requests[start:start + 250])  # a refused request (a dispute cap) is part of the story
    rng = random.Random(seed)
    generated = [d for d in vault.disputes() if d.entity.startswith(GENERATED)]  # the seed dispute stays open
    for i, d in enumerate(generated):
        if i % 3:
            continue
        try:
            if d.entity.startswith("user.tags.") and i % 2:
                vault.resolve_dispute(d.id, keep_both=True, decided_by="user", note="both hold")
            else:
                vault.resolve_dispute(d.id, rng.choice([d.challenger, *d.incumbents]), decided_by="user", note="checked")
        except (DisputeError, VaultError):
            continue


def searches(vault: Vault, k: int = 8) -> dict:
    """Each query's hits above the k-th hit's score (which hits tie at the cut, and in what
    order tied hits come, is arbitrary), by score then id. Scores decay with the time of
    the call: three decimals are stable across a test."""
    out = {}
    for q in QUERIES:
        hits = [(round(h.score, 3), h.claim.id, h.contested) for h in vault.search(q, k=k)]
        cut = hits[-1][0] if len(hits) == k else -1.0
        out[q] = sorted((h for h in hits if h[0] > cut), key=lambda h: (-h[0], h[1]))
    return out


def reads(vault: Vault, *, explain: bool = True) -> dict:
    """Everything a user can read, keyed so two stores can be compared."""
    claims = sorted(vault.claims(), key=lambda c: c.id)
    entities = sorted({c.entity for c in claims})
    # explain: every 12th claim and the claims of every 6th dispute. The whole of its input
    # (claims, events, disputes) is compared in full; this checks what it makes of them.
    sample = sorted(vault.disputes(None), key=lambda d: d.id)[::6]
    members = {cid for d in sample for cid in (d.challenger, *d.incumbents, *d.supporters)}
    explained = claims[::12] + [c for c in claims if c.id in members] if explain else []
    return {
        "claims": claims,
        "views": vault.get_many(entities),
        "history": {e: vault.history(e) for e in entities},
        "events": {e: vault.events(entity=e) for e in entities},
        "disputes": sorted(vault.disputes(None), key=lambda d: d.id),
        "open": sorted(d.id for d in vault.disputes()),
        "explain": {c.id: vault.explain(c.id).text() for c in explained},
        "search": searches(vault),
        "policy": vault.policy.to_dict(),
        "registry": vault.registry.to_list(),
    }
