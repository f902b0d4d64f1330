"""QA round 7 follow-ups: leaving a job said without the employer's name (the one said earlier in the conversation)
or in lower case ("i quit google"); a name's spelling corrected after the assistant said it back; a time zone switch
tied to a trip to come; one budget key per plan, singular; a place said with the job ("an accountant in Toronto"), a
headed list's bare first item ("Quick context: vegetarian, ..."), and children named after their count. Each is
checked with every reader (the local model, the hashing embedder and patterns only), with the near misses that must
stay without a fact."""

from __future__ import annotations

import pytest
from extraction_qa import chat, facts, reasons


def users(*turns: str) -> list[dict[str, str]]:
    """User turns only, one after another."""
    return [{"role": "user", "content": t} for t in turns]


# -- 1. leaving a job ------------------------------------------------------------------------------
@pytest.mark.parametrize(("earlier", "said", "want"), [
    ("I work at Google.", "I quit my job", "not:Google"),
    ("I work at Google.", "I just quit my job!", "not:Google"),
    ("I work at Google.", "I left my job last week", "not:Google"),
    ("I work at Google.", "Big news: I quit my job yesterday. Feeling great.", "not:Google"),
    ("I work at Google.", "I resigned", "not:Google"),
    ("I work at Google.", "I got laid off", "not:Google"),
    ("I work at Google.", "I was let go last week", "not:Google"),
    ("I work at Google.", "I quit my job two weeks ago", "not:Google"),
    ("I'm a nurse at St Mary's.", "I lost my job", "not:St Mary's"),
    ("i work at google", "i quit my job lol", "not:Google"),
    ("I work at Acme.", "i quit acme last week", "not:Acme"),  # a name said in lower case, said before
])
def test_leaving_an_unnamed_job_leaves_the_employer_said_earlier(reasoner, earlier, said, want):
    assert facts(reasoner, users(earlier, said)) == [("user.employer", want)]


@pytest.mark.parametrize(("earlier", "said"), [
    (None, "I quit my job"),  # no employer known: nothing
    (None, "I left my job last week"),
    ("My husband works at Google.", "I quit my job"),  # his
    ("I left Google.", "I quit my job"),  # left already
    ("I work at Google and freelance for Acme.", "I quit my job"),  # which one?
    ("I work at Google.", "I quit my job three years ago"),  # long ago: another employer
    ("I work at Google.", "I quit my job in 2015"),
    ("I work at Google.", "I left my old job"),
    ("I work at Google.", "If I quit my job, what happens to my 401k?"),
    ("I work at Google.", "Should I quit my job?"),
    ("I work at Google.", "I want to quit my job"),
    ("I work at Google.", "I'm not going to quit my job"),
    ("I work at Google.", "I left my job at 5pm"),
    ("I work at Google.", "I got fired from my band"),
    ("I work at Google.", "Write a story where I quit my job"),
    ("I work at Acme.", "i quit smoking"),
    ("I work at Acme.", "i left acme early"),
    ("I work at Acme Corp.", "i quit acme"),  # not the name said
])
def test_leaving_with_no_employer_to_name_stores_none(reasoner, earlier, said):
    assert facts(reasoner, users(earlier, said) if earlier else said) == []


@pytest.mark.parametrize(("said", "want"), [
    ("i quit google", [("user.employer", "not:Google")]),
    ("i left stripe last week", [("user.employer", "not:Stripe")]),
    ("i left microsoft after 5 years", [("user.employer", "not:Microsoft")]),
    ("I quit my job for good", []),
    ("I quit my job for personal reasons", []),
    ("I quit my job for Meta", []),  # the new one, or the old: not said
    ("i quit twitter", []), ("i quit sugar", []), ("i left target", []), ("i quit smoking", []), ("i left early", []),
    ("i work at home", []), ("i quit google docs", []), ("i left amazon a review", []),
])
def test_a_known_company_in_lower_case_reads_as_capitalized(reasoner, said, want):
    assert facts(reasoner, said) == want


