"""A short answer to the assistant's question is read as the statement the pair makes,
or reported: "PST" after "What time zone are you in?" was dropped without a word."""

from __future__ import annotations

import pytest

from vault_ray import HashingEmbedder, RuleReasoner
from vault_ray.values import canonical


def turn(question: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": "Hi, can you set up my calendar?"},
            {"role": "assistant", "content": question}, {"role": "user", "content": answer}]


@pytest.mark.parametrize(("question", "answer", "fact"), [
    ("Sure. What time zone are you in?", "PST", ("user.timezone", "PST")),
    ("What timezone are you in?", "Pacific, please", ("user.timezone", "Pacific")),
    ("Where do you live these days?", "Berlin.", ("user.location", "Berlin")),
    ("Which city?", "Not Paris, Lyon.", ("user.location", "Lyon")),
    ("Where do you work?", "At Shopify", ("user.employer", "Shopify")),
    ("How old are you?", "34", ("user.age", "34")),
    ("What's your email?", "ana@example.com", ("user.email", "ana@example.com")),
    ("Do you follow a particular diet?", "vegan", ("user.diet", "vegan")),
    ("Which country do you live in?", "The US", ("user.location", "US")),
    ("What should I call you?", "Mia is fine.", ("user.name", "Mia")),
    # a filler before the answer is no part of it ("it's June 5" was stored as the birthday)
    ("When is your birthday?", "Actually, it's June 5", ("user.birthday", "June 5")),
    ("What city do you live in?", "Actually it's Boston.", ("user.location", "Boston")),
    # a yes or a no to a question about the user says what the question says, or its denial
    ("Do you speak Spanish?", "Yes, fluently.", ("user.language", "Spanish")),
    ("Are you still vegetarian?", "No, not anymore.", ("user.diet", "not:vegetarian")),
    ("Are you allergic to nuts?", "yes", ("user.allergies", "nuts")),
    ("Do you have a dog?", "Nope", ("user.pets", "not:dog")),
    ("Do you speak French?", "Of course not", ("user.language", "not:French")),
    ("Are you vegetarian?", "Definitely not", ("user.diet", "not:vegetarian")),
])
def test_a_short_answer_reads_as_the_statement_of_the_pair(question, answer, fact):
    extraction = RuleReasoner().extract_turn(turn(question, answer))
    (got,) = extraction.facts
    assert (got.entity, canonical(got.entity, got.value)) == (fact[0], canonical(*fact)) and got.source == answer


def test_an_answer_no_rule_reads_is_reported_with_its_question():
    extraction = RuleReasoner().extract_turn(turn("What time zone are you in?", "the usual one"))
    (missed,) = extraction.unextracted
    assert extraction.facts == () and "What time zone are you in?" in missed.reason


@pytest.mark.parametrize(("question", "answer"), [
    # someone else, a destination, an event, the past: not the user as they are
    ("What's your manager's email?", "boss@acme.com"), ("What's your sister's time zone?", "CET"),
    ("Which city are you flying to?", "Tokyo"), ("What time zone is the meeting in?", "EST"),
    ("Where did you live before moving here?", "Denver"), ("What was your job before you retired?", "teacher"),
    # a refusal or a sentence is no value
    ("How old are you?", "Prefer not to say"), ("Are you allergic to anything?", "not that I know of"),
    ("What should I call you?", "whatever"), ("What's your name?", "Same as my dad"),
    ("Which company do you work for?", "I'd prefer not to share that"), ("What time zone are you in?", "no idea"),
    # an offer, or a yes-no question about someone else
    ("Do you want me to book it?", "Yes please"), ("Would you like a window seat?", "Yes"),
    ("Is your sister coming?", "Yes"), ("Does your husband speak French?", "Yes"),
    # a yes-no question about tonight or an option, and an answer that is neither yes nor no
    ("Are you okay with Italian food tonight?", "Sure"), ("Do you like the first option?", "Yes"),
    ("Are you allergic to penicillin?", "I don't know"), ("Are you married?", "I'm not sure"),
    ("Do you speak Spanish?", "Still learning"),
])
def test_an_answer_to_a_question_not_about_the_user_now_gives_no_fact(question, answer):
    assert RuleReasoner().extract_turn(turn(question, answer)).facts == ()


def test_a_question_answered_already_asks_nothing_of_the_next_turn():
    messages = [*turn("Where do you live?", "Berlin"), {"role": "user", "content": "Paris is lovely in spring"}]
    assert RuleReasoner().extract_turn(messages).facts == ()


@pytest.mark.parametrize(("question", "answer", "fact"), [
    ("What's your budget for the trip?", "$3000", ("user.budget.trip", "$3000")),
    ("How much do you want to spend on the gift?", "$50", ("user.budget.gift", "$50")),
])
def test_a_budget_answer_keeps_what_it_is_for(question, answer, fact):
    (got,) = RuleReasoner().extract_turn(turn(question, answer)).facts
    assert (got.entity, got.value) == fact


@pytest.mark.parametrize(("question", "answer"), [("How are you?", "Good, thanks"), ("Anything else?", "No")])
def test_small_talk_and_a_turn_without_a_question_stay_as_they_were(question, answer):
    assert RuleReasoner().extract_turn(turn(question, answer)).facts == ()
    assert RuleReasoner().extract_turn(turn(question, answer)).unextracted == ()
    assert RuleReasoner().extract_turn("PST").facts == ()  # no question before it: no pair to read


def test_a_statement_answer_is_read_as_itself(make_vault):
    vault = make_vault(embedder=HashingEmbedder())
    result = vault.agent("scheduler").add(turn("Where do you live?", "I moved to Madrid last month"))
    assert [(d.entity, vault.claim(d.claim_id).value) for d in result.decisions] == [("user.location", "Madrid")]
    paired = vault.agent("scheduler").add(turn("What time zone are you in?", "CET"))
    assert [(d.entity, vault.claim(d.claim_id).value) for d in paired.decisions] == [("user.timezone", "CET")]
    assert vault.claim(paired.decisions[0].claim_id).source == "CET"
