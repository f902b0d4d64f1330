"""A dispute's reason follows who stands on each side (docs/policies.md, "A reason follows its
sides"): after a withdrawal, a retraction, a new supporter or a new backer of the standing value,
`disputes()`, `dispute(id)`, `get(...).disputes`, `explain` and HTTP state it about the claims that
stand now, never about an agent that left; a read `as_of` earlier shows the reason of then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from vault_ray import Fact, Policy

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.timezone"):
    fact = Fact(entity, f"The user is in {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def weighted(vault, strategy="authority"):
    vault.set_strategy("*", strategy)
    vault.set_authority("scheduler", "*", 0.9)
    vault.set_authority("chat", "*", 0.2)
    return vault


def every_reason(vault, dispute_id, entity="user.timezone"):
    """The reason as each surface of the library shows it (all the same)."""
    d = vault.dispute(dispute_id)
    seen = {d.reason, *(x.reason for x in vault.disputes() if x.id == dispute_id),
            *(x.reason for x in vault.get(entity).disputes if x.id == dispute_id),
            *(x.reason for x in vault.explain(d.challenger).disputes if x.id == dispute_id)}
    assert len(seen) == 1, seen
    return d.reason


@pytest.mark.parametrize("leaves", ["withdraws", "retracted"])
def test_the_challenger_leaves_and_its_supporter_holds_the_challenge(make_vault, leaves):
    vault = weighted(make_vault())
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    assert every_reason(vault, est.dispute_id) == "chat (0.20) does not outweigh scheduler (0.90)"
    say(vault, "planner", "EST", 70)
    if leaves == "withdraws":
        say(vault, "chat", "CET", 80)  # chat says something else: its EST is taken back
    else:
        vault.retract(est.claim_id, decided_by="user")
    reason = every_reason(vault, est.dispute_id)
    assert vault.dispute(est.dispute_id).challenger_agent == "planner"
    assert reason.startswith("planner (0.50) does not outweigh scheduler (0.90)") and "chat" not in reason


def test_a_new_supporter_and_a_new_backer_of_the_standing_value_restate_it(make_vault):
    vault = weighted(make_vault())
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    say(vault, "planner", "EST", 70)  # heavier than chat: the side's strongest now
    assert every_reason(vault, est.dispute_id) == "planner (0.50) does not outweigh scheduler (0.90)"
    vault.set_authority("hr", "*", 0.95)
    say(vault, "hr", "Pacific time", 80)  # the standing value in other words, by a heavier agent
    assert every_reason(vault, est.dispute_id) == "planner (0.50) does not outweigh hr (0.95)"
    # the other direction: the incumbent's own claim retracted, hr's stands for it
    scheduler = next(c for c in vault.get("user.timezone").active if c.agent == "scheduler")
    vault.retract(scheduler.id, decided_by="user")
    reason = every_reason(vault, est.dispute_id)
    assert reason.startswith("planner (0.50) does not outweigh hr (0.95)") and "scheduler" not in reason


def test_consensus_states_the_tally_of_the_votes_that_stand(make_vault):
    vault = make_vault()
    vault.set_strategy("*", "consensus")
    vault.set_authority("scheduler", "*", 0.9)
    vault.set_authority("chat", "*", 0.2)
    say(vault, "scheduler", "PST")
    lost = say(vault, "chat", "EST", 60)  # outvoted on arrival: stored superseded, still counted
    est = say(vault, "bot", "EST", 70)
    assert lost.dispute_id is None and "0.70 from 2 agent(s)" in every_reason(vault, est.dispute_id)
    vault.retract(lost.claim_id, decided_by="user")  # chat's vote no longer counts
    assert "0.50 from 1 agent(s)" in every_reason(vault, est.dispute_id)


def test_a_dispute_that_waits_for_a_person_keeps_why_and_names_who_stands(make_vault):
    vault = weighted(make_vault())
    pst = say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    vault.resolve_dispute(est.dispute_id, winner=pst.claim_id, decided_by="user")
    again = say(vault, "bot", "EST", 100)
    say(vault, "app", "EST", 110)
    say(vault, "bot", "CET", 120)  # bot takes its challenge back: app holds it
    reason = every_reason(vault, again.dispute_id)
    assert reason.startswith("'PST' was chosen by user") and vault.dispute(again.dispute_id).needs_user
    assert "(authority: app (0.50) does not outweigh scheduler (0.90))" in reason and "bot" not in reason


def test_recency_and_as_of(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=600))
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    say(vault, "planner", "EST", 300)
    before = datetime.now(UTC)
    assert "observed 300.0s apart" in every_reason(vault, est.dispute_id)  # the side's newest word
    vault.retract(say(vault, "hr", "PST", 290).claim_id, decided_by="user")  # a backer came and went
    say(vault, "chat", "CET", 400)  # chat withdraws; planner holds the challenge
    assert vault.dispute(est.dispute_id).challenger_agent == "planner"
    assert "observed 300.0s apart" in every_reason(vault, est.dispute_id)
    (then,) = vault.get("user.timezone", as_of=before).disputes
    assert then.challenger_agent == "chat" and "observed 300.0s apart" in then.reason


def test_http_shows_the_restated_reason(served_app):
    vault = weighted(served_app.vault)
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    say(vault, "planner", "EST", 70)
    vault.retract(est.claim_id, decided_by="user")
    headers = {"Authorization": f"Bearer {served_app.token('ana', 'admin')}"}
    body = httpx.get(f"{served_app.url}/v1/disputes", headers=headers, timeout=30).json()
    rows = body["disputes"] if isinstance(body, dict) else body
    (row,) = [r for r in rows if r["id"] == est.dispute_id]
    assert row["reason"].startswith("planner (0.50) does not outweigh scheduler (0.90)")
