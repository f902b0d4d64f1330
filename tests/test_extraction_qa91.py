"""Wrong facts an adversarial QA round found stored, and the neighbours each fix must not
break: a statement moved to someone else ("..., or rather my parents do"); a faith read as
a name; a fictional or joking place; a budget for someone else's plan; a fact said for a
condition or an occasion; employers joined into one value; a colon before someone else's
statement; a bare correction of someone else's fact or by a first name that is also a
small town. And misses read now: two "-free" diets, "never text me, always email"."""

from __future__ import annotations

import pytest
from extraction_qa import facts, reasons

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.reasoners import caveats


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    """With the local model: clauses no pattern reads go to the prototypes (the default path)."""
    return RuleReasoner(LocalEmbedder())




def chat(*turns: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in turns]


# -- 1. what the user moves to someone else ---------------------------------------------------
@pytest.mark.parametrize("said", [
    "I live in Denver, or rather my parents do",
    "I'm allergic to peanuts, or rather my son is",
    "I'm vegan - actually my wife is",
    "I speak Spanish, or rather my husband does",
    "I'm on Pacific time, or rather my boss is",
    "I'm vegetarian. Or rather my kids are.",
    "My budget is $500, or rather my wife's is",
    "I moved to Berlin, or rather my company did",
])
def test_a_statement_moved_to_someone_else_is_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert caveats.MOVED in reasons(reasoner, said)


@pytest.mark.parametrize("said", ["I'm allergic to penicillin, or rather I was as a kid", "I'm vegan, well I was",
                                  "I live in Denver, actually I used to"])
def test_a_statement_put_in_the_past_is_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert caveats.PAST in reasons(reasoner, said)


@pytest.mark.parametrize(("said", "want"), [
    ("I'm allergic to nuts, always have been", [("user.allergies", "nuts")]),
    ("I'm allergic to peanuts, shellfish and eggs",
     [("user.allergies", "eggs"), ("user.allergies", "peanuts"), ("user.allergies", "shellfish")]),
    ("I'm vegan, actually I've been for years", [("user.diet", "vegan")]),
])
def test_what_goes_on_about_a_list_is_no_item(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Denver, or rather Boulder", [("user.location", "Boulder")]),
    ("I'm allergic to cats, actually my son is too", [("user.allergies", "cats")]),
    ("I live in Denver, actually my parents do too", [("user.location", "Denver")]),
    ("I'm vegan. Actually, my husband is also vegan", [("user.diet", "vegan")]),
    ("I'm allergic to peanuts, or rather my son is. I'm vegan.", [("user.diet", "vegan")]),
    ("I live in Paris. Sorry, my parents do. I live in Lyon.", [("user.location", "Lyon")]),
    ("I work at Google, I mean Meta", [("user.employer", "Meta")]),
])
def test_what_the_user_still_says_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 2. a faith is no name -------------------------------------------------------------------
@pytest.mark.parametrize("said", ["I'm Catholic, actually lapsed", "I'm Muslim", "I'm Mormon", "I'm Christian, lapsed",
                                  "I'm Hindu, actually"])
def test_a_faith_is_no_name(reasoner, said):
    assert "user.name" not in dict(facts(reasoner, said))


@pytest.mark.parametrize(("said", "name"), [("Hi, I'm Daniel", "Daniel"), ("I'm Maria, nice to meet you", "Maria"),
                                            ("My name is Christian", "Christian")])
def test_a_name_is_still_a_name(reasoner, said, name):
    assert facts(reasoner, said) == [("user.name", name)]


# -- 3. a fictional or joking place ----------------------------------------------------------
@pytest.mark.parametrize("said", ["I live in Hogwarts haha", "I live in Narnia", "I'm from Middle Earth lol",
                                  "I live in Wakanda", "I live in Oz", "I live in Heaven lol"])
def test_a_fictional_or_joking_place_is_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.FICTION in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Denver lol", [("user.location", "Denver")]),
    ("I'm from Ohio haha", [("user.hometown", "Ohio")]),
    ("I live in Atlantic City", [("user.location", "Atlantic City")]),
    ("I live in Ozark", [("user.location", "Ozark")]),
])
def test_a_real_place_said_with_a_laugh_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 4. a budget for someone else ------------------------------------------------------------
@pytest.mark.parametrize("said", ["Budget: 2.5k CAD for my brother's trip", "Budget for my wife: $300",
                                  "Budget is $2000 for my parents' anniversary trip"])
