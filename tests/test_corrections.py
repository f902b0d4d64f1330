"""A turn that only corrects a value ("Correction: Mountain time, not Pacific", "Oops, I
meant Denver") reads as the user's previous statement with the value replaced; with no
statement to correct, a zone is still the user's zone and any other value is reported,
never dropped in silence."""

from __future__ import annotations

import pytest

from vault_ray import HashingEmbedder, LocalEmbedder, RuleReasoner, Vault
from vault_ray.values import canonical


def chat(*turns: str, between: str = "Noted!") -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for i, t in enumerate(turns):
        if i:
            out.append({"role": "assistant", "content": between})
        out.append({"role": "user", "content": t})
    return out


def read(messages) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(f.entity, canonical(f.entity, f.value)) for f in RuleReasoner().extract_turn(messages).facts]


@pytest.mark.parametrize(("before", "fix", "fact"), [
    ("I live in Boston and I love sushi", "Correction: Denver, not Boston", ("user.location", "Denver")),
    ("I'm on Pacific time and I love sushi", "Oops, I meant Mountain time", ("user.timezone", "Mountain time")),
    ("My budget is $500", "sorry, $700", ("user.budget", "$700")),
    ("I moved to Lisbon", "nope, Porto now", ("user.location", "Porto")),
    ("My budget is 2000 euros", "Oops, 2500 euros", ("user.budget", "2500 euros")),
])
def test_a_correction_reads_as_the_previous_statement_with_the_new_value(before, fix, fact):
    assert read(chat(before, fix)) == [(fact[0], canonical(*fact))]


@pytest.mark.parametrize("fix", ["Correction: Mountain time, not Pacific", "Actually, Mountain time",
                                 "Make that Mountain time", "oops, Mountain time instead"])
def test_a_corrected_zone_with_nothing_before_it_is_the_users_zone(fix):
    assert read(fix) == [("user.timezone", canonical("user.timezone", "Mountain time"))]


@pytest.mark.parametrize("fix", ["nope, Denver now", "Oops, typo - I meant Denver", "Correction: $700"])
def test_a_correction_with_nothing_to_correct_is_reported_not_dropped(fix):
    extraction = RuleReasoner().extract_turn(fix)
    assert extraction.facts == ()
    (missed,) = extraction.unextracted
    assert missed.text == fix and "correction" in missed.reason and "earlier" in missed.reason


@pytest.mark.parametrize("turn", ["No thanks", "Sorry!", "No, that's wrong", "Actually, never mind", "Wait, what?"])
def test_a_reply_with_no_value_is_no_correction(turn):
    extraction = RuleReasoner().extract_turn(chat("I live in Boston", turn))
    assert extraction.facts == () and not any("correction" in u.reason for u in extraction.unextracted)


@pytest.mark.parametrize("messages", [
    # what the assistant did or said is what these correct, not the user's fact
    chat("I live in Boston.", "No, Cambridge.", between="Great, I booked a table in Boston for Friday."),
    chat("My timezone is PST.", "No, GMT.", between="I scheduled the call for 3pm CET."),
    chat("I live in Boston. Find me hotels in Rome.", "Sorry, Florence.", between="Here are hotels in Rome."),
    chat("I live in Boston. Find me hotels in Rome.", "Sorry, Florence."),
    # a hometown or a birthday does not change "now"
    chat("I was born in Boston.", "Nope, Berlin now"), chat("I grew up in Ohio", "Nope, Berlin now"),
    # a bare "No, GMT." with nothing before it may answer anything
    "No, GMT.",
])
def test_a_correction_of_something_else_stores_nothing(messages):
    assert read(messages) == []


def test_a_turn_that_reads_alone_as_a_fact_but_corrects_someone_elses_is_not_stored():
    extraction = RuleReasoner(LocalEmbedder()).extract_turn(chat("My office is on Pacific time.", "Oops, I meant Eastern"))
    assert extraction.facts == () and any("someone else" in u.reason for u in extraction.unextracted)
    assert read(chat("I'm on Pacific time.", "Oops, I meant Eastern time")) == [
        ("user.timezone", canonical("user.timezone", "Eastern time"))]


def test_a_correction_finds_the_clause_whose_fact_it_fits():
    assert read(chat("I live in Boston and I love Thai food", "Correction: Denver")) == [
        ("user.location", canonical("user.location", "Denver"))]


@pytest.mark.parametrize(("before", "fix"), [
    # a value no check can tell from any word (an allergy, a name, a day) is not taken from a bare reply; nor is an
    # employer that is a person's name, a greeting or a place
    ("I work at Google.", "Sorry, Dave"), ("I work at Google.", "Sorry, lol"), ("I work at Google.", "brb"),
    ("I work at Google.", "Sorry, Denver"), ("I work at Google.", "Thanks, Claude"),
    ("I'm allergic to peanuts.", "Sorry, Dave"), ("My name is Sam.", "Actually, Boston"),
    ("My budget is $500.", "Sorry, 5pm"), ("I live in Boston.", "Actually, same"), ("I wake up at 7am.", "Sorry, Tuesday"),
    # not the user's fact to correct
    ("My boss is on Pacific time.", "Sorry, Mountain time"), ("My meeting is at 3pm Pacific.", "Sorry, Mountain time"),
    ("I live in Boston.", "Actually, Amazon"),
])
def test_a_reply_that_cannot_be_checked_as_the_correction_stores_nothing(before, fix):
    assert read(chat(before, fix)) == []


def test_an_answer_to_the_assistants_question_corrects_nothing_the_user_said():
    # "Shall I book the Paris hotel?" "No, London": a booking, not where the user lives
    messages = chat("I live in Boston", "No, London", between="Shall I book the Paris hotel for you?")
    assert ("user.location", canonical("user.location", "London")) not in read(messages)


def test_only_a_value_of_the_same_kind_is_replaced():
    # the last clause reads a food, the zone before it is what "Mountain time" corrects
    assert read(chat("I'm on Pacific time and I love sushi", "Correction: Mountain time")) == [
        ("user.timezone", canonical("user.timezone", "Mountain time"))]


def test_the_correction_replaces_the_agents_own_claim_in_the_store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        agent = vault.agent("chat")
        first = agent.add(chat("I live in Boston"))
        result = agent.add(chat("I live in Boston", "Oops, I meant Denver"))
        (decision,) = result.decisions
        assert decision.op.value == "REPLACE" and decision.superseded == (first.decisions[0].claim_id,)
        assert vault.get("user.location").values == ("Denver",)
        assert vault.claim(decision.claim_id).source == "Oops, I meant Denver"
