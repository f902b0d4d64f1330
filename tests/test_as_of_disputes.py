"""Point in time with disputes (QA R11): `get(entity, as_of=t)` and `search(..., as_of=t)`
answer what `get` and `search` answered at t, whatever changed since: a retraction, a
withdrawn or repeated challenge, a resolution, an agent's update of an incumbent.

The property: random writes, retractions, resolutions and updates by a few agents
under a few policies; after each step what `get` and `search` answered (no `as_of`)
and the time; at the end (and after a reopen) `as_of` each of those times answers the same."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vault_ray import Fact, HashingEmbedder, Policy, Vault, VaultError
from vault_ray.engine.dispute_replay import STATE
from vault_ray.engine.timeline import replay
from vault_ray.models import utcnow

T0 = datetime(2026, 3, 1, tzinfo=UTC)
AGENTS = ("a", "b", "c", "d")
VALUES = {
    "user.location": ("Paris", "Berlin", "Rome"),
    "user.budget.gift": ("$5000", "$9000"),  # high stakes: disputes wait for the user
    "user.likes": ("likes:jazz", "dislikes:jazz", "likes:chess"),  # 'many'
}
ENTITIES = tuple(VALUES)
QUERIES = ("where does the user live", "budget for the gift", "music the user likes")
POLICIES = (
    Policy(default_strategy="authority", authority={"a": {"user.*": 0.9}, "b": {"user.location": 0.3}}),
    Policy(),  # recency
    Policy(default_strategy="consensus", authority={"c": {"*": 0.8}}),
)

write = st.tuples(st.just("write"), st.sampled_from(AGENTS), st.sampled_from(ENTITIES + ENTITIES[:2]),
                  st.integers(0, 2), st.integers(0, 20))
step = st.one_of(
    write, write, write,
    st.tuples(st.just("update"), st.integers(0, 50), st.integers(1, 2)),  # an agent changes its value
    st.tuples(st.just("retract"), st.integers(0, 50)),
    st.tuples(st.just("resolve"), st.integers(0, 10), st.integers(0, 5)),
    st.tuples(st.just("forget"), st.sampled_from(ENTITIES)),
)


PROLOGUE = (  # disputes for the random steps to change: one per entity under most policies
    ("write", "c", "user.location", 0, 1), ("write", "d", "user.location", 1, 1),
    ("write", "a", "user.budget.gift", 0, 1), ("write", "b", "user.budget.gift", 1, 1),
    ("write", "a", "user.likes", 0, 1), ("write", "d", "user.likes", 1, 1),
)


def view_key(view):
    return (
        tuple((c.id, str(c.status), c.superseded_by) for c in view.active),
        view.contested,
        tuple((c.claim.id, str(c.claim.status), c.weight, c.dispute_id) for c in view.candidates),
        tuple((d.id, str(d.status), d.challenger, d.incumbents, d.supporters, d.needs_user, d.challenges)
              for d in view.disputes),
    )


def hits_key(hits):
    """Hits as a set (decay is relative to the moment asked about, so the order may differ)."""
    return sorted((h.claim.id, h.contested, tuple(sorted(a.id for a in h.alternatives)),
                   tuple(sorted(a.id for a in h.agreeing))) for h in hits)


def observe(vault, at=None):
    views = {e: view_key(vault.get(e, as_of=at)) for e in ENTITIES}
    hits = {q: hits_key(vault.search(q, k=30, as_of=at)) for q in QUERIES}
    return views, hits


def run(vault, action) -> None:
    kind = action[0]
    if kind == "write":
        _, agent, entity, choice, minute = action
        values = VALUES[entity]
        value = values[choice % len(values)]
        vault.agent(agent).add_facts([Fact(entity, f"{entity} is {value}", value=value,
                                           observed_at=T0 + timedelta(minutes=minute))], resolve=False)
    elif kind in ("retract", "update"):
        # a live claim (active or disputed): the ones disputes name
        live = sorted((c for c in vault.claims() if c.status.live), key=lambda c: (c.recorded_at, c.id))
        if not live:
            return
        claim = live[action[1] % len(live)]
        if kind == "retract":
            vault.retract(claim.id, decided_by="user")
            return
        values = VALUES[claim.entity]
        value = values[(values.index(claim.value) + action[2]) % len(values)]
        vault.agent(claim.agent).add_facts([Fact(claim.entity, f"{claim.entity} is {value}", value=value)],
                                           resolve=False)
    elif kind == "resolve":
        open_ = vault.disputes()
        if open_:
            d = open_[action[1] % len(open_)]
            members = (d.challenger, *d.incumbents, *d.supporters)
            pick = action[2] % (len(members) + 1)
            try:
                if pick == len(members):
                    vault.resolve_dispute(d.id, decided_by="user", keep_both=True)
                else:
                    vault.resolve_dispute(d.id, members[pick], decided_by="user")
            except VaultError:
                pass  # a refused resolution (keep_both on a 'one' entity, a replaced member) changes nothing
    else:
        vault.forget(action[1], decided_by="user")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # each example: two opens, ~300 reads
@given(steps=st.lists(step, min_size=3, max_size=16), policy=st.sampled_from(POLICIES))
def test_as_of_answers_what_the_store_answered_then(steps, policy):
    root = tempfile.mkdtemp()
    try:
        seen = []
        with Vault.open(root, embedder=HashingEmbedder(64), policy=policy, partitions=2) as vault:
            for action in (*PROLOGUE, *steps):
                run(vault, action)
                at = utcnow()
                seen.append((action, at, observe(vault)))
                time.sleep(0.002)  # the next change records strictly after `at`
            for action, at, answered in seen:
                assert observe(vault, at) == answered, action
        with Vault.open(root, embedder=HashingEmbedder(64)) as again:
            for action, at, answered in seen:
                assert observe(again, at) == answered, action
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _pause():
    time.sleep(0.002)
    at = utcnow()
    time.sleep(0.002)
    return at


def test_a_later_retraction_does_not_rewrite_an_earlier_dispute(make_vault):
    """R11: q's challenge was open at t2, s supported it after t2; retracting q later
    must not drop q's claim from t2's view nor make s (written after t2) its challenger."""
    vault = make_vault(policy=Policy(strategies={"user.location": "authority"}, authority={"p": {"user.location": 0.9}}))
    say = lambda agent, value: vault.agent(agent).add_facts(  # noqa: E731
        [Fact("user.location", f"in {value}", value=value)]).decisions[0]
    p = say("p", "Paris")
    q = say("q", "Berlin")
    t2 = _pause()
    say("s", "Berlin")
    before = vault.get("user.location", as_of=t2)
    vault.retract(q.claim_id, decided_by="user")
    after = vault.get("user.location", as_of=t2)
    assert view_key(after) == view_key(before)
    assert [c.claim.id for c in after.candidates] == [p.claim_id, q.claim_id]
    assert after.disputes[0].challenger == q.claim_id and after.disputes[0].supporters == ()


def test_a_retracted_high_stakes_incumbent_stays_in_an_earlier_dispute(make_vault):
    vault = make_vault()
    a = vault.agent("a").add_facts([Fact("user.budget", "budget $5000", value="$5000")]).decisions[0]
    vault.agent("b").add_facts([Fact("user.budget", "budget $9000", value="$9000")])
    t = _pause()
    before = vault.get("user.budget", as_of=t)
    assert before.disputes[0].incumbents == (a.claim_id,) and before.disputes[0].needs_user
    vault.retract(a.claim_id, decided_by="user")
    assert vault.get("user.budget").disputes[0].incumbents == ()  # now: waits for the user without it
    after = vault.get("user.budget", as_of=t)
    assert view_key(after) == view_key(before)
    assert all(c.dispute_id == before.disputes[0].id for c in after.candidates)


def test_an_incumbents_update_does_not_leak_into_an_earlier_dispute(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"a": {"*": 0.9}}))
    paris = vault.agent("a").add_facts([Fact("user.location", "in Paris", value="Paris")]).decisions[0]
    vault.agent("b").add_facts([Fact("user.location", "in Berlin", value="Berlin")])
    t = _pause()
    before = vault.get("user.location", as_of=t)
    rome = vault.agent("a").add_facts([Fact("user.location", "in Rome", value="Rome")]).decisions[0]
    after = vault.get("user.location", as_of=t)
    assert view_key(after) == view_key(before)
    assert after.disputes[0].incumbents == (paris.claim_id,)
    assert rome.claim_id not in {c.claim.id for c in after.candidates}


def test_an_older_store_without_dispute_records_replays_from_its_events(make_vault):
    """Events written before they carried the dispute's record (`STATE`) are replayed from
    what they say: the same answers on the stories above (supporter, retraction, update)."""
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"p": {"*": 0.9}}))
    say = lambda agent, entity, value: vault.agent(agent).add_facts(  # noqa: E731
        [Fact(entity, f"{entity} is {value}", value=value)]).decisions[0]
    say("p", "user.location", "Paris")
    q = say("q", "user.location", "Berlin")
    times = [_pause()]
    say("s", "user.location", "Berlin")
    times.append(_pause())
    a = say("a", "user.budget", "$5000")
    say("b", "user.budget", "$9000")
    times.append(_pause())
    vault.retract(q.claim_id, decided_by="user")
    vault.retract(a.claim_id, decided_by="user")
    times.append(_pause())
    claims = vault.claims()
    events = sorted(vault.events(), key=lambda e: e.ts)
    rows = {d.id: d for d in vault.disputes(None)}
    legacy = [replace(e, detail={k: v for k, v in e.detail.items() if k != STATE}) for e in events]
    for at in times:
        for entity in ("user.location", "user.budget"):
            policy = vault.policy
            now = replay(claims, events, rows.get, at).view(entity, policy)
            old = replay(claims, legacy, rows.get, at).view(entity, policy)
            assert view_key(old) == view_key(now), (at, entity)
            assert view_key(now) == view_key(vault.get(entity, as_of=at))
