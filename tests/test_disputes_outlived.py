"""Open disputes that outlive their reason (QA8 F3, F4): a newer claim takes the place of a
dispute's incumbent, and the entity's strategy, asked again about the parked challenger and the
claim now standing, decides against the challenger; or a person's decision elsewhere replaces
the incumbent a dispute listed (engine/outlived.py, waiting.after_decision)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import DisputeError, Fact, Policy
from vault_ray.models import Outcome, Status

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.timezone"):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def resolved_by(vault, dispute_id):
    d = vault.dispute(dispute_id)
    return None if d.resolution is None else d.resolution.decided_by


@pytest.mark.parametrize("later_agent", ["crm", "scheduler"])  # another agent, or the incumbent's own update
def test_recency_a_clearly_newer_value_settles_a_near_simultaneous_dispute(make_vault, later_agent):
    vault = make_vault(policy=Policy(near_simultaneous_s=2))
    pst = say(vault, "scheduler", "PST", 0)
    est = say(vault, "chat", "EST", 1)
    assert est.outcome == Outcome.DISPUTED and vault.get("user.timezone").contested
    cet = say(vault, later_agent, "CET", 20 * 3600)
    assert cet.outcome == Outcome.ACTIVE and cet.dispute_id == est.dispute_id
    assert set(cet.superseded) == {pst.claim_id, est.claim_id} and "settles open dispute" in cet.reason
    view = vault.get("user.timezone")
    assert view.values == ("CET",) and not view.contested and vault.disputes() == []
    assert [h.contested for h in vault.search("user timezone", k=3)] == [False]
    assert resolved_by(vault, est.dispute_id) == "strategy:recency"
    assert vault.dispute(est.dispute_id).resolution.winner == cet.claim_id
    # nothing lost: EST is in history, superseded by CET, and explain says why
    gone = vault.claim(est.claim_id)
    assert gone.status == Status.SUPERSEDED and gone.superseded_by == cet.claim_id
    assert {c.value for c in vault.history("user.timezone")} == {"PST", "EST", "CET"}
    why = vault.explain(est.claim_id)
    assert est.dispute_id in {d.id for d in why.disputes} and "strategy:recency" in str(why)
    settled = [e for e in vault.events(entity="user.timezone") if e.kind == "dispute_resolved"]
    assert [e.claim_id for e in settled] == [cet.claim_id]
    assert est.dispute_id in {d.id for d in vault.explain(cet.claim_id).disputes}


def test_recency_three_agents_in_one_burst_are_all_settled_by_a_later_value(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=5))
    say(vault, "a", "PST", 0)
    parked = [say(vault, agent, value, n + 1) for n, (agent, value) in enumerate((("b", "EST"), ("c", "JST")))]
    assert all(p.outcome == Outcome.DISPUTED for p in parked) and len(vault.disputes()) == 2
    later = say(vault, "d", "AKST", 600)
    assert vault.disputes() == [] and vault.get("user.timezone").values == ("AKST",)
    assert {resolved_by(vault, p.dispute_id) for p in parked} == {"strategy:recency"}
    assert {p.claim_id for p in parked} <= set(later.superseded)


def test_recency_a_newer_value_inside_the_challengers_window_keeps_the_dispute_with_a_new_reason(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=10))
    say(vault, "a", "PST", 0)
    est = say(vault, "b", "EST", 5)
    cet = say(vault, "c", "CET", 12)  # 12 s after PST (it wins), 7 s after EST: order not trusted
    assert cet.outcome == Outcome.ACTIVE and cet.dispute_id is None
    d = vault.dispute(est.dispute_id)
    assert d.status == "open" and d.incumbents == (cet.claim_id,)
    assert d.reason.startswith("near-simultaneous: observed 7.0s apart")
    assert set(vault.get("user.timezone").values) == {"CET", "EST"}
    changed = [e for e in vault.events(entity="user.timezone") if e.kind == "dispute_changed"]
    assert changed and changed[-1].detail["reason"] == d.reason


def test_judge_a_clear_pick_for_the_new_value_settles_the_open_dispute(make_vault):
    vault = make_vault()
    vault.set_strategy("user.home_city", "judge")
    vault.set_authority("boss", "*", 0.9)
    say(vault, "a", "Paris", 0, entity="user.home_city")
    berlin = say(vault, "b", "Berlin", 1, entity="user.home_city")
    assert berlin.outcome == Outcome.DISPUTED and "ambiguous" in berlin.reason
    rome = say(vault, "boss", "Rome", 2, entity="user.home_city")
    assert rome.outcome == Outcome.ACTIVE and berlin.claim_id in rome.superseded
    assert vault.get("user.home_city").values == ("Rome",) and vault.disputes() == []
    assert resolved_by(vault, berlin.dispute_id) == "strategy:judge"


def test_consensus_a_clear_majority_for_the_new_value_settles_the_open_dispute(make_vault):
    vault = make_vault()
    vault.set_strategy("user.home_city", "consensus")
    say(vault, "a", "Paris", 0, entity="user.home_city")
    berlin = say(vault, "b", "Berlin", 1, entity="user.home_city")
    assert berlin.outcome == Outcome.DISPUTED
    for n, agent in enumerate("cdf"):
        say(vault, agent, "Rome", 2 + n, entity="user.home_city")
    view = vault.get("user.home_city")
    assert set(view.values) == {"Rome"} and not view.contested and vault.disputes() == []
    assert resolved_by(vault, berlin.dispute_id) == "strategy:consensus"
    assert vault.claim(berlin.claim_id).status == Status.SUPERSEDED


def test_authority_keeps_its_dispute_when_a_heavier_agent_takes_the_incumbents_place(make_vault):
    vault = make_vault()
    vault.set_strategy("user.employer", "authority")
    vault.set_authority("crm", "*", 0.9)
    vault.set_authority("hr", "*", 0.95)
    say(vault, "crm", "Acme", 0, entity="user.employer")
    globex = say(vault, "bot", "Globex", 1, entity="user.employer")
    initech = say(vault, "hr", "Initech", 2, entity="user.employer")
    assert initech.outcome == Outcome.ACTIVE and initech.dispute_id is None
    d = vault.dispute(globex.dispute_id)
    assert d.status == "open" and d.incumbents == (initech.claim_id,)
    assert d.reason == "bot (0.50) does not outweigh hr (0.95)"  # about the claim that stands now
    assert vault.get("user.employer").contested


def test_a_dispute_that_waits_for_a_person_stays_open_and_says_what_took_the_place(make_vault):
    vault = make_vault()
    entity = "user.payment.method"  # high stakes by default
    visa = say(vault, "crm", "Visa", 0, entity=entity)
    paypal = say(vault, "assistant", "PayPal", 1, entity=entity)
    assert paypal.outcome == Outcome.DISPUTED
    master = say(vault, "crm", "Mastercard", 3600, entity=entity)  # crm updates its own claim
    assert master.outcome == Outcome.ACTIVE and visa.claim_id in master.superseded
    d = vault.dispute(paypal.dispute_id)
    assert d.status == "open" and d.needs_user and d.incumbents == (master.claim_id,)
    assert "since then 'Mastercard' (crm) took the place of 'Visa' (crm)" in d.reason
    assert set(vault.get(entity).values) == {"Mastercard", "PayPal"} and vault.get(entity).contested
    again = say(vault, "crm", "Amex", 7200, entity=entity)
    reason = vault.dispute(paypal.dispute_id).reason
    assert reason.count("since then") == 1 and "'Amex' (crm) took the place of 'Visa' (crm)" in reason
    assert again.outcome == Outcome.ACTIVE


def test_after_a_person_decided_elsewhere_a_recency_dispute_that_waits_for_a_person_stays_open(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=2))
    say(vault, "a", "PST", 0)
    est = say(vault, "b", "EST", 1)
    cst = say(vault, "c", "CST", 1.5)
    vault.resolve_dispute(cst.dispute_id, winner=cst.claim_id, decided_by="user", note="CST")
    d = vault.dispute(est.dispute_id)
    assert d.status == "open" and d.needs_user
    later = say(vault, "c", "MST", 3600)  # CST's own agent revises it: the dispute still waits for a person
    assert later.outcome == Outcome.ACTIVE
    assert vault.dispute(est.dispute_id).status == "open" and vault.get("user.timezone").contested


def two_disputes(vault):
    vault.set_strategy("user.employer", "authority")
    vault.set_authority("crm", "*", 0.9)
    acme = say(vault, "crm", "Acme", 0, entity="user.employer")
    globex = say(vault, "bot1", "Globex", 1, entity="user.employer")
    initech = say(vault, "bot2", "Initech", 2, entity="user.employer")
    return acme, globex, initech


def test_settling_the_second_dispute_for_the_incumbent_it_listed_names_the_values_that_can_win(make_vault):
    vault = make_vault()
    acme, globex, initech = two_disputes(vault)
    assert vault.dispute(initech.dispute_id).incumbents == (acme.claim_id,)
    vault.resolve_dispute(globex.dispute_id, winner=globex.claim_id, decided_by="user", note="moved to Globex")
    with pytest.raises(DisputeError, match="was since superseded") as err:
        vault.resolve_dispute(initech.dispute_id, winner=acme.claim_id, decided_by="user", note="not Initech")
    assert "'Globex'" in str(err.value) and "'Initech'" in str(err.value) and "not part of" not in str(err.value)
    d = vault.dispute(initech.dispute_id)
    assert d.status == "open" and d.incumbents == (globex.claim_id,) and d.needs_user
    assert d.reason.startswith("'Globex' was chosen by user") and "crm" not in d.reason
    assert initech.dispute_id in {x.id for x in vault.explain(acme.claim_id).disputes}
    done = vault.resolve_dispute(initech.dispute_id, winner=globex.claim_id, decided_by="user", note="not Initech")
    assert done.resolution.winner == globex.claim_id and vault.get("user.employer").values == ("Globex",)


def test_the_second_dispute_can_still_be_settled_for_its_challenger(make_vault):
    vault = make_vault()
    acme, globex, initech = two_disputes(vault)
    vault.resolve_dispute(globex.dispute_id, winner=globex.claim_id, decided_by="user")
    vault.resolve_dispute(initech.dispute_id, winner=initech.claim_id, decided_by="user", note="Initech after all")
    assert vault.get("user.employer").values == ("Initech",) and vault.disputes() == []
    assert vault.claim(acme.claim_id).status == Status.SUPERSEDED


def test_a_judge_that_fails_when_asked_again_leaves_the_dispute_and_the_write_stands(make_vault):
    from vault_ray import RuleReasoner

    class Flaky(RuleReasoner):
        calls = 0

        def judge(self, case):
            Flaky.calls += 1
            if Flaky.calls > 2:
                raise RuntimeError("model down")
            return super().judge(case)

    vault = make_vault(reasoner=Flaky())
    vault.set_strategy("user.home_city", "judge")
    vault.set_authority("boss", "*", 0.9)
    say(vault, "a", "Paris", 0, entity="user.home_city")
    berlin = say(vault, "b", "Berlin", 1, entity="user.home_city")  # the judge: ambiguous (call 1)
    rome = say(vault, "boss", "Rome", 2, entity="user.home_city")  # the judge picks Rome (2), then fails (3)
    assert rome.outcome == Outcome.ACTIVE and Flaky.calls == 3
    assert vault.dispute(berlin.dispute_id).status == "open"
    assert set(vault.get("user.home_city").values) == {"Rome", "Berlin"}


def test_a_retracted_incumbent_leaves_a_reason_about_the_claim_that_stands_now(make_vault):
    vault = make_vault()
    acme, globex, _ = two_disputes(vault)
    vault.set_authority("hr", "*", 0.9)
    backing = say(vault, "hr", "Acme", 3, entity="user.employer")  # another agent says the standing value
    vault.retract(acme.claim_id, decided_by="user", note="crm's record was wrong")
    d = vault.dispute(globex.dispute_id)
    assert d.status == "open" and d.incumbents == (backing.claim_id,)
    # stated again about the sides as they stand: hr's claim now holds the standing side, not crm's
    assert d.reason.startswith("bot1 (0.50) does not outweigh hr (0.90); since then claim ")
    assert d.reason.endswith("it stands against 'Acme' (hr)")