def test_the_unnamed_leaving_retracts_the_stored_employer(make_vault):
    vault = make_vault()
    vault.agent("a").add(users("I work at Google."))
    vault.agent("a").add(users("I work at Google.", "I quit my job last week"))
    assert "Google" not in vault.get("user.employer").values


# -- 2. a name respelled after the assistant's echo ---------------------------------------------
@pytest.mark.parametrize(("said", "echo", "fix", "want"), [
    ("My name is Jon.", "Nice to meet you, John!", "Actually, it's Jon without an h", "Jon"),
    ("My name is Jon.", "Nice to meet you, John!", "It's Jon, no h", "Jon"),
    ("My name is Jon.", "Nice to meet you, John!", "It's Jon, not John", "Jon"),
    ("My name is Jon.", "Nice to meet you, John!", "No, Jon.", "Jon"),
    ("My name is Jon.", "Nice to meet you, Jon!", "Actually, it's John with an h.", "John"),
    ("My name is Jon.", "Nice to meet you, Jon!", "Actually, it's John.", "John"),
    ("I'm Sara.", "Hi Sara!", "Sorry, it's Sarah with an h", "Sarah"),
    ("My name is Jon Smith.", "Nice to meet you, John!", "It's Jon, no h", "Jon Smith"),
])
def test_a_name_respelled_after_the_echo_is_the_name(reasoner, said, echo, fix, want):
    assert facts(reasoner, chat(said, echo, fix)) == [("user.name", want)]


@pytest.mark.parametrize(("said", "echo", "fix"), [
    ("My name is Jon.", "Nice to meet you, John!", "Actually it's Jon with an h"),  # the note says otherwise
    ("My name is Jon.", "Nice to meet you, John!", "Jon with an h"),
    ("My name is Jon.", "Nice to meet you, Jon!", "Actually, it's Peter."),  # another name: no spelling
    ("My name is Jon.", "Here are hotels in Rome.", "Actually, it's Rome."),
    ("I live in Lisbon.", "Got it, Lisbon!", "Actually, it's Lisbon with an h"),
])
def test_a_respelling_that_cannot_be_derived_stores_nothing(reasoner, said, echo, fix):
    assert facts(reasoner, chat(said, echo, fix)) == []


# -- 3. a time zone switch for a trip to come ------------------------------------------------------
@pytest.mark.parametrize("said", [
    "Switch me to CET, I'll be in Berlin next week", "Switch me to CET. I'll be in Berlin next week.",
    "I'll be in Berlin next week, so switch me to CET", "Change my timezone to PST, I'm moving to LA next month",
    "Set me to JST, I'm flying to Tokyo tomorrow", "Please switch my timezone to Eastern, I'm heading to New York on Monday",
    "Set my timezone to JST, I'm going to Tokyo in two weeks",
])
def test_a_switch_tied_to_a_trip_to_come_is_a_plan(reasoner, said):
    assert facts(reasoner, said) == []
    assert any("plan" in r or "trip to come" in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("Switch me to CET", "CET"), ("Please use CET from now on", "CET"), ("Set my timezone to CET", "CET"),
    ("Switch me to CET, I'm in Berlin this week", "CET"), ("Switch me to CET now, I'll be in Berlin next week", "CET"),
    ("My time zone is PST, I'll be in Berlin next week", "PST"), ("Switch me to CET, I'll be in Berlin until March", "CET"),
])
def test_a_switch_for_now_stays(reasoner, said, want):
    assert ("user.timezone", want) in facts(reasoner, said)


