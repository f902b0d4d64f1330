"""A policy change that alters how an open dispute reads (a high-stakes pattern added that covers
its entity: it waits for a person now; removed again: it no longer does) publishes one
`dispute_changed` event per such dispute, so `events(needs_user=True)`, webhooks and the inbox
tell a person at once. The same policy again, or a change that alters no dispute's reading,
publishes nothing; the dispute as stored, `as_of` and the history are unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dispute_steps import say

from vault_ray import AutoResolveRules, HashingEmbedder, Policy, Vault

STALE = Policy(default_strategy="authority", rules=AutoResolveRules(stale_after_s=60))  # equal weights: a dispute


def changed(vault, cursor="start", **filters):
    """The `dispute_changed` events of the stream after `cursor`, as (dispute, needs_user, reason)."""
    page = vault.events(since=cursor, kinds=["dispute_changed"], **filters)
    return [(e.dispute_id, e.needs_user, e.reason) for e in page.events]


@pytest.mark.parametrize(("entity", "pattern"), [("user.medication", "user.medication"),
                                                 ("user.health.allergy", "user.health.*"),
                                                 ("pet.vet", "pet.*"), ("anything.at.all", "*")])
def test_a_pattern_added_then_removed_publishes_one_event_each_way(make_vault, entity, pattern):
    vault = make_vault(policy=STALE)
    say(vault, "a", "first", 0, entity)
    d = say(vault, "b", "second", 1, entity)
    cursor = vault.events(since="now").cursor
    before = vault.policy.high_stakes
    vault.patch_policy({"high_stakes": [*before, pattern]})
    assert changed(vault, cursor, needs_user=True) == [(d.dispute_id, True, "high_stakes")]
    (event,) = vault.events(since=cursor, needs_user=True).events  # nothing else waits for a person
    assert event.entity == entity and event.claim_id == d.claim_id
    assert event.detail["pattern"] == pattern and event.detail["policy_version"] == vault.policy.version
    assert "high stakes now" in str(vault.explain(d.claim_id))  # the challenger's story says why
    after_add = vault.events(since="now").cursor
    vault.patch_policy({"high_stakes": list(before)})
    assert changed(vault, after_add) == [(d.dispute_id, False, "high_stakes_lifted")]
    assert vault.events(since=after_add, needs_user=True).events == ()
    assert vault.dispute(d.dispute_id).needs_user is False


def test_the_same_policy_again_or_a_change_that_alters_no_reading_publishes_nothing(make_vault):
    vault = make_vault(policy=STALE)
    say(vault, "a", "insulin", 0, "user.medication")
    med = say(vault, "b", "metformin", 1, "user.medication")
    say(vault, "a", "Rome", 0, "user.location")
    say(vault, "b", "Paris", 1, "user.location")
    say(vault, "a", "40", 0, "user.age")
    age = say(vault, "b", "41", 1, "user.age")
    vault.resolve_dispute(age.dispute_id, age.claim_id, decided_by="user")
    cursor = vault.events(since="now").cursor
    wanted = vault.policy.updated(high_stakes=(*vault.policy.high_stakes, "user.medication", "user.age", "user.locale.*"))
    vault.set_policy(wanted)  # user.location is not covered; user.age's dispute is resolved
    assert changed(vault, cursor) == [(med.dispute_id, True, "high_stakes")]
    cursor = vault.events(since="now").cursor
    vault.set_policy(wanted)  # the same policy again (a new version)
    vault.patch_policy({"high_stakes": [*wanted.high_stakes, "user.medication.*"]})  # covered already
    vault.set_authority("b", "user.location", 0.9)  # not about high stakes at all
    assert changed(vault, cursor) == []


def test_a_dispute_that_flagged_itself_is_not_announced_when_the_pattern_goes(make_vault):
    vault = make_vault(policy=STALE.updated(high_stakes=("user.medication",)))
    say(vault, "a", "insulin", 0, "user.medication")
    d = say(vault, "b", "metformin", 1, "user.medication")
    cursor = vault.events(since="now").cursor
    vault.patch_policy({"high_stakes": []})  # it was opened while high stakes: it still waits
    assert changed(vault, cursor) == []
    assert vault.dispute(d.dispute_id).needs_user is True


def test_every_open_dispute_it_covers_is_announced_in_every_partition(make_vault):
    vault = make_vault(policy=STALE)
    keys = [f"user.health.{topic}" for topic in ("allergy", "blood", "diet", "sleep", "weight", "vision")]
    ids = {say(vault, "a", "x", 0, k) and say(vault, "b", "y", 1, k).dispute_id for k in keys}
    cursor = vault.events(since="now").cursor
    vault.patch_policy({"high_stakes": [*vault.policy.high_stakes, "user.health.*"]})
    got = changed(vault, cursor, needs_user=True)
    assert {i for i, _, _ in got} == ids and len(got) == len(ids)
    assert changed(vault, cursor, entity="user.health.diet") == [
        (i, True, "high_stakes") for i, _, _ in got if vault.dispute(i).entity == "user.health.diet"]


def test_the_events_are_durable_and_leave_the_dispute_and_as_of_as_they_were(tmp_path):
    store = tmp_path / "store"
    vault = Vault.open(store, policy=STALE, embedder=HashingEmbedder())
    try:
        say(vault, "a", "insulin", 0, "user.medication")
        d = say(vault, "b", "metformin", 1, "user.medication")
        stored = vault.dispute(d.dispute_id)
        between = datetime.now(UTC)
        vault.patch_policy({"high_stakes": [*vault.policy.high_stakes, "user.medication"]})
        history = [e.kind for e in vault.events(entity="user.medication")]
        assert history[-1] == "dispute_changed" and history.count("dispute_changed") == 1
        assert vault.get("user.medication", as_of=between).disputes[0].needs_user is False
    finally:
        vault.close()
    again = Vault.open(store, embedder=HashingEmbedder())
    try:
        assert changed(again) == [(d.dispute_id, True, "high_stakes")]
        assert again.dispute(d.dispute_id).needs_user is True  # read by the policy in force
        again.patch_policy({"high_stakes": [p for p in again.policy.high_stakes if p != "user.medication"]})
        assert again.dispute(d.dispute_id) == stored  # the stored dispute never changed
        assert [x[1:] for x in changed(again)] == [(True, "high_stakes"), (False, "high_stakes_lifted")]
    finally:
        again.close()


def test_a_policy_given_to_open_is_announced_too(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, policy=STALE, embedder=HashingEmbedder()) as vault:
        say(vault, "a", "insulin", 0, "user.medication")
        d = say(vault, "b", "metformin", 1, "user.medication")
    with Vault.open(store, policy=STALE.updated(high_stakes=("user.medication",)), embedder=HashingEmbedder()) as vault:
        assert changed(vault, needs_user=True) == [(d.dispute_id, True, "high_stakes")]
        later = datetime.now(UTC) + timedelta(hours=1)
        assert vault.apply_rules(now=later) == []  # the engine waits for a person too
