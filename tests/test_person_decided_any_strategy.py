"""A person's decision stays decided whatever the strategy (QA round 98, F3). Under recency an
agent's later challenge to a value a person chose waits for a person; under authority with
equal weights, or consensus, a tying challenge opened a dispute no person was asked for, and
when the person then retracted their choice, `rule:incumbent_retracted` installed the very
value the person had rejected. Now every challenge to a person's decision waits for a person
(`needs_user`), and a retraction of the choice leaves the challenger held, not installed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import AutoResolveRules, Fact, Policy
from vault_ray.models import Status

T0 = datetime(2026, 5, 1, 12, tzinfo=UTC)
TZ = "user.timezone"


def say(vault, agent, value, seconds=0.0, entity=TZ):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def values(vault, entity=TZ) -> list[str]:
    return sorted(c.value for c in vault.get(entity).active)


def rules_decided(vault) -> list[str]:
    return [d.resolution.decided_by for d in vault.disputes("resolved") if d.resolution.decided_by.startswith("rule:")]


def person_rejects_est(vault, strategy, entity=TZ):
    """a says PST, b says EST: a dispute (a tie) that a person resolves for PST, rejecting EST."""
    vault.set_strategy(entity, strategy)
    pst = say(vault, "a", "PST", entity=entity)
    est = say(vault, "b", "EST", 10, entity=entity)
    assert est.outcome == "disputed", est.reason
    vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="user", note="still in LA")
    return pst, est


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
def test_a_rejected_value_is_not_installed_when_the_person_retracts_their_choice(vault, strategy):
    pst, _ = person_rejects_est(vault, strategy)
    again = say(vault, "b", "EST", 20)  # a tie again: before, a dispute no person was asked for
    assert again.outcome == "disputed" and "person" in again.reason
    (d,) = vault.disputes()
    assert d.needs_user and d.incumbents == (pst.claim_id,)
    assert values(vault) == ["PST"]
    vault.retract(pst.claim_id, decided_by="user", note="not PST after all")
    d = vault.dispute(d.id)
    assert d.status == "open" and d.resolution is None  # not rule:incumbent_retracted
    assert values(vault) == [] and vault.get(TZ).contested
    assert vault.claim(again.claim_id).status == Status.DISPUTED
    assert rules_decided(vault) == []
    vault.resolve_dispute(d.id, again.claim_id, decided_by="user")  # a person may still pick it
    assert values(vault) == ["EST"]


def test_under_recency_a_near_simultaneous_challenge_waits_for_a_person_too(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=30))
    pst = say(vault, "a", "PST")
    est = say(vault, "b", "EST", 10)  # inside the window: a dispute
    vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="user")
    close = say(vault, "c", "EST", 15)  # observed 15s after PST: no order trusted, a dispute
    assert close.outcome == "disputed"
    assert vault.dispute(close.dispute_id).needs_user
    later = say(vault, "d", "CST", 600)  # clearly newer: recency would let it win, a person decides
    assert later.outcome == "disputed" and vault.dispute(later.dispute_id).needs_user
    vault.retract(pst.claim_id, decided_by="user")
    assert values(vault) == [] and [r for r in rules_decided(vault) if r != "rule:joined"] == []
    (left,) = vault.disputes("open")  # one question for the person: the two challenges' values wait in it
    assert {left.challenger, *left.incumbents, *left.supporters} == {close.claim_id, later.claim_id}
    (joined,) = [d for d in vault.disputes(None) if d.id not in (est.dispute_id, left.id)]
    assert joined.resolution.decided_by == "rule:joined" and joined.resolution.winner is None


@pytest.mark.parametrize("weights", [(0.9, 0.2), (0.2, 0.9)])
def test_authority_with_unequal_weights(vault, weights):
    vault.set_strategy(TZ, "authority")
    vault.set_authority("a", TZ, weights[0])
    vault.set_authority("b", TZ, weights[1])
    pst = say(vault, "a", "PST")
    est = say(vault, "b", "EST", 10)
    if est.outcome == "disputed":  # the lighter agent challenges: a person keeps PST
        vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="user")
        chosen, challenger = pst, "b"
    else:  # the heavier agent won; a person then picks PST over it in a later dispute
        assert est.outcome == "active"
        back = say(vault, "a", "PST", 20)
        assert back.outcome == "disputed"
        vault.resolve_dispute(back.dispute_id, back.claim_id, decided_by="user")
        chosen, challenger = back, "b"
    again = say(vault, challenger, "EST", 30)
    assert again.outcome == "disputed" and vault.dispute(again.dispute_id).needs_user
    vault.retract(chosen.claim_id, decided_by="user")
    assert values(vault) == [] and vault.dispute(again.dispute_id).status == "open"
    assert rules_decided(vault) == []


def test_consensus_support_for_the_rejected_value_settles_nothing(make_vault):
    vault = make_vault(policy=Policy(rules=AutoResolveRules(reasserted_by=2)))
    pst, _ = person_rejects_est(vault, "consensus")
    again = say(vault, "c", "EST", 20)  # another agent this time
    assert again.outcome == "disputed" and vault.dispute(again.dispute_id).needs_user
    more = say(vault, "d", "EST", 30)  # two agents now: neither the majority nor reasserted_by settles it
    assert more.outcome == "disputed" and more.dispute_id == again.dispute_id
    assert values(vault) == ["PST"]
    vault.retract(pst.claim_id, decided_by="user")
    late = say(vault, "e", "EST", 40)  # after the retraction: counted as support, nothing installed
    assert late.outcome == "disputed" and values(vault) == [] and rules_decided(vault) == []


def test_a_new_value_after_the_retraction_is_held_beside_the_challenge(vault):
    pst, _ = person_rejects_est(vault, "authority")
    again = say(vault, "b", "EST", 20)
    vault.retract(pst.claim_id, decided_by="user")
    cst = say(vault, "c", "CST", 30)
    assert cst.outcome == "disputed" and cst.dispute_id == again.dispute_id
    assert {c.claim.value for c in vault.get(TZ).candidates} == {"EST", "CST"}
    assert values(vault) == []


def test_a_dispute_open_before_the_decision_waits_for_a_person_after_it(vault):
    vault.set_strategy(TZ, "authority")
    pst = say(vault, "a", "PST")
    est = say(vault, "b", "EST", 10)
    cst = say(vault, "c", "CST", 20)  # a second tie against PST, open when the person decides the first
    assert not vault.dispute(cst.dispute_id).needs_user
    vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="user")
    d = vault.dispute(cst.dispute_id)
    assert d.status == "open" and d.needs_user  # it now challenges a person's decision
    vault.retract(pst.claim_id, decided_by="user")
    assert vault.dispute(cst.dispute_id).status == "open" and values(vault) == []
    assert rules_decided(vault) == []


def test_a_many_entity_keeps_the_persons_choice_of_a_role(vault):
    fam = "user.family"
    vault.set_strategy(fam, "authority")
    maria = say(vault, "a", "wife:Maria", entity=fam)
    say(vault, "a", "brother:Tom", entity=fam)
    anna = say(vault, "b", "wife:Anna", 10, entity=fam)
    vault.resolve_dispute(anna.dispute_id, maria.claim_id, decided_by="user")
    again = say(vault, "c", "wife:Anna", 20, entity=fam)
    assert again.outcome == "disputed" and vault.dispute(again.dispute_id).needs_user
    vault.retract(maria.claim_id, decided_by="user")
    assert values(vault, fam) == ["brother:Tom"] and vault.dispute(again.dispute_id).status == "open"


def test_strategies_still_decide_where_no_person_did(vault):
    vault.set_strategy(TZ, "authority")
    say(vault, "a", "PST")
    est = say(vault, "b", "EST", 10)
    assert not vault.dispute(est.dispute_id).needs_user  # a tie between agents: no person asked


@pytest.mark.parametrize("winner", ["none", "incoming"])
def test_the_judge_neither_overturns_nor_leaves_a_decision_to_a_rule(make_vault, winner):
    from vault_ray import RuleReasoner
    from vault_ray.reasoners.base import Judgement

    class Judge(RuleReasoner):
        answer = "none"  # ambiguous until the person decided

        def judge(self, case):
            return Judgement(None if self.answer == "none" else case.incoming.id, "the judge's reading")

    judge = Judge()
    vault = make_vault(reasoner=judge, policy=Policy(default_strategy="judge"))
    pst = say(vault, "a", "PST")
    est = say(vault, "b", "EST", 10)
    vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="user")
    judge.answer = winner
    again = say(vault, "c", "EST", 20)
    assert again.outcome == "disputed" and vault.dispute(again.dispute_id).needs_user
    vault.retract(pst.claim_id, decided_by="user")
    assert values(vault) == [] and rules_decided(vault) == []
