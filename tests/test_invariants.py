"""DESIGN.md §7 invariants 1, 2, 3, 5 and 6 as property tests over random
sequences of writes by several agents (hashing embedder, recency and authority), some of
them episodic: events are never superseded, parked nor disputed, and invariant 1 counts facts."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vault_ray import Fact, HashingEmbedder, Policy, Vault, VaultError
from vault_ray.reasoners.rules import normalized_value

T0 = datetime(2026, 3, 1, tzinfo=UTC)
AGENTS = ["a", "b", "c"]
ENTITIES = ["user.timezone", "user.diet", "user.likes"]  # user.likes is 'many' in the builtin registry
VALUES = {
    "user.timezone": ["PST", "EST", "CET"],
    "user.diet": ["vegan", "vegetarian"],
    "user.likes": ["likes:jazz", "dislikes:jazz", "likes:chess"],
}

write = st.fixed_dictionaries(
    {
        "agent": st.sampled_from(AGENTS),
        "entity": st.sampled_from(ENTITIES),
        "choice": st.integers(0, 2),
        "minute": st.integers(0, 30),
        "claim_id": st.one_of(st.none(), st.sampled_from(["id-1", "id-2", "id-3"])),
        "bad": st.sampled_from([None] * 6 + ["entity", "text", "confidence", "long", "vector"]),
        "kind": st.sampled_from(["semantic"] * 4 + ["episodic"]),  # events: never in conflict (engine/episodic.py)
    }
)
policies = st.sampled_from(
    [
        Policy(),
        Policy(default_strategy="authority", authority={"a": {"user.*": 0.9}, "b": {"user.diet": 0.2}}),
        Policy(strategies={"user.diet": "authority"}, authority={"b": {"*": 0.7}}, max_open_disputes=50),
    ]
)


def to_fact(w: dict) -> Fact:
    values = VALUES[w["entity"]]
    value = values[w["choice"] % len(values)]
    # a client id names one fact of one agent: retrying it resends that fact (same agent, entity, text and value)
    kind = w.get("kind", "semantic")
    claim_id = f"{w['agent']}:{w['entity']}:{value}:{kind}:{w['claim_id']}" if w["claim_id"] else None
    fact = Fact(w["entity"], f"{w['entity']} is {value}", value=value, observed_at=T0 + timedelta(minutes=w["minute"]),
                claim_id=claim_id, kind=kind)
    bad = w["bad"]
    if bad == "entity":
        return Fact("User.Bad Label", fact.text)
    if bad == "text":
        return Fact(fact.entity, "   ")
    if bad == "confidence":
        return Fact(fact.entity, fact.text, confidence=1.5)
    if bad == "long":
        return Fact(fact.entity, "x" * 2001)
    return fact


def snapshot(vault: Vault):
    return (
        sorted((c.id, c.status, c.superseded_by) for c in vault.claims()),
        sorted((d.id, d.status, d.challenges) for d in vault.disputes(None)),
    )


def check_invariants(vault: Vault) -> None:
    claims = {c.id: c for c in vault.claims()}
    for entity in ENTITIES:
        active = [c for c in claims.values() if c.entity == entity and c.status == "active" and c.kind != "episodic"]
        if entity != "user.likes":  # invariant 1: one active value on a 'one' entity
            assert len({normalized_value(c) for c in active}) <= 1, active
        else:
            for c in active:  # a 'many' entity never holds both polarities of one object
                pol, _, obj = (c.value or "").partition(":")
                assert not any(o.value == f"{'dislikes' if pol == 'likes' else 'likes'}:{obj}" for o in active)
    for c in claims.values():  # invariant 2
        if c.status == "superseded":
            assert c.superseded_by in claims
            assert c.id in claims[c.superseded_by].supersedes, (c, claims[c.superseded_by])  # they name each other
    events = {c.id for c in claims.values() if c.kind == "episodic"}
    assert all(claims[e].status == "active" for e in events)  # an event is never superseded nor parked
    assert not any(claims[e].supersedes for e in events)  # and replaces nothing
    for d in vault.disputes(None):
        assert not {d.challenger, *d.incumbents, *d.supporters} & events  # nor takes part in a dispute
        assert d.challenger in claims and all(i in claims for i in d.incumbents)
        if d.status == "open":
            assert claims[d.challenger].status == "disputed"
    assert all(vault.check().values())  # invariant 3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(writes=st.lists(st.lists(write, min_size=1, max_size=3), min_size=1, max_size=14), policy=policies)
def test_invariants_hold_over_random_writes(writes, policy):
    root = tempfile.mkdtemp()
    try:
        with Vault.open(root, embedder=HashingEmbedder(64), policy=policy, partitions=4) as vault:
            first_decision: dict[str, object] = {}
            for batch in writes:
                agent = batch[0]["agent"]  # the batch's writer (its ids are its own)
                facts = [to_fact({**w, "agent": agent}) for w in batch]
                vectors = None
                if any(w["bad"] == "vector" for w in batch):
                    vectors = [[float("nan")] * 64 for _ in facts]
                before = snapshot(vault)
                ids = [f.claim_id for f in facts if f.claim_id is not None]
                refused = any(w["bad"] for w in batch) or len(ids) != len(set(ids))  # one id twice in one call
                try:
                    result = vault.agent(agent).add_facts(facts, vectors=vectors, resolve=False)
                except VaultError:
                    # invariant 6: a batch with one bad fact is rejected whole, nothing changes
                    assert refused
                    assert snapshot(vault) == before
                    continue
                assert not refused
                for fact, decision in zip(facts, result.decisions, strict=True):
                    if fact.claim_id is None:
                        continue
                    # invariant 5: one client id is applied once, and answers the same decision
                    first_decision.setdefault(fact.claim_id, decision)
                    assert decision == first_decision[fact.claim_id]
                check_invariants(vault)
            ids = [c.id for c in vault.claims()]
            assert len(ids) == len(set(ids))
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("bad", ["entity", "text", "confidence", "long"])
def test_bad_fact_in_batch_rejects_whole_batch(vault, bad):
    good = Fact("user.diet", "The user is vegan", "vegan")
    broken = to_fact({"agent": "a", "entity": "user.diet", "choice": 0, "minute": 0, "claim_id": None, "bad": bad})
    with pytest.raises(VaultError):
        vault.agent("a").add_facts([good, broken])
    assert vault.history("user.diet") == []
