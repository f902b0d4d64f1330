"""Episodic claims record events, which all happened (QA round 95, F12): two events on one
entity never contradict or supersede each other, nor does a fact supersede an event; reads
show every one. The same event said again by the same agent is a NOOP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from vault_ray import Fact, Kind
from vault_ray.models import Op, Outcome, Status

T0 = datetime.now(UTC) - timedelta(hours=2)


def event(text: str, value: str, minute: int = 0, **kw) -> Fact:
    return Fact("user.trip", text, value=value, kind=Kind.EPISODIC, observed_at=T0 + timedelta(minutes=minute), **kw)


def test_two_events_both_stay(make_vault):
    vault = make_vault()
    (paris,) = vault.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris")]).decisions
    (rome,) = vault.agent("b").add_facts([event("The user flew to Rome on June 3", "Rome", 5)]).decisions
    (lisbon,) = vault.agent("b").add_facts([event("The user flew to Lisbon on July 9", "Lisbon", 6)]).decisions
    assert [d.outcome for d in (paris, rome, lisbon)] == [Outcome.ACTIVE] * 3
    assert rome.superseded == () and lisbon.op == Op.ADD and lisbon.superseded == ()
    view = vault.get("user.trip")
    assert sorted(c.value for c in view.active) == ["Lisbon", "Paris", "Rome"] and not view.contested
    assert {c.status for c in vault.history("user.trip")} == {Status.ACTIVE}
    assert vault.disputes() == []
    found = {h.claim.value: h for h in vault.search("where did the user fly", k=5)}
    assert set(found) == {"Paris", "Rome", "Lisbon"} and not any(h.contested for h in found.values())


def test_two_trips_to_one_place_are_two_events(make_vault):
    vault = make_vault()
    vault.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris")])
    (again,) = vault.agent("a").add_facts([event("The user flew to Paris on August 3", "Paris", 9)]).decisions
    assert again.op == Op.ADD and again.outcome == Outcome.ACTIVE
    assert len(vault.get("user.trip").active) == 2
    assert len(vault.search("the user flew to Paris", k=5)) == 2  # two events, not one value said twice


def test_the_same_event_from_the_same_agent_is_known(make_vault):
    vault = make_vault()
    (first,) = vault.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris")]).decisions
    (again,) = vault.agent("a").add_facts([event("the user flew to Paris on May 1.", "Paris", 3)]).decisions
    assert again.op == Op.NOOP and again.claim_id == first.claim_id
    (other,) = vault.agent("b").add_facts([event("The user flew to Paris on May 1", "Paris", 4)]).decisions
    assert other.op == Op.ADD  # another agent's record of it: its own provenance
    (hit,) = vault.search("the user flew to Paris on May 1", k=5)
    assert {hit.claim.agent, *(c.agent for c in hit.agreeing)} == {"a", "b"}


def test_facts_and_events_do_not_meet(make_vault):
    """A fact on the entity is decided among facts only; an event is never its incumbent."""
    vault = make_vault()
    vault.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris")])
    (plan,) = vault.agent("b").add_facts([Fact("user.trip", "The user's next trip is to Oslo", value="Oslo",
                                                 observed_at=T0 + timedelta(minutes=1))]).decisions
    assert plan.outcome == Outcome.ACTIVE and plan.superseded == ()
    (change,) = vault.agent("c").add_facts([Fact("user.trip", "The user's next trip is to Bergen", value="Bergen",
                                                   observed_at=T0 + timedelta(minutes=2))]).decisions
    assert change.superseded == (plan.claim_id,)  # facts contradict as before (recency)
    assert sorted(c.value for c in vault.get("user.trip").active) == ["Bergen", "Paris"]


def test_events_survive_a_reopen_and_an_as_of_read(make_vault, tmp_path):
    vault = make_vault("s")
    vault.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris")])
    (rome,) = vault.agent("b").add_facts([event("The user flew to Rome on June 3", "Rome", 5)]).decisions
    at = vault.claim(rome.claim_id).recorded_at
    vault.close()
    again = make_vault("s")
    (dup,) = again.agent("a").add_facts([event("The user flew to Paris on May 1", "Paris", 7)]).decisions
    assert dup.op == Op.NOOP  # the kind is read back from the log
    assert sorted(c.value for c in again.get("user.trip", as_of=at).active) == ["Paris", "Rome"]


def test_over_http_events_accumulate(served_app):
    def post(agent: str, text: str, value: str) -> dict:
        token = served_app.token(agent)
        body = {"facts": [{"entity": "user.trip", "text": text, "value": value, "kind": "episodic"}]}
        answer = httpx.post(f"{served_app.url}/v1/facts", json=body, headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    post("agent-a", "The user flew to Paris on May 1", "Paris")
    post("agent-b", "The user flew to Rome on June 3", "Rome")
    token = served_app.token("reader")
    view = httpx.get(f"{served_app.url}/v1/entities/user.trip", headers={"Authorization": f"Bearer {token}"}).json()
    assert sorted(c["value"] for c in view["active"]) == ["Paris", "Rome"] and not view["contested"]


def test_an_event_does_not_take_back_its_agents_parked_challenge(authority):
    """On a `one` entity a new value of an agent withdraws its parked challenge; an event is no value."""
    authority.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    (est,) = authority.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", value="EST")]).decisions
    (trip,) = authority.agent("chat").add_facts([Fact("user.timezone", "The user changed planes in Denver (MST) on May 1",
                                                       value="MST", kind=Kind.EPISODIC)]).decisions
    assert trip.outcome == Outcome.ACTIVE and trip.superseded == ()
    assert authority.dispute(est.dispute_id).status == "open"
    assert authority.claim(est.claim_id).status == Status.DISPUTED
    view = authority.get("user.timezone")
    assert view.contested and sorted(c.value for c in view.active) == ["MST", "PST"]
    hits = {h.claim.value: h for h in authority.search("the user's time zone", k=5)}
    assert not hits["MST"].contested and "MST" not in [a.value for a in hits["PST"].alternatives]