# -- 4. one budget key per plan ----------------------------------------------------------------------
@pytest.mark.parametrize(("said", "key"), [
    ("Keep the flights under $800", "flight"), ("My flight budget is $800", "flight"),
    ("My budget for flights is $800", "flight"), ("I can spend up to $800 on flights", "flight"),
    ("Keep the hotels under $200", "hotel"), ("My hotel budget is $200", "hotel"),
    ("Keep groceries under $100", "grocery"), ("My grocery budget is $100", "grocery"),
    ("Keep gifts under $500", "gift"), ("My gift budget is $500", "gift"),
    ("Keep clothes under $200", "clothes"), ("My clothes budget is $200", "clothes"),
    ("Keep the glasses under $300", "glasses"), ("Keep the dresses under $150", "dress"),
    ("Keep shoes under $100", "shoe"), ("Don't spend more than $40 on birthday presents", "birthday_present"),
])
def test_one_plan_has_one_budget_key(reasoner, said, key):
    assert [e for e, _ in facts(reasoner, said)] == [f"user.budget.{key}"]


@pytest.mark.parametrize("said", ["Keep the temperature below 70", "Keep my weight under 200 pounds",
                                  "Keep the kids under 5", "Keep the movies under 2 hours", "Keep dinners under $40 a person"])
def test_a_cap_that_is_no_money_or_per_person_is_no_budget(reasoner, said):
    assert not [e for e, _ in facts(reasoner, said) if e.startswith("user.budget")]


def test_two_phrasings_of_the_flight_budget_supersede(make_vault):
    vault = make_vault()
    vault.agent("a").add("My flight budget is $800")
    vault.agent("a").add("Keep the flights under $600")
    assert vault.get("user.budget.flight").values == ("under $600",)


# -- 5. parts of a multi-fact sentence ---------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm an accountant in Toronto", [("user.job", "accountant"), ("user.location", "Toronto")]),
    ("Hi! I'm an accountant in Toronto and I have a beagle named Rufus.",
     [("user.job", "accountant"), ("user.location", "Toronto"), ("user.pets", "dog:Rufus")]),
    ("I'm a lawyer in New York", [("user.job", "lawyer"), ("user.location", "New York")]),
    ("I'm a nurse in the ICU", [("user.job", "nurse")]),
    ("I'm a teacher in training", [("user.job", "teacher")]),
    ("I'm a visiting professor in Berlin", [("user.job", "visiting professor")]),
    ("I'm a nurse in Toronto this summer", [("user.job", "nurse")]),
    ("I'm a student in Paris for the semester", [("user.job", "student")]),  # no employer "Paris for the semester"
])
def test_a_place_said_with_the_job_is_where_the_user_is(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


@pytest.mark.parametrize(("said", "want"), [
    ("Quick context: vegetarian, allergic to tree nuts, based in Melbourne.",
     [("user.allergies", "tree nuts"), ("user.diet", "vegetarian"), ("user.location", "Melbourne")]),
    ("About me: vegetarian", [("user.diet", "vegetarian")]),
    ("Vegetarian, allergic to shellfish", [("user.allergies", "shellfish"), ("user.diet", "vegetarian")]),
    ("Vegetarian restaurants, allergic to nuts", [("user.allergies", "nuts")]),
    ("Context: my wife is vegetarian, allergic to nuts", []),
])
def test_a_bare_first_item_of_a_list_about_the_user_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I have two kids, Max who is 7 and Lily who is 4.", ["2 children", "child:Lily", "child:Max"]),
    ("I have two kids named Max and Lily", ["2 children", "child:Lily", "child:Max"]),
    ("I have two daughters: Emma (7) and Zoe (4)", ["2 daughters", "daughter:Emma", "daughter:Zoe"]),
    ("I have a son named Max", ["son:Max"]),
    ("I have a daughter, Lily, who is 4", ["daughter:Lily"]),
    ("I have three kids, Max and Lily", ["3 children"]),  # two names for three: not all said
    ("I have two kids, both in college", ["2 children"]),
    ("I have two kids, Monday and Tuesday", ["2 children"]),
])
def test_children_named_after_their_count_are_kept(reasoner, said, want):
    assert facts(reasoner, said) == [("user.family", v) for v in sorted(want)]


def test_named_children_stand_beside_their_count(make_vault):
    vault = make_vault()
    vault.agent("a").add("I have two kids, Max who is 7 and Lily who is 4.")
    assert sorted(vault.get("user.family").values) == ["2 children", "child:Lily", "child:Max"]
