"""Retraction meeting disputes and import (QA round 93: R1-R10, P1).

Each test reproduces one finding: a retracted claim merged into another store stays
retracted; forget closes disputes as one-by-one retractions do; a dispute waiting for a
person stays open when its incumbent is retracted; a retraction that leaves a dispute
open is published as `dispute_changed`; explain keeps the disputes a retracted claim was
in; search shows a pending disputed value; who decided a retraction rule is the rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import Fact, Status

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.location"):
    fact = Fact(entity, f"The user's {entity.split('.')[-1]} is {value}", value=value,
                observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact, resolve=False).decisions
    return decision


def values(view):
    return sorted(c.value for c in view.active)


# -- R1: a merge keeps retracted claims retracted ---------------------------------------------------
def test_merge_keeps_a_retracted_claim_retracted(make_vault, tmp_path):
    src = make_vault("src")
    old = say(src, "a", "vegetarian", entity="user.diet")
    d = say(src, "a", "vegan", seconds=10, entity="user.diet")  # replaces its own earlier claim
    assert old.claim_id in d.superseded
    src.retract(d.claim_id, decided_by="user", note="never said it")
    src.export(tmp_path / "exp")
    dst = make_vault("dst")
    say(dst, "z", "keto", entity="user.allergies")  # a store with claims: merge
    out = dst.import_from(tmp_path / "exp")
    assert out.mode == "merge" and out.retracted == 1
    assert out.statuses.get("active", 0) == 0 and out.statuses["retracted"] == 1
    assert dst.get("user.diet").active == ()  # nothing taken back comes back, nor what it replaced
    assert dst.claim(d.claim_id).status == Status.RETRACTED
    assert dst.claim(old.claim_id).status == Status.SUPERSEDED
    assert dst.search("vegan diet") == [] or all(h.claim.entity != "user.diet" for h in dst.search("vegan diet"))
    again = dst.retract(d.claim_id, decided_by="x")
    assert again.already and again.decided_by == "user" and again.note.startswith("never said it")
    assert dst.import_from(tmp_path / "exp").retracted == 0  # the same export again changes nothing
    assert all(dst.check().values())


def test_merge_replays_a_retraction_before_the_claims_after_it(make_vault, tmp_path):
    src = make_vault("src")
    src.set_strategy("user.location", "authority")
    src.set_authority("a", "user.location", 0.9)
    a = say(src, "a", "Paris")
    src.retract(a.claim_id, decided_by="dana")
    b = say(src, "b", "Berlin", seconds=10)  # after the retraction: meets nothing
    assert b.outcome == "active"
    src.export(tmp_path / "exp")
    dst = make_vault("dst")
    dst.set_strategy("user.location", "authority")
    dst.set_authority("a", "user.location", 0.9)
    say(dst, "z", "keto", entity="user.allergies")
    dst.import_from(tmp_path / "exp")
    assert values(dst.get("user.location")) == ["Berlin"] and not dst.get("user.location").contested
    assert dst.disputes(status="all") == []
