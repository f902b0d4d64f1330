"""What a write says about the claims it replaced, and challenges their own agent takes back:

- an agent whose challenge is parked in a dispute and that says something else on a
  one-valued entity withdraws that challenge (it replaces its own active claims so too);
- a write that settles a dispute names the claims the settlement superseded;
- recency never calls an exact tie "newer";
- a pet said gone retracts that pet.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import DisputeError, Fact, InvalidInput, Policy
from vault_ray.engine.disputes import WITHDRAWN
from vault_ray.models import Outcome, Status

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.timezone"):
    fact = Fact(entity, f"The user is in {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def dispute(vault, dispute_id):
    return {d.id: d for d in vault.disputes(None)}[dispute_id]



def test_an_agent_correcting_its_parked_challenge_withdraws_it(authority):
    vault = authority
    pst = say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    central = say(vault, "chat", "Central", 120)
    mountain = say(vault, "chat", "Mountain", 180)
    assert est.outcome == central.outcome == mountain.outcome == Outcome.DISPUTED
    assert central.superseded == (est.claim_id,) and mountain.superseded == (central.claim_id,)
    view = vault.get("user.timezone")
    assert sorted(view.values) == ["Mountain", "PST"]  # not EST nor Central: chat took them back
    (still_open,) = vault.disputes()
    assert still_open.id == mountain.dispute_id and still_open.challenger == mountain.claim_id
    closed = {d.id: d for d in vault.disputes("resolved")}
    for gone in (est, central):
        d = closed[gone.dispute_id]
        assert d.resolution.decided_by == WITHDRAWN and d.resolution.winner == pst.claim_id
        assert vault.claim(gone.claim_id).status == Status.SUPERSEDED
    assert vault.claim(est.claim_id).superseded_by == central.claim_id
    with pytest.raises(DisputeError, match="already resolved"):  # a person can no longer pick a withdrawn value
        vault.resolve_dispute(est.dispute_id, winner=est.claim_id, decided_by="user")
    assert "withdrew" in str(vault.explain(est.claim_id)) or "withdrawn" in str(vault.explain(est.claim_id))


def test_a_correction_that_agrees_with_the_incumbent_ends_the_dispute(authority):
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    back = say(vault, "chat", "Pacific time", 120)  # the same value as PST, said otherwise
    assert back.outcome == Outcome.ACTIVE and back.superseded == (est.claim_id,)
    assert vault.disputes() == [] and not vault.get("user.timezone").contested


def test_withdrawal_spares_repeats_late_arrivals_many_valued_entities_and_backed_challenges(authority):
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    again = say(vault, "chat", "EST", 120)  # a repeat counts as a challenge, withdraws nothing
    assert again.dispute_id == est.dispute_id and again.superseded == ()
    late = say(vault, "chat", "CET", 30)  # observed before its parked claim: it does not take it back
    assert est.claim_id not in late.superseded and vault.claim(est.claim_id).status == Status.DISPUTED
    # a challenge another agent backs stays open for that agent
    say(vault, "scheduler", "Tokyo", entity="user.location")
    vault.set_strategy("user.location", "authority")
    vault.set_authority("scheduler", "user.location", 0.9)
    paris = say(vault, "chat", "Paris", 60, entity="user.location")
    backing = say(vault, "planner", "Paris", 70, entity="user.location")
    say(vault, "chat", "Rome", 80, entity="user.location")
    held = dispute(vault, paris.dispute_id)  # planner now holds the challenge chat took back
    assert held.status == "open" and held.challenger == backing.claim_id and held.challenger_agent == "planner"
    assert vault.claim(paris.claim_id).status == Status.SUPERSEDED
    # a many-valued entity: another value is more, not a correction
    vault.set_strategy("user.allergies", "authority")
    vault.set_authority("scheduler", "user.allergies", 0.9)
    say(vault, "scheduler", "not:peanuts", entity="user.allergies")
    nuts = say(vault, "chat", "peanuts", 60, entity="user.allergies")
    say(vault, "chat", "shellfish", 90, entity="user.allergies")
    assert nuts.dispute_id and dispute(vault, nuts.dispute_id).status == "open"


def test_a_write_that_settles_a_dispute_names_what_it_superseded(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus"))
    keto = say(vault, "a", "keto", 0, entity="user.diet")
    vegan = say(vault, "b", "vegan", 10, entity="user.diet")
    assert vegan.dispute_id
    settle = say(vault, "c", "vegan", 20, entity="user.diet")
    assert settle.outcome == Outcome.ACTIVE and settle.dispute_id == vegan.dispute_id
    assert keto.claim_id in settle.superseded
    assert vault.claim(keto.claim_id).status == Status.SUPERSEDED


def test_support_for_the_incumbents_that_settles_a_dispute_says_so(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus"))
    keto = say(vault, "a", "keto", 0, entity="user.diet")
    vegan = say(vault, "b", "vegan", 10, entity="user.diet")
    backing = [say(vault, agent, "keto", 20 + n, entity="user.diet") for n, agent in enumerate("cd")]
    settled = [d for d in backing if d.dispute_id == vegan.dispute_id]
    assert settled and settled[0].strategy == "consensus" and vegan.claim_id in settled[0].superseded
    assert set(vault.get("user.diet").values) == {"keto"} and keto.outcome == Outcome.ACTIVE


def test_recency_does_not_break_an_exact_tie_by_arrival_order(make_vault):
    vault = make_vault()
    vault.set_strategy("user.location", "recency")
    first = say(vault, "a", "Paris", 0, entity="user.location")
    tie = say(vault, "b", "Berlin", 0, entity="user.location")
    assert tie.outcome == Outcome.DISPUTED and "same moment" in tie.reason
    assert vault.claim(first.claim_id).status == Status.ACTIVE and vault.get("user.location").contested
    later = say(vault, "c", "Rome", 1, entity="user.location")
    assert later.outcome == Outcome.ACTIVE and later.reason.startswith("newer observation wins")
    # Berlin was observed before Rome too: the tie's dispute is settled for Rome (QA8 F3)
    assert later.dispute_id == tie.dispute_id and tie.claim_id in later.superseded
    assert vault.get("user.location").values == ("Rome",) and not vault.get("user.location").contested


@pytest.mark.parametrize("who", ["   ", "\n\t", "\u200b"])
def test_a_resolution_must_name_who_decided(authority, who):
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    with pytest.raises(InvalidInput, match="decided_by"):
        vault.resolve_dispute(est.dispute_id, winner=est.claim_id, decided_by=who)
    assert dispute(vault, est.dispute_id).status == "open"


def test_a_pet_said_gone_retracts_the_named_pet(vault):
    vault.agent("chat").add("My dog's name is Rex")
    (gone,) = vault.agent("chat").add("My dog died").decisions
    assert gone.op == "REPLACE" and vault.get("user.pets").values == ("not:dog",)


def test_all_lists_every_dispute_as_the_cli_and_http_say_it(authority):
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    say(vault, "chat", "CET", 120)  # withdraws EST: one resolved, one open
    everything = vault.disputes(None)
    assert vault.disputes("all") == everything and len(everything) == 2
    assert [d.id for d in vault.disputes("resolved")] == [est.dispute_id]


def test_a_custom_judge_that_fails_is_a_reasoner_error_and_writes_nothing(make_vault):
    from vault_ray import ReasonerError, RuleReasoner

    class Broken(RuleReasoner):
        def judge(self, case):
            raise RuntimeError("model server down")

    vault = make_vault(reasoner=Broken(), policy=Policy(default_strategy="judge"))
    say(vault, "a", "PST")
    with pytest.raises(ReasonerError, match="model server down"):
        say(vault, "b", "EST", 60)
    assert [c.value for c in vault.history("user.timezone")] == ["PST"] and vault.disputes(None) == []


def test_a_supporter_moving_on_takes_its_support_back(authority):
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 60)
    backing = say(vault, "planner", "EST", 90)
    moved = say(vault, "planner", "Mountain", 120)
    assert moved.superseded == (backing.claim_id,) and dispute(vault, est.dispute_id).supporters == ()
    say(vault, "chat", "Central", 150)  # the last backer moves on: the EST dispute closes
    assert dispute(vault, est.dispute_id).status == "resolved"
    assert sorted(vault.get("user.timezone").values) == ["Central", "Mountain", "PST"]


def test_a_denial_withdraws_only_the_value_it_denies(authority):
    vault = authority
    vault.set_authority("scheduler", "user.location", 0.9)
    vault.set_strategy("user.location", "authority")
    say(vault, "scheduler", "New York", entity="user.location")
    boston = say(vault, "chat", "Boston", 60, entity="user.location")
    denial = say(vault, "chat", "not:New York", 120, entity="user.location")  # agrees with its challenge
    assert boston.claim_id not in denial.superseded and dispute(vault, boston.dispute_id).status == "open"
    gone = say(vault, "chat", "not:Boston", 180, entity="user.location")  # takes it back
    assert boston.claim_id in gone.superseded and dispute(vault, boston.dispute_id).status == "resolved"


def test_backing_that_settles_two_disputes_names_both(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus"))
    say(vault, "a", "PST")
    b, c = say(vault, "b", "EST", 60), say(vault, "c", "Central", 120)
    settling = [say(vault, agent, "PST", 180 + n) for n, agent in enumerate("de")]
    named = {i for d in settling for i in d.superseded}
    assert {b.claim_id, c.claim_id} <= named and vault.disputes() == []


def test_a_withdrawal_by_a_repeat_points_at_the_claim_that_stands(authority):
    """A late value leaves the newer parked one in place; then repeating that newer value withdraws
    the late one. The repeat is counted, not stored: the withdrawn claim pointed at no claim."""
    vault = authority
    say(vault, "scheduler", "PST")
    est = say(vault, "chat", "EST", 120)
    late = say(vault, "chat", "CET", 60)  # older than its parked EST: withdraws nothing, parks too
    again = say(vault, "chat", "EST", 180)
    assert again.claim_id == est.claim_id and late.claim_id in again.superseded
    ids = {c.id for c in vault.history("user.timezone")}
    assert vault.claim(late.claim_id).superseded_by in ids
