"""Wrong facts QA round 93 found, and the neighbours each fix must not break: a trait, a
people or a state after "I'm" read as a name ("I'm Deaf", "I'm Hispanic", "I'm Widowed"); a
pet the user is only getting; a home or a diet kept for part of the time ("in Miami during the
winter", "vegetarian during Lent"); a hedge kept in a list's value ("especially peanuts");
employers joined by "&" or "/"; a place amended in the same turn to a name that is no place
near it ("I live in Boston, actually Alice"); a sentence that starts with a past event ("When I
moved to Denver I started a new job at Apple")."""

from __future__ import annotations

import pytest
from extraction_qa import facts, reasons

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.places import same_region
from vault_ray.reasoners import amends, caveats
from vault_ray.reasoners.traits import trait


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    return RuleReasoner(LocalEmbedder())




# -- 1. a trait, a people or a state is no name ----------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm Deaf", []), ("I'm Hispanic", []), ("I'm Widowed", [("user.marital_status", "widowed")]),
    ("I'm Hispanic and I live in Denver", [("user.location", "Denver")]), ("I'm Autistic", []), ("I'm Black", []),
    ("I'm Iraqi", []), ("I'm Moroccan", []), ("I'm Engaged", [("user.marital_status", "engaged")]), ("I'm Diabetic", []),
    ("Hi, I'm Deaf", []), ("I'm Deaf, nice to meet you", []), ("I'm Exhausted", []), ("I'm Nervous", []),
    ("I'm Latina", []), ("I'm Filipino", []), ("I'm French", []), ("I'm half German", []), ("I'm Blind", []),
    ("I'm Separated", [("user.marital_status", "separated")]),
])
def test_a_trait_after_im_is_no_name(reasoner, said, want):
    got = facts(reasoner, said)
    assert not [f for f in got if f[0] == "user.name"]
    assert got == want


@pytest.mark.parametrize(("said", "name"), [
    ("I'm Sam", "Sam"), ("I'm Grace", "Grace"), ("I'm Joy", "Joy"), ("I'm Hope", "Hope"), ("I'm Faith", "Faith"),
    ("I'm Eric", "Eric"), ("I'm Ahmed", "Ahmed"), ("I'm Fred", "Fred"), ("I'm Mildred", "Mildred"),
    ("I'm Jack Black", "Jack Black"), ("I'm Daniel Okafor", "Daniel Okafor"), ("I'm Anna, nice to meet you", "Anna"),
    ("I'm Sofia, 27", "Sofia"), ("My name is Grace", "Grace"),
])
def test_real_names_after_im_are_still_names(reasoner, said, name):
    assert ("user.name", name) in facts(reasoner, said)


@pytest.mark.parametrize(("said", "language"), [
    ("I speak French", "French"), ("I'm fluent in French", "French"), ("I'm a native Spanish speaker", "Spanish"),
])
def test_a_language_said_is_still_read(reasoner, said, language):
    assert facts(reasoner, said) == [("user.language", language)]


@pytest.mark.parametrize(("word", "is_trait"), [
    ("Deaf", True), ("Hispanic", True), ("Widowed", True), ("Grateful", True), ("Homeless", True), ("Sri Lankan", True),
    ("Grace", False), ("Joy", False), ("Ahmed", False), ("Mohammed", False), ("Jordan", False), ("Florence", False),
])
def test_trait_words(word, is_trait):
    assert trait(word) is is_trait


# -- 2. a pet the user is getting is no pet the user has ---------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I have a dog, a cat and I'm getting a parrot", [("user.pets", "cat"), ("user.pets", "dog")]),
    ("I'm getting a dog", []), ("We're adopting a puppy", []), ("I want a cat", []), ("I'm buying a hamster", []),
    ("I'm looking to adopt a rabbit", []), ("I'd love to get a dog", []), ("I'm adopting a dog and a cat", []),
    ("I'm thinking about getting a parrot", []), ("I'm going to get a dog", []), ("I'm planning to adopt a cat", []),
    ("I have a cat and we're getting a dog", [("user.pets", "cat")]),
    ("I just got a dog", [("user.pets", "dog")]), ("I adopted a dog", [("user.pets", "dog")]),
    ("I have two cats", [("user.pets", "2 cats")]),
])
def test_a_pet_to_come_is_not_stored(reasoner, said, want):
    assert facts(reasoner, said) == want


def test_a_pet_to_come_is_reported(reasoner):
    assert any("plan or wish" in r for r in reasons(reasoner, "I have a dog, a cat and I'm getting a parrot"))


