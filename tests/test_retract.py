"""Retraction (`Vault.retract`, `Vault.forget`): a person takes a claim back.

A retracted claim is no longer read (get, get_many, search, as_of after the retraction),
stays in history and explain with who retracted it and when, survives a reopen, leaves
the disputes it was in, and never brings back what it had superseded."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import ClaimNotFound, Fact, InvalidEntity, InvalidInput, Retraction, Status
from vault_ray.engine.retract import CHALLENGER_RETRACTED, INCUMBENT_RETRACTED

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.timezone"):
    fact = Fact(entity, f"The user is in {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact, resolve=False).decisions
    return decision


def values(view):
    return sorted(c.value for c in view.active)



def test_retracted_claim_is_no_longer_read_but_stays_in_history(vault):
    d = say(vault, "a", "PST")
    before = datetime.now(UTC)
    time.sleep(0.01)
    r = vault.retract(d.claim_id, decided_by="ana", note="wrong user")
    assert isinstance(r, Retraction) and not r.already
    assert r.claim.status == Status.RETRACTED and r.decided_by == "ana" and r.note == "wrong user"
    assert vault.get("user.timezone").active == ()
    assert vault.get_many(["user.timezone"])["user.timezone"].active == ()
    assert vault.search("time zone PST") == []
    assert vault.get("user.timezone", as_of=before).active[0].id == d.claim_id  # the past is kept
    assert vault.get("user.timezone", as_of=datetime.now(UTC)).active == ()
    assert [h.claim.id for h in vault.search("time zone PST", as_of=before)] == [d.claim_id]
    (claim,) = vault.history("user.timezone")
    assert claim.status == Status.RETRACTED and vault.claim(d.claim_id).status == Status.RETRACTED
    last = vault.events(claim_id=d.claim_id)[-1]
    assert last.status == "retracted" and last.agent == "ana" and last.detail["note"] == "wrong user"
    assert "ana" in str(vault.explain(d.claim_id)) and "retracted" in str(vault.explain(d.claim_id))
    assert all(vault.check().values())


def test_retract_again_answers_the_first_retraction(vault):
    d = say(vault, "a", "PST")
    first = vault.retract(d.claim_id, decided_by="ana", note="no")
    n = len(vault.events(claim_id=d.claim_id))
    again = vault.retract(d.claim_id, decided_by="bob")
    assert again.already and again.decided_by == "ana" and again.note == "no"
    assert abs((again.at - first.at).total_seconds()) < 1e-3
    assert len(vault.events(claim_id=d.claim_id)) == n


def test_bad_input_and_unknown_ids_change_nothing(vault):
    d = say(vault, "a", "PST")
    for bad in ("", "   ", None, 3, "x" * 200):
        with pytest.raises(InvalidInput):
            vault.retract(d.claim_id, decided_by=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        vault.retract(d.claim_id, decided_by="ana", note="x" * 5000)
    with pytest.raises(InvalidInput):
        vault.retract(None, decided_by="ana")  # type: ignore[arg-type]
    with pytest.raises(ClaimNotFound):
        vault.retract("nope", decided_by="ana")
    with pytest.raises(InvalidEntity):
        vault.forget("Not An Entity", decided_by="ana")
    assert values(vault.get("user.timezone")) == ["PST"]


def test_retraction_survives_reopen(make_vault, tmp_path):
    vault = make_vault("s")
    d = say(vault, "a", "PST")
    vault.retract(d.claim_id, decided_by="ana")
    vault.close()
    again = make_vault("s")
    assert again.get("user.timezone").active == ()
    assert again.claim(d.claim_id).status == Status.RETRACTED
    assert again.retract(d.claim_id, decided_by="x").already
    assert all(again.check().values())


def test_what_it_superseded_does_not_come_back(vault):
    old = say(vault, "a", "PST")
    new = say(vault, "a", "EST", seconds=10)
    assert old.claim_id in new.superseded
    vault.retract(new.claim_id, decided_by="ana")
    assert vault.get("user.timezone").active == ()
    assert vault.claim(old.claim_id).status == Status.SUPERSEDED
    assert say(vault, "b", "CET", seconds=20).outcome == "active"  # a new value meets nothing


def test_a_superseded_claim_can_be_retracted(vault):
    old = say(vault, "a", "PST")
    new = say(vault, "a", "EST", seconds=10)
    r = vault.retract(old.claim_id, decided_by="ana")
    assert r.claim.status == Status.RETRACTED and r.claim.superseded_by == new.claim_id
    assert values(vault.get("user.timezone")) == ["EST"]
    assert all(vault.check().values())


def test_retracted_challenger_closes_its_dispute_for_the_incumbent(authority):
    vault = authority
    inc = say(vault, "scheduler", "PST")
    ch = say(vault, "chat", "EST", seconds=10)
    assert ch.outcome == "disputed"
    r = vault.retract(ch.claim_id, decided_by="ana")
    assert r.disputes == (ch.dispute_id,)
    d = vault.dispute(ch.dispute_id)
    assert d.status == "resolved" and d.resolution.decided_by == CHALLENGER_RETRACTED
    assert d.resolution.winner == inc.claim_id
    view = vault.get("user.timezone")
    assert values(view) == ["PST"] and not view.contested
    assert all(vault.check().values())


def test_retracted_incumbent_lets_the_challenger_win(authority):
    vault = authority
    inc = say(vault, "scheduler", "PST")
    ch = say(vault, "chat", "EST", seconds=10)
    vault.retract(inc.claim_id, decided_by="ana", note="never said")
    d = vault.dispute(ch.dispute_id)
    assert d.status == "resolved" and d.resolution.decided_by == INCUMBENT_RETRACTED
    assert d.resolution.winner == ch.claim_id
    view = vault.get("user.timezone")
    assert values(view) == ["EST"] and not view.contested
    assert vault.claim(inc.claim_id).status == Status.RETRACTED
    assert all(vault.check().values())


def test_high_stakes_dispute_stays_open_for_the_user(make_vault):
    vault = make_vault()
    vault.set_strategy("user.payment.card", "authority")
    vault.set_authority("scheduler", "user.payment.card", 0.9)
    inc = say(vault, "scheduler", "visa", entity="user.payment.card")
    ch = say(vault, "chat", "amex", seconds=10, entity="user.payment.card")
    assert ch.dispute_id is not None
    vault.retract(inc.claim_id, decided_by="ana")
    d = vault.dispute(ch.dispute_id)
    assert d.status == "open" and inc.claim_id not in d.incumbents
    view = vault.get("user.payment.card")
    assert view.contested and [c.claim.id for c in view.candidates] == [ch.claim_id]
    vault.resolve_dispute(d.id, ch.claim_id, decided_by="ana")
    assert values(vault.get("user.payment.card")) == ["amex"]


def test_retracted_supporter_leaves_the_dispute(authority):
    vault = authority
    vault.set_authority("mail", "user.timezone", 0.1)
    say(vault, "scheduler", "PST")
    ch = say(vault, "chat", "EST", seconds=10)
    sup = say(vault, "mail", "EST", seconds=20)
    d = vault.dispute(ch.dispute_id)
    assert sup.claim_id in d.supporters
    vault.retract(ch.claim_id, decided_by="ana")
    d = vault.dispute(ch.dispute_id)
    assert d.status == "open" and d.challenger == sup.claim_id and d.supporters == ()
    vault.retract(sup.claim_id, decided_by="ana")
    assert vault.dispute(ch.dispute_id).status == "resolved"
    assert values(vault.get("user.timezone")) == ["PST"]


def test_forget_retracts_every_live_claim_of_an_entity(authority):
    vault = authority
    say(vault, "scheduler", "PST")
    ch = say(vault, "chat", "EST", seconds=10)
    say(vault, "other", "PST", seconds=5, entity="user.location")
    done = vault.forget("user.timezone", decided_by="ana", note="user asked")
    assert len(done) == 2 and all(r.claim.status == Status.RETRACTED for r in done)
    view = vault.get("user.timezone")
    assert view.active == () and not view.contested
    assert vault.dispute(ch.dispute_id).status == "resolved"
    assert vault.get("user.location").active != ()
    assert vault.forget("user.timezone", decided_by="ana") == []
    assert vault.search("PST", entity="user.timezone") == []
    assert all(vault.check().values())


def test_retracted_claim_is_in_the_event_stream(vault):
    d = say(vault, "a", "PST")
    vault.retract(d.claim_id, decided_by="ana", note="why")
    page = vault.events(since="start", kinds=["claim_retracted"])
    (e,) = page.events
    assert e.claim_id == d.claim_id and e.decided_by == "ana" and e.note == "why" and e.status == "retracted"


def test_export_import_keeps_retractions(make_vault, tmp_path):
    vault = make_vault("a")
    d = say(vault, "a", "PST")
    keep = say(vault, "a", "Paris", entity="user.location")
    vault.retract(d.claim_id, decided_by="ana")
    vault.export(tmp_path / "out")
    other = make_vault("b")
    other.import_from(tmp_path / "out")
    assert other.claim(d.claim_id).status == Status.RETRACTED
    assert other.get("user.timezone").active == ()
    assert values(other.get("user.location")) == ["Paris"] and keep.claim_id
    assert all(other.check().values())
