"""DESIGN.md §7 invariants 1, 2, 3, 5 and 6 with every strategy in the mix: random
policies (recency with and without a near-simultaneous window, authority, consensus,
judge; judge or dispute on ambiguity; high stakes; auto-resolve rules; dispute caps),
a scripted judge that wins, loses or shrugs, and random writes, retries, bad batches,
resolutions and rule runs. Invariant 3 is checked with `Partition.index_matches_log`."""

from __future__ import annotations

import itertools
import tempfile
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from vault_ray import (
    AutoResolveRules,
    DisputeError,
    Fact,
    HashingEmbedder,
    InvalidInput,
    Judgement,
    Policy,
    ScriptedReasoner,
    Vault,
    VaultError,
)
from vault_ray.models import utcnow
from vault_ray.policy import STRATEGIES
from vault_ray.reasoners.rules import normalized_value

T0 = datetime(2026, 3, 1, tzinfo=UTC)
AGENTS = ("a", "b", "c", "d")
VALUES = {
    "user.diet": ("vegan", "vegetarian", "pescatarian"),
    "user.timezone": ("PST", "EST"),
    "user.payment.method": ("visa", "paypal"),  # high stakes by default
    "user.likes": ("likes:jazz", "dislikes:jazz", "likes:chess"),  # 'many' in the builtin registry
}
ENTITIES = tuple(VALUES)
MANY = {"user.likes"}


@st.composite
def policies(draw) -> Policy:
    return Policy(
        default_strategy=draw(st.sampled_from(STRATEGIES)),
        strategies={e: draw(st.sampled_from(STRATEGIES)) for e in ENTITIES if draw(st.booleans())},
        authority={a: {"*": draw(st.sampled_from([0.1, 0.5, 0.9, 1.0]))} for a in AGENTS if draw(st.booleans())},
        near_simultaneous_s=draw(st.sampled_from([0.0, 30.0, 600.0])),
        default_on_ambiguous=draw(st.sampled_from(["judge", "dispute"])),
        consensus_margin=draw(st.sampled_from([0.0, 0.5, 1.0])),
        max_open_disputes=draw(st.sampled_from([1, 3])),
        rules=AutoResolveRules(reasserted_by=draw(st.sampled_from([None, 2, 3])),
                               stale_after_s=draw(st.sampled_from([None, 60.0]))),
    )


fact_spec = st.fixed_dictionaries({
    "agent": st.sampled_from(AGENTS),
    "entity": st.sampled_from(ENTITIES),
    "choice": st.integers(0, 2),
    "at": st.integers(0, 40).map(lambda n: n * 15),  # seconds: near-simultaneous and clearly ordered
    "bad": st.sampled_from([None] * 20 + ["entity", "text", "confidence", "long"]),
})
writes = st.tuples(st.just("write"), st.lists(fact_spec, min_size=1, max_size=3))
operations = st.one_of(
    writes, writes, writes, writes,  # mostly writes, so that contradictions pile up
    st.tuples(st.just("retry"), st.integers(0, 50)),
    st.tuples(st.just("resolve"), st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans())),
    st.tuples(st.just("rules"), st.sampled_from([0, 30, 3600])),
)


def to_fact(spec: dict, n: int) -> Fact:
    # offsets by the running fact number: even the simplest draws (all zeros) make
    # different values on one entity, i.e. contradictions
    values = VALUES[spec["entity"]]
    value = values[(spec["choice"] + n) % len(values)]
    fact = Fact(spec["entity"], f"{spec['entity']} is {value}", value=value,
                observed_at=T0 + timedelta(seconds=spec["at"]), claim_id=f"c{n}")
    return {
        None: fact,
        "entity": Fact("User.Bad Label", fact.text),
        "text": Fact(fact.entity, "   "),
        "confidence": Fact(fact.entity, fact.text, confidence=-0.1),
        "long": Fact(fact.entity, "x" * 2001),
    }[spec["bad"]]


def snapshot(vault: Vault):
    return (
        sorted((c.id, c.status, c.superseded_by) for c in vault.claims()),
        sorted((d.id, d.status, d.challenges, d.supporters) for d in vault.disputes(None)),
    )


