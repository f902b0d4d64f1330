"""The offline judge (RuleReasoner, the default) weighs sides, not single claims (QA2 F1):
agreeing claims, in the same or other words, are one side, as strong as its heaviest agent;
the writer's own `confidence` only decides between sides of about the same authority."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Claim, Fact, JudgeCase, Kind, Policy, RuleReasoner, Status

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
WEIGHTS = {"boss": {"*": 0.9}, "lead": {"*": 0.9}, "intern": {"*": 0.1}}
JUDGE = Policy(default_strategy="judge", authority=WEIGHTS)
WINDOW = Policy(near_simultaneous_s=60, default_on_ambiguous="judge", authority=WEIGHTS)


def say(vault, agent, entity, value, seconds=0.0, confidence=0.7):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds),
                confidence=confidence)
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def agents_of(view):
    return sorted((c.value, c.agent) for c in view.active)


@pytest.mark.parametrize("policy", [JUDGE, WINDOW], ids=["judge", "recency-window"])
@pytest.mark.parametrize(("entity", "boss", "lead", "intern"), [
    ("user.timezone", "PST", "PST", "EST"),
    ("user.timezone", "PST", "Pacific time", "EST"),  # one zone in other words
    ("user.name", "Maria", "Maria Gonzalez", "Ana"),  # a name said more fully agrees
    ("user.diet", "vegan", "vegan", "not:vegan"),
])
def test_a_light_agent_does_not_beat_agreeing_heavy_agents_by_its_confidence(make_vault, policy, entity, boss, lead, intern):
    vault = make_vault(policy=policy)
    say(vault, "boss", entity, boss, 0)
    say(vault, "lead", entity, lead, 1)
    lost = say(vault, "intern", entity, intern, 2, confidence=1.0)
    assert lost.outcome == "superseded" and lost.superseded == ()
    assert "clearly more authority" in lost.reason and "more confident" not in lost.reason
    view = vault.get(entity)
    assert not view.contested and agents_of(view) == sorted([(boss, "boss"), (lead, "lead")])
    assert vault.claim(lost.claim_id).superseded_by in {c.id for c in view.active}


@pytest.mark.parametrize("order", ["boss first", "lead first"])
def test_on_a_many_entity_a_role_in_other_words_is_one_side(make_vault, order):
    vault = make_vault(policy=JUDGE)
    vault.set_cardinality("user.family", "many")
    pair = [("boss", "wife:Ann"), ("lead", "spouse:Ann")]
    for i, (agent, value) in enumerate(pair if order == "boss first" else pair[::-1]):
        say(vault, agent, "user.family", value, i)
    lost = say(vault, "intern", "user.family", "wife:Bea", 5, confidence=1.0)
    assert lost.outcome == "superseded"
    assert vault.get("user.family").values in (("wife:Ann", "spouse:Ann"), ("spouse:Ann", "wife:Ann"))


def test_the_heavy_side_wins_as_newcomer_too(make_vault):
    vault = make_vault(policy=JUDGE)
    say(vault, "intern", "user.timezone", "EST", 0, confidence=1.0)
    won = say(vault, "boss", "user.timezone", "PST", 1, confidence=0.1)
    assert won.outcome == "active" and "boss has clearly more authority" in won.reason
    assert vault.get("user.timezone").values == ("PST",)


def test_confidence_decides_between_sides_of_one_authority(make_vault):
    vault = make_vault(policy=Policy(default_strategy="judge"))  # no authority: every agent weighs the same
    say(vault, "a", "user.timezone", "PST", 0, confidence=0.5)
    won = say(vault, "b", "user.timezone", "EST", 1, confidence=0.9)
    assert won.outcome == "active" and "b is clearly more confident" in won.reason
    assert vault.get("user.timezone").values == ("EST",)


def test_a_sides_confidence_is_its_surest_claims(make_vault):
    """Two agents agreeing at 0.9 against one at 0.6: the side of 0.9 is clearly surer (the two
    surest claims, both on one side, were a gap of 0 and opened a dispute)."""
    vault = make_vault(policy=Policy(default_strategy="judge"))
    say(vault, "a", "user.timezone", "PST", 0, confidence=0.9)
    say(vault, "b", "user.timezone", "PST", 1, confidence=0.9)
    lost = say(vault, "c", "user.timezone", "EST", 2, confidence=0.6)
    assert lost.outcome == "superseded" and "clearly more confident" in lost.reason
    assert vault.disputes() == [] and agents_of(vault.get("user.timezone")) == [("PST", "a"), ("PST", "b")]


def test_no_clear_gap_opens_a_dispute(make_vault):
    vault = make_vault(policy=Policy(default_strategy="judge", authority={"a": {"*": 0.8}, "b": {"*": 0.7}}))
    say(vault, "a", "user.timezone", "PST", 0, confidence=0.8)
    parked = say(vault, "b", "user.timezone", "EST", 1, confidence=0.9)
    assert parked.outcome == "disputed" and "no clear authority or confidence gap" in parked.reason
    assert vault.get("user.timezone").contested


def test_a_gap_of_two_tenths_is_clear_whatever_the_floating_point(make_vault):
    vault = make_vault(policy=Policy(default_strategy="judge", authority={"a": {"*": 0.3}, "b": {"*": 0.1}}))
    say(vault, "a", "user.timezone", "PST", 0, confidence=0.1)
    lost = say(vault, "b", "user.timezone", "EST", 1, confidence=1.0)  # 0.3 - 0.1 is 0.19999999999999998
    assert lost.outcome == "superseded" and "a has clearly more authority (+0.20)" in lost.reason


def test_the_rule_judge_reads_a_case_of_its_own():
    """A case built by hand (a custom engine, a test of a prompt): an incumbent that says the
    incoming value in other words is on its side, and lends it its weight."""
    def claim(cid, agent, value, confidence=0.5):
        return Claim(cid, "user.timezone", f"user.timezone is {value}", value, Kind.SEMANTIC, agent, None, T0, T0,
                     Status.ACTIVE, confidence=confidence)

    weights = {"intern": 0.1, "lead": 0.9, "boss": 0.5}
    case = JudgeCase(claim("new", "intern", "EST"), (claim("l", "lead", "Eastern time"), claim("b", "boss", "PST")), weights)
    judged = RuleReasoner().judge(case)
    assert judged.winner == "new" and "intern, lead" in judged.rationale
    alone = JudgeCase(claim("new", "intern", "EST"), (claim("b", "boss", "PST"),), weights)
    assert RuleReasoner().judge(alone).winner == "b"
