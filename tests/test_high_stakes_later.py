"""A high-stakes pattern added to the policy after a dispute opened (QA qa2 s06): the engine
already lets no rule close such a dispute, and every read says it waits for a person too
(`needs_user` in `dispute`, `disputes`, `get`, the HTTP bodies and the inbox) without the
dispute being touched again. Removing the pattern again undoes that for a dispute the pattern
alone flagged; one opened (or challenged) while the entity was high stakes keeps waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dispute_steps import say

from vault_ray import AutoResolveRules, Policy

STALE = Policy(default_strategy="authority", rules=AutoResolveRules(stale_after_s=60))  # equal weights: a dispute


def later():
    """An hour from now: past the stale rule's minute for any dispute opened in the test."""
    return datetime.now(UTC) + timedelta(hours=1)


def reads(vault, dispute_id, entity):
    """needs_user as each read gives it: dispute(id), disputes(), disputes("all"), get(entity)."""
    (listed,) = [d for d in vault.disputes() if d.id == dispute_id]
    (every,) = [d for d in vault.disputes("all") if d.id == dispute_id]
    (viewed,) = [d for d in vault.get(entity).disputes if d.id == dispute_id]
    return {vault.dispute(dispute_id).needs_user, listed.needs_user, every.needs_user, viewed.needs_user}


@pytest.mark.parametrize(("entity", "pattern"), [("user.medication", "user.medication"),
                                                 ("user.health.allergy", "user.health.*"),
                                                 ("pet.vet", "pet.*")])
def test_a_pattern_added_later_shows_on_every_read_and_holds_off_the_rules(make_vault, entity, pattern):
    vault = make_vault(policy=STALE)
    say(vault, "a", "first", 0, entity)
    d = say(vault, "b", "second", 1, entity)
    assert reads(vault, d.dispute_id, entity) == {False}
    vault.patch_policy({"high_stakes": [*vault.policy.high_stakes, pattern]})
    assert reads(vault, d.dispute_id, entity) == {True}
    assert vault.apply_rules(now=later()) == []  # the stale rule leaves it to a person
    assert vault.dispute(d.dispute_id).status == "open"
    done = vault.resolve_dispute(d.dispute_id, d.claim_id, decided_by="user")
    assert done.status == "resolved" and vault.get(entity).values == ("second",)


def test_set_policy_flags_it_too_and_removing_the_pattern_unflags_it(make_vault):
    vault = make_vault(policy=STALE)
    say(vault, "a", "insulin", 0, "user.medication")
    d = say(vault, "b", "metformin", 1, "user.medication")
    before = vault.policy.high_stakes
    vault.set_policy(vault.policy.updated(high_stakes=(*before, "user.medication.*")))
    assert reads(vault, d.dispute_id, "user.medication") == {True}
    vault.set_policy(vault.policy.updated(high_stakes=before))
    assert reads(vault, d.dispute_id, "user.medication") == {False}
    (closed,) = vault.apply_rules(now=later())  # the engine no longer waits for a person either
    assert closed.id == d.dispute_id and closed.status == "resolved"
    assert vault.dispute(d.dispute_id).needs_user is False  # a closed dispute reads as it was settled


def test_a_dispute_opened_while_high_stakes_keeps_waiting_after_the_pattern_goes(make_vault):
    vault = make_vault(policy=STALE.updated(high_stakes=("user.medication",)))
    say(vault, "a", "insulin", 0, "user.medication")
    d = say(vault, "b", "metformin", 1, "user.medication")
    assert reads(vault, d.dispute_id, "user.medication") == {True}
    vault.patch_policy({"high_stakes": []})
    assert reads(vault, d.dispute_id, "user.medication") == {True}
    assert vault.apply_rules(now=later()) == []


def test_other_entities_and_resolved_disputes_are_not_flagged(make_vault):
    vault = make_vault(policy=STALE)
    say(vault, "a", "insulin", 0, "user.medication")
    med = say(vault, "b", "metformin", 1, "user.medication")
    say(vault, "a", "Rome", 0, "user.location")
    loc = say(vault, "b", "Paris", 1, "user.location")
    vault.resolve_dispute(med.dispute_id, med.claim_id, decided_by="user")
    vault.patch_policy({"high_stakes": ["user.medication", "user.locale.*"]})  # not user.location
    assert vault.dispute(med.dispute_id).needs_user is False
    assert reads(vault, loc.dispute_id, "user.location") == {False}


fastapi = pytest.importorskip("fastapi")


def test_http_bodies_and_the_inbox_show_it_after_put_high_stakes(make_vault, tmp_path):
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault = make_vault(policy=STALE)
    for n in range(3):  # older disputes that do not wait for a person
        say(vault, "a", "x", n, f"user.topic{n}")
        say(vault, "b", "y", n + 1, f"user.topic{n}")
    say(vault, "a", "insulin", 10, "user.medication")
    d = say(vault, "b", "metformin", 11, "user.medication")
    tokens = TokenStore(tmp_path / "tokens.json")
    with TestClient(create_app(local_service(vault, tokens))) as client:
        admin = {"Authorization": f"Bearer {tokens.add('root', 'admin')[0]}"}
        resolver = {"Authorization": f"Bearer {tokens.add('alice', 'resolver')[0]}"}
        assert client.get(f"/v1/disputes/{d.dispute_id}", headers=admin).json()["needs_user"] is False
        cursor = client.get("/v1/events", headers=admin, params={"since": "now"}).json()["cursor"]
        put = client.put("/v1/policy/high-stakes", headers=admin,
                         json={"patterns": [*vault.policy.high_stakes, "user.medication"]})
        assert put.status_code == 200, put.text
        assert client.get(f"/v1/disputes/{d.dispute_id}", headers=admin).json()["needs_user"] is True
        told = client.get("/v1/events", headers=admin, params={"since": cursor, "needs_user": "true"}).json()
        assert [(e["kind"], e["dispute_id"], e["reason"]) for e in told["events"]] == [
            ("dispute_changed", d.dispute_id, "high_stakes")]  # told at once (tests/test_high_stakes_events.py)
        listed = {x["id"]: x["needs_user"] for x in client.get("/v1/disputes", headers=admin).json()}
        assert listed[d.dispute_id] is True and sum(listed.values()) == 1
        page = client.get("/inbox/list", headers=resolver)
        assert page.status_code == 200
        first = page.text.index('data-dispute="')  # waiting for a person: listed first, badged
        assert page.text[first:].startswith(f'data-dispute="{d.dispute_id}"')
        assert page.text.count("needs you") == 1
