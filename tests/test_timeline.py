"""Point in time — `get(entity, as_of=t)` and `search(..., as_of=t)` answer
as the store stood at t, replayed from the event log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from vault_ray import AutoResolveRules, Fact, InvalidInput, Policy
from vault_ray.engine.timeline import replay
from vault_ray.models import utcnow

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
POLICY = Policy(default_strategy="authority", authority={"owner": {"*": 0.9}, "chat": {"*": 0.2}},
                rules=AutoResolveRules(reasserted_by=3))
ENTITIES = ("user.diet", "user.timezone", "user.likes")
QUERIES = ("what does the user eat", "which timezone is the user in", "music the user likes")


def say(vault, agent, entity, value, seconds=0.0):
    fact = Fact(entity, f"{entity.split('.')[-1]} of the user is {value}", value=value,
                observed_at=T0 + timedelta(seconds=seconds))
    return vault.agent(agent).add_facts(fact).decisions[0]


def view_key(view):
    return (
        view.entity,
        tuple((c.id, c.status, c.value, c.agent, c.superseded_by) for c in view.active),
        view.contested,
        tuple(sorted((c.claim.id, str(c.claim.status), c.weight, c.dispute_id) for c in view.candidates)),
        tuple((d.id, str(d.status), d.challenges, d.supporters) for d in view.disputes),
    )


def hits_key(hits):
    return [(h.claim.id, round(h.score, 5), h.contested, tuple(sorted(a.id for a in h.alternatives))) for h in hits]


def observe(vault, at=None):
    """What a user would read now (or as of `at`): every entity's view and a few searches."""
    views = {e: view_key(vault.get(e, as_of=at)) for e in ENTITIES}
    # score decay is relative to the moment asked about: compare raw order and flags
    hits = {q: [(i, c, a) for i, _, c, a in hits_key(vault.search(q, k=4, as_of=at))] for q in QUERIES}
    return views, hits


def story(vault):
    """A sequence of writes, a dispute, repeats, a rule and a resolution; after each step
    the moment and what the store answered then."""
    seen = []

    def mark():
        seen.append((utcnow(), observe(vault)))

    mark()
    say(vault, "owner", "user.diet", "vegan", 0)
    mark()
    ch = say(vault, "chat", "user.diet", "vegetarian", 60)  # dispute (authority)
    say(vault, "owner", "user.timezone", "PST", 60)
    mark()
    say(vault, "helper", "user.diet", "vegetarian", 120)  # supporter
    say(vault, "chat", "user.likes", "likes:jazz", 120)
    mark()
    say(vault, "owner", "user.timezone", "CET", 180)  # REPLACE of its own claim
    say(vault, "friend", "user.diet", "vegetarian", 180)  # third agent: rule settles for the challenger
    mark()
    assert {c.id for c in vault.get("user.diet").active} >= {ch.claim_id}
    late = say(vault, "chat", "user.diet", "pescatarian", 240)  # changes its mind: a new dispute
    mark()
    vault.resolve_dispute(late.dispute_id, late.claim_id, decided_by="user", note="asked")
    mark()
    return seen


def test_as_of_reproduces_what_the_store_answered_at_each_moment(make_vault):
    vault = make_vault(policy=POLICY)
    seen = story(vault)
    assert len({str(v) for _, v in seen}) >= 5  # the story does change the answers
    for at, answered in seen:
        assert observe(vault, at) == answered, at


def test_as_of_survives_a_reopen(make_vault, tmp_path):
    vault = make_vault("reopen", policy=POLICY)
    seen = story(vault)
    vault.close()
    again = make_vault("reopen")
    for at, answered in seen:
        assert observe(again, at) == answered