def test_a_budget_for_someone_else_is_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.THEIR_PLAN in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("My budget is $500 for the trip", [("user.budget.trip", "$500")]),  # its purpose (QA round 93 W14)
    ("My budget for the trip is $1,500", [("user.budget.trip", "$1,500")]),
    ("Budget: 3000 euros", [("user.budget", "3000 euros")]),
    ("My budget is $500 for my own trip", [("user.budget.trip", "$500")]),
    ("My budget is $500 for my wife's birthday", [("user.budget.birthday", "$500")]),  # the user's money (QA round 92)
    ("I have $2000 to spend on my son", [("user.budget", "$2000")]),
])
def test_the_users_budget_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 5. a fact said for a condition or an occasion -------------------------------------------
@pytest.mark.parametrize("said", ["I wake up at 7am when I'm on vacation", "I go to bed at 11pm if I have work the next day",
                                  "I wake up at 9 on vacation", "I'm vegan when I'm at home",
                                  "I'm on Eastern time when I'm in New York",
                                  "I wake up at 5am if the baby cries", "I'm on GMT while I'm in London"])
def test_a_conditional_fact_is_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.CONDITIONAL in r or "hypothetical" in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("I wake up at 6am on weekdays", [("user.schedule.wake_up", "at 6am on weekdays")]),
    ("I usually wake up at 6am", [("user.schedule.wake_up", "at 6am")]),
    ("I've lived in Denver since I was a kid", [("user.location", "Denver")]),
    ("I live in Denver, if you need to know", [("user.location", "Denver")]),
    ("I'm vegetarian if that matters", [("user.diet", "vegetarian")]),
    ("I live in Denver while my wife lives in Boston", [("user.location", "Denver")]),
    ("I moved to Denver when I got married", [("user.location", "Denver"), ("user.marital_status", "married")]),
])
def test_a_fact_with_a_past_or_idle_when_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 6. employers joined into one value -------------------------------------------------------
@pytest.mark.parametrize("said", ["I've worked at Google and Meta for a decade", "I work at Google and Meta",
                                  "I work at Google, Meta and Amazon"])
def test_employers_joined_are_reported_not_stored_as_one(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.JOINED in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "org"), [("I work at Procter & Gamble", "Procter & Gamble"),
                                           ("I work at Bain and Company", "Bain and Company"),
                                           ("I work at Acme, Inc.", "Acme"), ("I work at H&M", "H&M")])
def test_one_employer_with_and_in_its_name_is_read(reasoner, said, org):
    assert facts(reasoner, said) == [("user.employer", org)]


def test_a_company_with_an_ampersand_is_no_zone(reasoner):
    assert "user.timezone" not in dict(facts(reasoner, "I work for AT&T"))


# -- 7. a colon before someone else's statement ----------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm bilingual: My parents are Filipino", []),
    ("I'm bilingual: I speak English and Tagalog", [("user.language", "English"), ("user.language", "Tagalog")]),
    ("Reminder: I'm allergic to shellfish", [("user.allergies", "shellfish")]),
    ("Quick note: my time zone is PST", [("user.timezone", "PST")]),
    ("PSA: my daughter is allergic to nuts", []),
])
def test_a_colon_before_a_new_subject_starts_a_clause(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


# -- 8. a bare correction of someone else's fact, or by a first name --------------------------
@pytest.mark.parametrize("turns", [("My daughter is vegetarian", "Actually, vegan"),
                                   ("My wife is vegetarian. I'm vegan.", "Actually, pescatarian"),
                                   ("I live in Boston.", "Actually, Alice"), ("I live in Boston.", "Actually, Dave")])
def test_a_bare_correction_stores_nothing_wrong(reasoner, turns):
    assert facts(reasoner, chat(*turns)) == []
    assert reasons(reasoner, chat(*turns))


@pytest.mark.parametrize(("turns", "want"), [
    (("I'm vegetarian", "Actually, vegan"), [("user.diet", "vegan")]),
    (("I live in Boston.", "Actually, Denver"), [("user.location", "Denver")]),
    (("I live in Boston.", "Actually, Paris"), [("user.location", "Paris")]),
    (("I live in Boston.", "Actually, Texas"), [("user.location", "Texas")]),
    (("My son is vegetarian", "Actually, I'm vegan"), [("user.diet", "vegan")]),
])
def test_a_bare_correction_of_the_users_fact_is_read(reasoner, turns, want):
    assert facts(reasoner, chat(*turns)) == want


# -- 9. misses read now ---------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("i'm dairy free and gluten free", [("user.diet", "dairy-free, gluten-free")]),  # one value: diets.py
    ("I'm vegan and gluten-free", [("user.diet", "vegan, gluten-free")]),
    ("Never text me, always email", [("user.contact_preference", "email")]),
    ("I'm vegan, always have been", [("user.diet", "vegan")]),
    ("I live in Denver, just outside the city", [("user.location", "Denver")]),
])
def test_misses_read_now(reasoner, said, want):
    assert facts(reasoner, said) == want