# -- 3. a fact kept for part of the time only ------------------------------------------------
@pytest.mark.parametrize("said", [
    "I live in Miami during the winter", "I live in Boston in the summers", "I'm vegetarian during Lent",
    "I'm vegetarian on Fridays", "I'm vegetarian in the summer", "I eat vegan during the week", "I'm vegan on weekdays",
    "I'm in Denver for the summer", "I'm pescatarian during Ramadan",
])
def test_a_part_time_fact_is_reported_not_stored(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.PART_TIME in r or caveats.CONDITIONAL in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Miami", [("user.location", "Miami")]), ("I'm vegetarian", [("user.diet", "vegetarian")]),
    ("I moved to Miami in the winter", [("user.location", "Miami")]),
    ("I went vegetarian last summer", [("user.diet", "vegetarian")]),
    ("I've been vegan for a year", [("user.diet", "vegan")]),
    ("I've lived in Denver for 5 years", [("user.location", "Denver")]),
    ("I've lived in Denver for a year", [("user.location", "Denver")]),
    ("I've lived in Denver for months", [("user.location", "Denver")]),
    ("I live in Denver for a few months now", [("user.location", "Denver")]),
    ("I'm vegan for a year now", [("user.diet", "vegan")]),
    ("I live in Denver and in Miami during the winter", [("user.location", "Denver")]),
    ("I live in Austin TX", [("user.location", "Austin TX")]),
])
def test_a_plain_home_or_diet_is_still_stored(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 4. a hedge before a list's item is no part of it ------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm allergic to nuts, especially peanuts", [("user.allergies", "nuts"), ("user.allergies", "peanuts")]),
    ("I'm allergic to nuts, particularly peanuts", [("user.allergies", "nuts"), ("user.allergies", "peanuts")]),
    ("I'm allergic to nuts, mostly peanuts and cashews",
     [("user.allergies", "cashews"), ("user.allergies", "nuts"), ("user.allergies", "peanuts")]),
    ("I'm allergic to shellfish, like shrimp", [("user.allergies", "shellfish"), ("user.allergies", "shrimp")]),
    ("I'm allergic to pollen, even dust", [("user.allergies", "dust"), ("user.allergies", "pollen")]),
    ("I'm allergic to mostly peanuts", [("user.allergies", "peanuts")]),
    ("I'm allergic to cats, like my mom", [("user.allergies", "cats")]),
    ("I'm allergic to nuts, like my brother", [("user.allergies", "nuts")]),
    ("I'm allergic to penicillin, even though I took it as a kid", [("user.allergies", "penicillin")]),
    ("I'm allergic to peanuts", [("user.allergies", "peanuts")]),
    ("I'm allergic to peanuts and shellfish", [("user.allergies", "peanuts"), ("user.allergies", "shellfish")]),
])
def test_a_hedge_is_not_in_the_value(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 5. employers joined by "&", "/" or "+" ----------------------------------------------------
@pytest.mark.parametrize("said", [
    "I work at Google & Meta", "I work at Google/Meta", "I work at Google / Meta", "I work at Google + Meta",
    "I work at Google and Meta", "I work at Google, Meta & Amazon",
])
def test_joined_employers_are_reported(reasoner, said):
    assert facts(reasoner, said) == []
    assert any(caveats.JOINED in r for r in reasons(reasoner, said))


@pytest.mark.parametrize(("said", "employer"), [
    ("I work at Johnson & Johnson", "Johnson & Johnson"), ("I work at Procter & Gamble", "Procter & Gamble"),
    ("I work at Barnes & Noble", "Barnes & Noble"), ("I work at H&M", "H&M"), ("I work at S&P Global", "S&P Global"),
    ("I work for Ernst & Young", "Ernst & Young"), ("I work at Marks & Spencer", "Marks & Spencer"),
    ("I work at McKinsey & Company", "McKinsey & Company"), ("I work at Google", "Google"),
    ("I work at Ben & Jerry's", "Ben & Jerry's"),
])
def test_one_name_with_an_ampersand_is_one_employer(reasoner, said, employer):
    assert facts(reasoner, said) == [("user.employer", employer)]


# -- 6. a place amended to a name that is no place near it ----------------------------------
@pytest.mark.parametrize("said", [
    "I live in Boston, actually Alice", "I live in Boston, actually Bob", "I live in Boston, wait no, Alice",
    "I live in Boston, I meant Alice", "I live in Boston, sorry I meant Bob",
])
def test_a_place_amended_to_a_name_stores_neither(reasoner, said):
    assert facts(reasoner, said) == []
    assert amends.DOUBTFUL in reasons(reasoner, said)


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Denver, actually Golden", [("user.location", "Golden")]),
    ("I live in Boston, actually Cambridge", [("user.location", "Cambridge")]),
    ("I live in Boston, actually Somerville", [("user.location", "Somerville")]),
    ("I live in London... actually Paris", [("user.location", "Paris")]),
    ("I live in Boston... wait no, Cambridge", [("user.location", "Cambridge")]),
    ("I live in Austin, actually downtown", [("user.location", "Austin")]),
    ("I live in Paris, actually near the Louvre", [("user.location", "Paris")]),
    ("I live in Boston, actually I love it", [("user.location", "Boston")]),
    ("My name is Bob, actually Robert", [("user.name", "Robert")]),
    ("I work at Google, wait no, Meta", [("user.employer", "Meta")]),
    ("I'm vegan. I live in Boston, actually Alice", [("user.diet", "vegan")]),
    ("I live in Boston, actually Alice, Texas", [("user.location", "Alice, Texas")]),
    ("I live in Austin, actually Dallas, Texas", [("user.location", "Dallas, Texas")]),
])
def test_a_plausible_amendment_still_amends(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("first", "second", "near"), [
    ("Boston", "Alice", False), ("Denver", "Boulder", True), ("Denver", "Golden", True), ("Paris", "Lyon", True),
    ("Texas", "Alice", True), ("Paris", "Alice", False), ("Boston", "Bob", False),
])
def test_same_region(first, second, near):
    assert same_region(first, second) is near


# -- 7. a sentence that starts with a past event ----------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    # the past-event lead was reverted in QA round 94 (it stored salaries as employers, quit jobs, left cities)
    ("When I moved to Denver I started a new job at Apple", []),
    ("When I'm on vacation I wake up at 9", []), ("When I'm on vacation, I wake up at 9", []),
    ("When I turned 30 I went vegan", []), ("When I was a kid I lived in Paris", []), ("When do I need to leave?", []),
])
def test_a_past_event_before_the_main_clause(reasoner, said, want):
    assert facts(reasoner, said) == want