def check_invariants(vault: Vault) -> None:
    claims = {c.id: c for c in vault.claims()}
    disputes = vault.disputes(None)
    for entity in ENTITIES:
        active = [c for c in claims.values() if c.entity == entity and c.status == "active"]
        kept_both = any(d.entity == entity and d.resolution and d.resolution.keep_both for d in disputes)
        if entity not in MANY:  # invariant 1: at most one active value
            assert len({normalized_value(c) for c in active}) <= 1, active
        elif not kept_both:  # never both polarities of one object, unless a person chose to keep both
            for c in active:
                pol, _, obj = (c.value or "").partition(":")
                assert not any(o.value == f"{'dislikes' if pol == 'likes' else 'likes'}:{obj}" for o in active)
        view = vault.get(entity)
        assert view.contested == any(d.status == "open" and d.entity == entity for d in disputes)
        if view.contested:  # nothing is hidden while a dispute is open
            assert {c.id for c in view.active} <= {c.claim.id for c in view.candidates}
    open_members = set()
    for d in disputes:  # invariant 2: disputes name claims that exist
        members = (d.challenger, *d.incumbents, *d.supporters)
        assert all(m in claims for m in members), d
        if d.status == "open":
            assert claims[d.challenger].status == "disputed"  # invariant 1: the challenger is parked
            open_members.update((d.challenger, *d.supporters))
            # values held in a dispute that waits for a person with no standing incumbent (engine/waiting.py)
            open_members.update(i for i in d.incumbents if claims[i].status == "disputed")
        else:
            assert d.resolution is not None and d.resolution.decided_by
    for c in claims.values():
        if c.status == "superseded":  # invariant 2: superseded names its successor, which exists
            assert c.superseded_by in claims, c
        if c.status == "disputed":
            assert c.id in open_members, c
    assert all(vault.check().values())  # invariant 3


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=policies(), ops=st.lists(operations, min_size=4, max_size=16),
       judge_answers=st.lists(st.sampled_from(["incoming", "incumbent", "ambiguous"]), min_size=1, max_size=4))
def test_invariants_hold_with_every_strategy(policy, ops, judge_answers):
    answers = itertools.cycle(judge_answers)

    def judge(case):
        answer = next(answers)
        winner = {"incoming": case.incoming.id, "incumbent": case.incumbents[0].id}.get(answer)
        return Judgement(winner, f"scripted: {answer}")

    reasoner = ScriptedReasoner(judge=judge)
    with tempfile.TemporaryDirectory() as root, Vault.open(root, partitions=2, embedder=HashingEmbedder(64),
                                                           reasoner=reasoner, policy=policy) as vault:
        sent: list[tuple[str, list[Fact], tuple]] = []  # (agent, batch, decisions) of applied writes
        counter = itertools.count()
        for kind, arg in ops:
            before = snapshot(vault)
            if kind == "write":
                # rotate agents between writes so simple draws still pit agents against each other
                agent = AGENTS[(AGENTS.index(arg[0]["agent"]) + len(sent)) % len(AGENTS)]
                batch = [to_fact(spec, next(counter)) for spec in arg]
                bad = any(spec["bad"] for spec in arg)
                try:
                    decisions = vault.agent(agent).add_facts(batch).decisions
                except VaultError as exc:
                    # invariant 6: bad input (or a dispute cap) is rejected whole, nothing changes
                    assert bad or isinstance(exc, DisputeError), exc
                    assert snapshot(vault) == before
                else:
                    assert not bad
                    sent.append((agent, batch, decisions))
                    for dd in decisions:
                        event(f"outcome {dd.op} {dd.outcome} {dd.strategy}")
            elif kind == "retry" and sent:
                # invariant 5: the same client claim ids again are applied once
                agent, batch, decisions = sent[arg % len(sent)]
                again = vault.agent(agent).add_facts(batch).decisions
                assert again == decisions
                assert snapshot(vault) == before
            elif kind == "resolve":
                open_ = vault.disputes()
                if open_:
                    d = open_[arg[0] % len(open_)]
                    members = (d.challenger, *d.incumbents, *d.supporters)
                    try:
                        vault.resolve_dispute(d.id, None if arg[2] else members[arg[1] % len(members)],
                                              decided_by="property-test", keep_both=arg[2])
                    except (DisputeError, InvalidInput):
                        assert snapshot(vault) == before  # a refused resolution changes nothing
            elif kind == "rules":
                for d in vault.apply_rules(utcnow() + timedelta(seconds=arg)):
                    assert d.resolution.decided_by == "rule:stale" and not d.needs_user
            check_invariants(vault)
        event(f"judge calls: {min(reasoner.calls['judge'], 3)}")  # coverage, seen with --hypothesis-show-statistics
        for d in vault.disputes(None):
            event(f"dispute {d.status}" + (f" by {d.resolution.decided_by.split('_')[0]}" if d.resolution else ""))
        # reopening rebuilds the same state from the logs (the index included)
        state = snapshot(vault)
        vault.close()
        with Vault.open(root, embedder=HashingEmbedder(64), reasoner=reasoner) as again:
            assert snapshot(again) == state
            check_invariants(again)