def test_as_of_matches_a_replay_of_the_raw_log(make_vault):
    vault = make_vault(policy=POLICY)
    seen = story(vault)
    claims = vault.claims()
    events = sorted(vault.events(), key=lambda e: e.ts)  # all partitions, in time order
    disputes = vault.disputes(None)
    for at, _ in seen:
        snap = replay(claims, events, {d.id: d for d in disputes}.get, at)
        for entity in ENTITIES:
            by_hand = {c.id: s for c in claims if c.entity == entity and (s := _status_at(events, c.id, at))}
            assert {c.id: str(c.status) for c in snap.claims.values() if c.entity == entity} == by_hand
            active = {cid for cid, s in by_hand.items() if s == "active"}
            assert {c.id for c in vault.get(entity, as_of=at).active} == active


def _status_at(events, claim_id, at):
    """The claim's status after the last claim event at or before `at`, read straight off the log."""
    status = None
    for e in events:
        if e.claim_id == claim_id and e.kind in ("claim_added", "status_changed") and e.ts <= at.timestamp():
            status = e.status
    return status


def test_before_the_first_write_the_store_was_empty(make_vault):
    vault = make_vault(policy=POLICY)
    before = utcnow() - timedelta(seconds=1)
    say(vault, "owner", "user.diet", "vegan")
    view = vault.get("user.diet", as_of=before)
    assert view.active == () and not view.contested and view.candidates == () and view.values == ()
    assert vault.search("what does the user eat", as_of=before) == []
    assert vault.get("user.diet", as_of=T0 - timedelta(days=3650)).active == ()


def test_after_the_last_write_as_of_is_the_current_state(make_vault):
    vault = make_vault(policy=POLICY)
    story(vault)
    later = utcnow() + timedelta(days=1)
    for entity in ENTITIES:
        assert view_key(vault.get(entity, as_of=later)) == view_key(vault.get(entity))


def test_as_of_takes_epoch_seconds_and_naive_datetimes_as_utc(make_vault):
    vault = make_vault(policy=POLICY)
    say(vault, "owner", "user.diet", "vegan")
    at = utcnow()
    say(vault, "owner", "user.diet", "vegetarian")
    assert vault.get("user.diet", as_of=at.timestamp()).values == ("vegan",)
    assert vault.get("user.diet", as_of=at.replace(tzinfo=None)).values == ("vegan",)
    for bad in ("yesterday", float("nan"), True):
        with pytest.raises(InvalidInput):
            vault.get("user.diet", as_of=bad)
        with pytest.raises(InvalidInput):
            vault.search("diet", as_of=bad)


def test_as_of_search_uses_the_vectors_in_the_claim_log(make_vault):
    vault = make_vault(policy=POLICY)
    # a caller-supplied vector that the embedder would never give this text
    vector = vault.embedder.embed(["pizza margherita"])
    fact = Fact("user.lunch", "zzz qqq", value="x")
    (d,) = vault.agent("a").add_facts(fact, vectors=vector).decisions
    at = utcnow()
    vault.agent("a").add_facts(Fact("user.lunch", "yyy www", value="y"), vectors=np.asarray(vector) * -1.0)
    (hit,) = vault.search("pizza margherita", k=1, as_of=at)
    assert hit.claim.id == d.claim_id and hit.score == pytest.approx(1.0, abs=1e-3)
    assert vault.search("pizza margherita", k=1)[0].claim.id != d.claim_id


def test_as_of_search_filters_and_flags_like_search(make_vault):
    vault = make_vault(policy=POLICY)
    say(vault, "owner", "user.diet", "vegan", 0)
    ch = say(vault, "chat", "user.diet", "vegetarian", 1)
    at = utcnow()
    vault.resolve_dispute(ch.dispute_id, ch.claim_id, decided_by="user")
    (hit,) = vault.search("what does the user eat", k=1, entity="user.diet", as_of=at)
    assert hit.contested and [a.id for a in hit.alternatives] == [ch.claim_id]
    assert vault.search("what does the user eat", agent="nobody", as_of=at) == []
    (now_hit,) = vault.search("what does the user eat", k=1, entity="user.diet")
    assert not now_hit.contested and now_hit.claim.id == ch.claim_id
