"""Pass-2 strategies (strategies.py) and how policy selects them (policy.py):
near-simultaneous writes and the judge, recency, high stakes, authority, consensus,
and the seed-001 scenarios (a)-(d)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import (
    Claim,
    Fact,
    Judgement,
    Kind,
    Policy,
    ReasonerError,
    ScriptedReasoner,
    Status,
)
from vault_ray.storage.layout import partition_of
from vault_ray.strategies import Action, decide, support_by_value

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
VEGETARIAN = "The user is vegetarian"
VEGAN = "The user is vegan"


def diet(text: str, seconds: float) -> Fact:
    return Fact("user.diet", text, value=text.rsplit(" ", 1)[-1], observed_at=T0 + timedelta(seconds=seconds))


def say(vault, agent, entity, value, seconds=0.0, session=None):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact, session=session or agent).decisions
    return decision


def window_policy(action: str) -> Policy:
    return Policy(near_simultaneous_s=30).with_on_ambiguous("user.diet", action)


# -- seed-001 (a): web and mobile 2 s apart inside a 30 s window ----------------------------
def test_a_near_simultaneous_asks_the_judge_once_and_its_winner_applies(make_vault):
    seen = []

    def judge(case):
        seen.append(case)
        return Judgement(case.incoming.id, "the mobile session is the user's latest word")

    reasoner = ScriptedReasoner(judge=judge)
    vault = make_vault(reasoner=reasoner, policy=window_policy("judge"))
    (web,) = vault.agent("web").add_facts(diet(VEGETARIAN, 0), session="web").decisions
    (mobile,) = vault.agent("mobile").add_facts(diet(VEGAN, 2), session="mobile").decisions

    assert reasoner.calls["judge"] == 1
    assert mobile.outcome == "active" and mobile.strategy == "recency"
    assert mobile.superseded == (web.claim_id,)
    assert vault.get("user.diet").values == ("vegan",)
    assert vault.claim(web.claim_id).superseded_by == mobile.claim_id
    (case,) = seen  # the judge saw both claims with their provenance
    assert (case.incoming.agent, case.incoming.session, case.incoming.text) == ("mobile", "mobile", VEGAN)
    assert [(c.agent, c.session, c.observed_at) for c in case.incumbents] == [("web", "web", T0)]
    assert case.weights == {"web": 0.5, "mobile": 0.5}


def test_a_judge_may_keep_the_incumbent(make_vault):
    reasoner = ScriptedReasoner(judge={VEGAN: "incumbent"})
    vault = make_vault(reasoner=reasoner, policy=window_policy("judge"))
    web = vault.agent("web").add_facts(diet(VEGETARIAN, 0)).decisions[0]
    mobile = vault.agent("mobile").add_facts(diet(VEGAN, 2)).decisions[0]
    assert reasoner.calls["judge"] == 1
    assert mobile.outcome == "superseded"
    assert vault.claim(mobile.claim_id).superseded_by == web.claim_id
    assert vault.get("user.diet").values == ("vegetarian",)


def test_a_ambiguous_judge_opens_a_dispute_with_its_rationale(make_vault):
    reasoner = ScriptedReasoner(judge={VEGAN: Judgement(None, "both sessions are equally recent")})
    vault = make_vault(reasoner=reasoner, policy=window_policy("judge"))
    vault.agent("web").add_facts(diet(VEGETARIAN, 0))
    mobile = vault.agent("mobile").add_facts(diet(VEGAN, 2)).decisions[0]
    assert mobile.outcome == "disputed" and reasoner.calls["judge"] == 1
    (dispute,) = vault.disputes()
    assert "both sessions are equally recent" in dispute.reason and not dispute.needs_user


def test_a_without_a_judge_a_dispute_opens_and_get_shows_both_values(make_vault):
    reasoner = ScriptedReasoner()
    vault = make_vault(reasoner=reasoner, policy=window_policy("dispute"))
    web = vault.agent("web").add_facts(diet(VEGETARIAN, 0), session="web").decisions[0]
    mobile = vault.agent("mobile").add_facts(diet(VEGAN, 2), session="mobile").decisions[0]

    assert reasoner.calls["judge"] == 0
    assert mobile.outcome == "disputed" and mobile.dispute_id
    view = vault.get("user.diet")
    assert view.contested
    assert sorted(view.values) == ["vegan", "vegetarian"]
    by_agent = {c.claim.agent: c for c in view.candidates}
    assert by_agent["web"].claim.id == web.claim_id and by_agent["web"].claim.session == "web"
    assert by_agent["mobile"].claim.observed_at == T0 + timedelta(seconds=2)
    assert {c.dispute_id for c in view.candidates} == {mobile.dispute_id}
    assert {c.weight for c in view.candidates} == {0.5}
    (hit, *_) = vault.search("what does the user eat? vegetarian", k=1)
    assert hit.contested and [a.id for a in hit.alternatives] == [mobile.claim_id]


def test_a_late_arrival_inside_the_window_is_not_trusted_either(make_vault):
    reasoner = ScriptedReasoner()
    vault = make_vault(reasoner=reasoner, policy=window_policy("dispute"))
    vault.agent("mobile").add_facts(diet(VEGAN, 2))
    late = vault.agent("web").add_facts(diet(VEGETARIAN, 0)).decisions[0]  # observed earlier, stored later
    assert late.outcome == "disputed"


# -- seed-001 (b): the same writes 10 minutes apart -------------------------------------------
@pytest.mark.parametrize("action", ["judge", "dispute"])
def test_b_clearly_ordered_writes_recency_decides_without_the_judge(make_vault, action):
    reasoner = ScriptedReasoner(judge={VEGAN: "incumbent"})
    vault = make_vault(reasoner=reasoner, policy=window_policy(action))
    web = vault.agent("web").add_facts(diet(VEGETARIAN, 0)).decisions[0]
    mobile = vault.agent("mobile").add_facts(diet(VEGAN, 600)).decisions[0]
    assert reasoner.calls["judge"] == 0
    assert mobile.outcome == "active" and mobile.strategy == "recency" and mobile.superseded == (web.claim_id,)
    assert vault.get("user.diet").values == ("vegan",) and vault.disputes() == []


def test_b_an_older_write_arriving_late_is_stored_superseded(make_vault):
    reasoner = ScriptedReasoner()
    vault = make_vault(reasoner=reasoner, policy=window_policy("judge"))
    mobile = vault.agent("mobile").add_facts(diet(VEGAN, 600)).decisions[0]
    web = vault.agent("web").add_facts(diet(VEGETARIAN, 0)).decisions[0]
    assert web.outcome == "superseded" and reasoner.calls["judge"] == 0
    assert vault.claim(web.claim_id).superseded_by == mobile.claim_id
    assert vault.get("user.diet").values == ("vegan",)


def test_writes_that_do_not_contradict_apply_whatever_their_timing(make_vault):
    reasoner = ScriptedReasoner()
    vault = make_vault(reasoner=reasoner, policy=Policy(near_simultaneous_s=30, default_on_ambiguous="judge"))
    a = say(vault, "web", "user.diet", "vegan", 0)
    b = say(vault, "mobile", "user.diet", "vegan", 1)  # agreement: corroboration
    c = say(vault, "web", "user.timezone", "PST", 1)
    d = say(vault, "mobile", "user.likes", "likes:jazz", 1)  # 'many': different items never conflict
    e = say(vault, "web", "user.likes", "likes:chess", 2)
    assert all(x.outcome == "active" for x in (a, b, c, d, e))
    assert reasoner.calls["judge"] == 0 and vault.disputes() == []
    assert len(vault.get("user.diet").active) == 2


# -- seed-001 (c): high stakes ------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["judge", "authority", "recency", "consensus"])
@pytest.mark.parametrize("strong", ["incumbent", "challenger"])
def test_c_payment_method_contradiction_always_needs_the_user(make_vault, strategy, strong):
    reasoner = ScriptedReasoner(judge=lambda case: Judgement(case.incoming.id, "would pick the new one"))
    policy = Policy(near_simultaneous_s=30, default_on_ambiguous="judge").with_strategy("user.payment.*", strategy)
    policy = policy.with_authority("billing" if strong == "incumbent" else "chat", "user.payment.*", 1.0)
    vault = make_vault(reasoner=reasoner, policy=policy)
    card = say(vault, "billing", "user.payment.method", "visa", 0)
    paypal = say(vault, "chat", "user.payment.method", "paypal", 3600)
    assert paypal.outcome == "disputed"
    assert reasoner.calls["judge"] == 0
    (dispute,) = vault.disputes()
    assert dispute.needs_user and dispute.incumbents == (card.claim_id,)
    assert sorted(vault.get("user.payment.method").values) == ["paypal", "visa"]


def test_c_custom_high_stakes_patterns(make_vault):
    vault = make_vault(policy=Policy(high_stakes=("user.medical.*",)))
    say(vault, "a", "user.medical.allergy_severity", "mild", 0)
    assert say(vault, "b", "user.medical.allergy_severity", "severe", 600).outcome == "disputed"
    assert vault.disputes()[0].needs_user
    say(vault, "a", "user.payment.method", "visa", 0)  # no longer high stakes: recency applies
    assert say(vault, "b", "user.payment.method", "amex", 600).outcome == "active"


# -- seed-001 (d): concurrent writes to different entities -----------------------------------------
def test_d_concurrent_writes_to_different_entities_all_apply(make_vault):
    vault = make_vault(policy=Policy(near_simultaneous_s=30))
    entities = sharing_partitions(vault.info().partitions, pairs=4)
    decisions: dict[str, object] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(entities))

    def write(i: int, entity: str) -> None:
        try:
            barrier.wait()
            decisions[entity] = say(vault, f"agent-{i}", entity, f"v{i}", 0, session=f"s{i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i, e)) for i, e in enumerate(entities)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(decisions[e].outcome == "active" for e in entities)
    assert [vault.get(e).values for e in entities] == [(f"v{i}",) for i in range(8)]


def sharing_partitions(partitions: int, pairs: int) -> list[str]:
    """Entities two by two on one partition (the same owner serializes them)."""
    by_part: dict[int, list[str]] = {}
    for i in range(1000):
        by_part.setdefault(partition_of(f"user.pref_{i}", partitions), []).append(f"user.pref_{i}")
    return [e for group in list(by_part.values())[:pairs] for e in group[:2]]


# -- authority --------------------------------------------------------------------------------------
def test_authority_higher_weight_wins_lower_opens_a_dispute(make_vault):
    policy = Policy(default_strategy="authority").with_authority("sched", "user.schedule.*", 0.9)
    policy = policy.with_authority("chat", "*", 0.3)
    vault = make_vault(policy=policy)
    first = say(vault, "chat", "user.schedule.gym", "at 7am", 0)
    won = say(vault, "sched", "user.schedule.gym", "at 8am", 10)
    assert won.outcome == "active" and won.strategy == "authority" and won.superseded == (first.claim_id,)
    lost = say(vault, "chat", "user.schedule.gym", "at 9am", 20)
    assert lost.outcome == "disputed" and lost.strategy == "authority"
    assert vault.get("user.schedule.gym").contested


# -- consensus --------------------------------------------------------------------------------------
def consensus_policy(**kw) -> Policy:
    return Policy(default_strategy="consensus", default_weight=1.0, consensus_margin=1, **kw)


def test_consensus_three_against_one_the_majority_wins(make_vault):
    vault = make_vault(policy=consensus_policy())
    xs = [say(vault, agent, "user.diet", "vegan", i) for i, agent in enumerate("abc")]
    y = say(vault, "d", "user.diet", "vegetarian", 10)
    assert all(x.outcome == "active" for x in xs)
    assert y.outcome == "superseded" and y.strategy == "consensus"
    view = vault.get("user.diet")  # one value, said by three agents: once in values, three times in active
    assert view.values == ("vegan",) and [c.agent for c in view.active] == ["a", "b", "c"] and vault.disputes() == []


def test_consensus_three_against_one_wins_in_any_order(make_vault):
    vault = make_vault(policy=consensus_policy())
    y = say(vault, "d", "user.diet", "vegetarian", 0)
    first = say(vault, "a", "user.diet", "vegan", 1)
    assert first.outcome == "disputed"  # one against one: no margin yet
    second = say(vault, "b", "user.diet", "vegan", 2)  # the disputed supporter counts: two against one
    assert second.outcome == "active" and second.dispute_id == first.dispute_id
    third = say(vault, "c", "user.diet", "vegan", 3)
    assert third.outcome == "active"
    assert set(vault.get("user.diet").values) == {"vegan"} and len(vault.get("user.diet").active) == 3
    (dispute,) = vault.disputes("resolved")
    assert dispute.resolution.decided_by == "strategy:consensus" and dispute.resolution.winner == first.claim_id
    assert vault.claim(y.claim_id).superseded_by == first.claim_id


def test_consensus_two_against_two_is_a_dispute(make_vault):
    vault = make_vault(policy=consensus_policy())
    first = say(vault, "a", "user.diet", "vegan", 0)
    challenger = say(vault, "c", "user.diet", "vegetarian", 1)
    say(vault, "b", "user.diet", "vegan", 2)  # two against one: the incumbents' majority settles the dispute
    (settled,) = vault.disputes("resolved")
    assert (settled.id, settled.resolution.winner) == (challenger.dispute_id, first.claim_id)
    assert settled.resolution.decided_by == "strategy:consensus" and vault.disputes() == []
    fourth = say(vault, "d", "user.diet", "vegetarian", 3)  # the overruled agent's assertion still counts: two against two
    assert challenger.outcome == "disputed" and fourth.outcome == "disputed"
    (dispute,) = vault.disputes()
    assert "no clear majority" in dispute.reason and dispute.challenger == fourth.claim_id
    view = vault.get("user.diet")
    assert view.contested and sorted(view.values) == ["vegan", "vegetarian"]  # each value once
    assert sorted(c.claim.value for c in view.candidates) == ["vegan", "vegan", "vegetarian"]  # who says it: candidates


def test_consensus_support_for_the_incumbent_settles_an_open_dispute(make_vault):
    """Only support for the challenger could close a dispute: one lost 3 to 1 stayed open."""
    vault = make_vault(policy=Policy(default_strategy="consensus", default_weight=1.0, consensus_margin=0.5))
    first = say(vault, "a", "user.diet", "vegan", 0)
    challenger = say(vault, "b", "user.diet", "vegetarian", 1)
    assert challenger.outcome == "disputed"
    say(vault, "c", "user.diet", "vegan", 2)
    assert vault.disputes() == [] and vault.claim(challenger.claim_id).superseded_by == first.claim_id
    assert not vault.get("user.diet").contested and set(vault.get("user.diet").values) == {"vegan"}


def test_consensus_a_heavy_agent_beats_two_light_ones_when_weights_say_so(make_vault):
    policy = Policy(default_strategy="consensus", consensus_margin=0.25,
                    authority={"expert": {"user.*": 0.9}, "l1": {"*": 0.3}, "l2": {"*": 0.3}})
    vault = make_vault(policy=policy)
    say(vault, "l1", "user.diet", "vegan", 0)
    say(vault, "l2", "user.diet", "vegan", 1)
    heavy = say(vault, "expert", "user.diet", "vegetarian", 2)
    assert heavy.outcome == "active" and heavy.strategy == "consensus" and len(heavy.superseded) == 2
    assert vault.get("user.diet").values == ("vegetarian",)


def test_consensus_equal_weights_two_light_ones_beat_the_single_agent(make_vault):
    vault = make_vault(policy=consensus_policy())
    say(vault, "l1", "user.diet", "vegan", 0)
    say(vault, "l2", "user.diet", "vegan", 1)
    single = say(vault, "expert", "user.diet", "vegetarian", 2)
    assert single.outcome == "superseded"


def test_consensus_an_agent_counts_once_and_its_retracted_claim_not_at_all(make_vault):
    vault = make_vault(policy=consensus_policy())
    say(vault, "a", "user.diet", "vegan", 0)
    say(vault, "b", "user.diet", "vegan", 1)
    # a changes its mind: its own earlier 'vegan' no longer supports 'vegan' (one against one)
    turn = say(vault, "a", "user.diet", "vegetarian", 2)
    assert turn.op == "REPLACE" and turn.outcome == "disputed"


def claim(cid: str, agent: str, value: str, seconds: float = 0, entity: str = "user.diet") -> Claim:
    t = T0 + timedelta(seconds=seconds)
    return Claim(cid, entity, f"{entity} is {value}", value, Kind.SEMANTIC, agent, None, t, t, Status.ACTIVE)


def test_support_counts_distinct_agents_weighted():
    policy = Policy(default_weight=1.0, authority={"b": {"*": 0.25}})
    support = support_by_value([claim("1", "a", "X"), claim("2", "a", "X"), claim("3", "b", "X"),
                                claim("4", "c", "Y")], policy)
    assert support["x"] == (1.25, {"a", "b"}) and support["y"] == (1.0, {"c"})


def test_strategies_are_pure_and_high_stakes_come_first():
    incoming, old = claim("new", "a", "X", 5, "user.payment.method"), claim("old", "b", "Y", 0, "user.payment.method")
    policy = Policy(default_strategy="judge", authority={"a": {"*": 1.0}})
    before = (incoming, old)
    verdict = decide(incoming, [old], policy)
    assert (incoming, old) == before
    assert verdict.action == Action.DISPUTE and verdict.needs_user and verdict.weights == {"a": 1.0, "b": 0.5}
    assert decide(claim("n", "a", "X", 5), [claim("o", "b", "Y")], policy).action == Action.ASK_JUDGE


# -- the judge strategy ------------------------------------------------------------------------------
def test_judge_strategy_is_called_only_on_contradictions(make_vault):
    reasoner = ScriptedReasoner(judge=lambda case: Judgement(case.incoming.id, "newer and more specific"))
    vault = make_vault(reasoner=reasoner, policy=Policy(default_strategy="judge"))
    say(vault, "a", "user.diet", "vegan", 0)
    say(vault, "b", "user.diet", "vegan", 1)
    say(vault, "a", "user.timezone", "PST", 2)
    assert reasoner.calls["judge"] == 0
    won = say(vault, "c", "user.diet", "vegetarian", 3)
    assert reasoner.calls["judge"] == 1 and won.outcome == "active" and won.strategy == "judge"
    assert vault.get("user.diet").values == ("vegetarian",)


def test_judge_naming_a_claim_outside_the_case_is_an_error_and_changes_nothing(make_vault):
    reasoner = ScriptedReasoner(judge={"user.diet is vegetarian": "no-such-claim"})
    vault = make_vault(reasoner=reasoner, policy=Policy(default_strategy="judge"))
    say(vault, "a", "user.diet", "vegan", 0)
    before = vault.claims()
    with pytest.raises(ReasonerError):
        say(vault, "b", "user.diet", "vegetarian", 1)
    assert vault.claims() == before and vault.disputes() == []


def _city(agent: str, city: str, at: int) -> Fact:
    return Fact("user.location", f"The user lives in {city}", city, observed_at=1_700_000_000 + at)


def test_consensus_a_growing_majority_flips_the_value_and_explain_shows_the_tally(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus"))
    for i, agent in enumerate(("a", "b")):
        vault.agent(agent).add_facts(_city(agent, "Paris", i))
    outcomes = []
    for i, agent in enumerate(("c", "d", "e", "f")):
        outcomes.append(vault.agent(agent).add_facts(_city(agent, "Berlin", 10 + i)).decisions[0])
    assert str(outcomes[0].outcome) == "superseded"  # outvoted 2 to 1 on arrival...
    view = vault.get("user.location")  # ...but counted when the majority grew
    assert {c.value for c in view.active} == {"Berlin"} and view.active
    assert not vault.get("user.location").contested
    flips = [e for e in vault.events(entity="user.location") if e.kind == "consensus_flipped"]
    assert len(flips) == 1
    winner = vault.explain(flips[0].claim_id)
    text = str(winner)
    assert "consensus flipped" in text and "'berlin'" in text and "'paris'" in text and "from 2 agent(s)" in text
    paris = [c for c in vault.history("user.location") if c.value == "Paris"]
    assert all(c.status == "superseded" for c in paris)


def test_consensus_does_not_recount_what_a_person_decided(make_vault):
    vault = make_vault(policy=Policy(default_strategy="consensus"))
    vault.agent("a").add_facts(_city("a", "Paris", 0))
    b = vault.agent("b").add_facts(_city("b", "Berlin", 1)).decisions[0]  # 1 vs 1: a dispute
    assert b.dispute_id is not None
    vault.resolve_dispute(b.dispute_id, winner=vault.get("user.location").active[0].id, decided_by="user")
    c = vault.agent("c").add_facts(_city("c", "Berlin", 2)).decisions[0]
    # b's claim lost to a person's decision: it does not count again, so 1 vs 1 again, no flip
    assert str(c.outcome) == "disputed"
    assert [e for e in vault.events(entity="user.location") if e.kind == "consensus_flipped"] == []
