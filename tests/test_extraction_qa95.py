"""Wrong facts and lost facts QA round 95 found: a wish or what the user ought to do stored as
a fact ("I'd love to work at Google", "I should go vegan"), a diet word said of a thing ("a vegan
restaurant"); a value corrected in the same turn ("Austin, sorry, Dallas"); a surname that is a
trade taken for a job ("John Baker"); an employer said before the one the user works at "now";
a part of the name ("My last name is now Garcia", "My nickname is Ace", "Tom here"); a couple
("My wife and I are separating", "engaged to Sarah"), money set aside and rent; an employer's
part ("Marks & Spencer's head office") and a firm with commas ("Morgan, Lewis & Bockius")."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.values import canonical


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    return RuleReasoner(LocalEmbedder())


# -- 1. a wish, a plan or what the user ought to do is no current fact -------------------------
@pytest.mark.parametrize("said", [
    "I'd love to work at Google", "I would love to live in Paris", "I should go vegan", "I might move to Denver",
    "I'd love to work for Microsoft", "We'd love to move to Lisbon", "I ought to go vegetarian", "I need to go vegan",
    "I should really work at Stripe", "I would love to be a nurse", "I'd like to live in Tokyo someday",
])
def test_a_wish_stores_nothing(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize(("said", "want"), [
    ("I work at Google", [("user.employer", "Google")]), ("I live in Paris", [("user.location", "Paris")]),
    ("I'm vegan", [("user.diet", "vegan")]), ("I'm a baker", [("user.job", "baker")]),
    ("I should mention I'm vegan", [("user.diet", "vegan")]),
    ("I should say I work at Google", [("user.employer", "Google")]),
    ("I'd prefer email", [("user.contact_preference", "email")]),
    ("I'd like to keep it under $300", [("user.budget", "under $300")]),
    ("I live in Seattle, but I'd love to move to Denver", [("user.location", "Seattle")]),
    ("I work at Apple and I'd love to work at Google", [("user.employer", "Apple")]),
])
def test_what_is_said_around_a_wish_still_reads(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "we went to a vegan restaurant", "We went to a vegetarian place last night", "I ate at a vegan cafe",
    "I bought a vegan cookbook", "my vegan friend Sam", "My vegetarian sister is visiting", "I tried a keto recipe yesterday",
])
def test_a_diet_word_said_of_a_thing_or_a_friend_is_not_the_users_diet(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize(("said", "diet"), [
    ("I eat vegan", "vegan"), ("I've been vegetarian since 2019", "vegetarian"), ("I eat vegan food", "vegan"),
    ("I eat mostly vegetarian these days", "vegetarian"), ("I follow a keto diet", "keto"), ("I went vegan", "vegan"),
    ("I'm pescatarian, mostly", "pescatarian"),
])
def test_the_users_diet_still_reads(reasoner, said, diet):
    assert facts(reasoner, said) == [("user.diet", diet)]


# -- 2. a value corrected in the same turn: only the correction --------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I live in Austin, sorry, Dallas", [("user.location", "Dallas")]),
    ("I live in Boston, oops, Chicago", [("user.location", "Chicago")]),
    ("I work at Google, sorry, Microsoft", [("user.employer", "Microsoft")]),
    ("I'm a teacher, sorry, a nurse", [("user.job", "nurse")]),
    ("I'm in PST, sorry, EST", [("user.timezone", "EST")]),
    ("I live in Austin, no, Dallas", [("user.location", "Dallas")]),
    ("My name is Jon, sorry, John", [("user.name", "John")]),
    ("My birthday is May 4, sorry, May 5", [("user.birthday", "May 5")]),
    ("my standup is at 9am, no wait, 10am", [("user.schedule.standup", "at 10am")]),
    ("I go to the gym at 7am, no wait, 8am", [("user.schedule.gym", "at 8am")]),
    ("I live in Austin, no wait, I live in Dallas", [("user.location", "Dallas")]),
    ("I live in Austin. Sorry, I live in Dallas", [("user.location", "Dallas")]),
    ("I live in Austin, actually I live in Dallas", [("user.location", "Dallas")]),
    ("I work at Google, actually I work at Meta", [("user.employer", "Meta")]),
])
def test_a_value_corrected_in_the_same_turn_keeps_the_correction(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Austin, sorry for the late reply", [("user.location", "Austin")]),
    ("I live in Austin, sorry", [("user.location", "Austin")]),
    ("I'm vegan, sorry", [("user.diet", "vegan")]),
    ("I work at Google, sorry about that", [("user.employer", "Google")]),
    ("I work at Google, sorry if that's confusing", [("user.employer", "Google")]),
    ("I'm vegan, no meat at all", [("user.diet", "vegan")]),
    ("I work at Apple, sorry, I live in Denver", [("user.employer", "Apple"), ("user.location", "Denver")]),
    ("I'm vegan, actually I'm also allergic to nuts", [("user.allergies", "nuts"), ("user.diet", "vegan")]),
    ("I live in Paris, actually near the Louvre", [("user.location", "Paris")]),
    ("I'm allergic to peanuts, actually quite badly", [("user.allergies", "peanuts")]),
])
def test_an_apology_that_corrects_nothing_changes_nothing(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 3. a surname that is also a trade is a name ----------------------------------------------
@pytest.mark.parametrize(("said", "name"), [
    ("Hi, I'm John Baker", "John Baker"), ("I'm Mary Cook", "Mary Cook"), ("Hi, I'm Anna Carpenter", "Anna Carpenter"),
    ("I'm Jake Farmer, 32", "Jake Farmer"), ("Hi, I'm Sam Driver.", "Sam Driver"),
])
def test_a_full_name_with_a_trade_for_a_surname_is_a_name(reasoner, said, name):
    assert [f for f in facts(reasoner, said) if f[0] != "user.age"] == [("user.name", name)]  # ", 32": an age too


@pytest.mark.parametrize(("said", "want"), [
    ("I'm a baker", [("user.job", "baker")]), ("I work as a baker", [("user.job", "baker")]),
    ("I'm a cook at Nando's", [("user.employer", "Nando's"), ("user.job", "cook")]),
    ("I'm Head Chef at Nobu", [("user.employer", "Nobu"), ("user.job", "Head Chef")]),
    ("I'm Senior Engineer", [("user.job", "Senior Engineer")]), ("I'm a nurse", [("user.job", "nurse")]),
])
def test_a_job_still_reads_as_a_job(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 4. the employer the user works at "now" wins in the turn -----------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I started a new job at Apple. Now I work at Google", [("user.employer", "Google")]),
    ("I started at Microsoft in 2019. These days I work for Amazon", [("user.employer", "Amazon")]),
    ("I moved to Boston last year, but now I live in Chicago", [("user.location", "Chicago")]),
    ("I lived in Austin for years. Now I live in Denver", [("user.location", "Denver")]),
    ("I was a teacher. Now I'm a nurse", [("user.job", "nurse")]),
])
def test_a_value_said_as_now_replaces_the_one_said_before_it(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I work at Apple and I live in Denver now", [("user.employer", "Apple"), ("user.location", "Denver")]),
    ("I'm vegetarian. Now I'm also allergic to peanuts", [("user.allergies", "peanuts"), ("user.diet", "vegetarian")]),
    ("I have a dog. Now I also have a cat", [("user.pets", "cat"), ("user.pets", "dog")]),
    ("I work at Google now", [("user.employer", "Google")]),
    ("I live in Austin, and I work at Google", [("user.employer", "Google"), ("user.location", "Austin")]),
])
def test_now_drops_nothing_of_another_entity_or_of_a_many_valued_one(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 5. a part of the name; "Tom here" ----------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("My last name is now Garcia", [("user.last_name", "Garcia")]),
    ("My last name is Garcia", [("user.last_name", "Garcia")]),
    ("My surname is Okafor", [("user.last_name", "Okafor")]),
    ("I changed my last name to Nguyen", [("user.last_name", "Nguyen")]),
    ("My first name is Maria", [("user.first_name", "Maria")]),
    ("My nickname is Ace.", [("user.nickname", "Ace")]), ("My nickname's Buzz", [("user.nickname", "Buzz")]),
    ("Hi, Tom here.", [("user.name", "Tom")]), ("Robert Smith here", [("user.name", "Robert Smith")]),
    ("Hey there, Jim here, quick question", [("user.name", "Jim")]),
    ("Hello, Maria Lopez here!", [("user.name", "Maria Lopez")]),
    ("My name is now Maria", [("user.name", "Maria")]),
])
def test_a_name_or_a_part_of_it_is_stored(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "My nickname is a secret", "My last name isn't Smith", "Nobody here speaks French", "Everyone here is vegan",
    "my last name is hard to spell", "My last job was at Google",
])
def test_no_name_where_none_is_said(reasoner, said):
    assert facts(reasoner, said) == []


def test_the_name_keys_compare_as_names():
    assert canonical("user.nickname", "Ace") == canonical("user.nickname", "ace")
    assert canonical("user.last_name", " Garcia ") == canonical("user.last_name", "garcia")


# -- 6. a couple, an engagement, money set aside, rent -------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("My wife and I are separating.", [("user.marital_status", "separated")]),
    ("My husband and I are separated", [("user.marital_status", "separated")]),
    ("My partner and I got engaged", [("user.marital_status", "engaged")]),
    ("My wife and I got married last year", [("user.marital_status", "married")]),
    ("I'm separating from my wife", [("user.marital_status", "separated")]),
    ("My wife and I live in Denver", [("user.location", "Denver")]),
    ("My partner and I are vegan", [("user.diet", "vegan")]),
    ("I'm engaged to Sarah", [("user.family", "fiance:Sarah"), ("user.marital_status", "engaged")]),
    ("I got engaged to Tom last month", [("user.family", "fiance:Tom"), ("user.marital_status", "engaged")]),
    ("I'm married to Priya", [("user.family", "spouse:Priya"), ("user.marital_status", "married")]),
    ("I'm engaged", [("user.marital_status", "engaged")]),
    ("My wife is Sarah", [("user.family", "wife:Sarah")]),
    ("I'm not engaged to Sarah", [("user.marital_status", "not:engaged")]),  # a denial, and no fiance
])
def test_a_couple_said_together(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "We're not married", "My husband and I are getting divorced", "My wife and my sister are nurses",
])
def test_no_status_where_none_is_said_as_now(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] in ("user.marital_status", "user.family")] == []


def test_a_boyfriend_gone_is_no_marital_status(reasoner):
    """No status is said ("separated" is a married couple's); the boyfriend is no longer the user's (qa7 F5)."""
    assert facts(reasoner, "Me and my boyfriend split up") == [("user.family", "not:boyfriend")]


@pytest.mark.parametrize(("said", "entity", "value"), [
    ("We set aside 5 grand for the vacation", "user.budget.vacation", "5000 USD"),
    ("I put aside $3,000 for the wedding", "user.budget.wedding", "3000 USD"),
    ("We've saved 10k towards a new car", "user.budget.car", "10000 USD"),
    ("I set aside two grand for Christmas", "user.budget.christmas", "2000 USD"),
    ("My budget is 5 grand", "user.budget", "5000 USD"),
    ("My rent is $1,800 a month", "user.rent", "1800 USD/month"),
    ("Our rent is €1,200 per month", "user.rent", "1200 EUR/month"),
    ("My monthly rent is $2,100", "user.rent", "2100 USD/month"),
    ("I pay $1,800 a month in rent", "user.rent", "1800 USD/month"),
    ("My mortgage is £950 monthly", "user.mortgage", "950 GBP/month"),
])
def test_money_set_aside_and_rent_are_amounts(reasoner, said, entity, value):
    assert [(e, canonical(e, v)) for e, v in facts(reasoner, said)] == [(entity, value)]


@pytest.mark.parametrize("said", [
    "We set aside some time for the trip", "I saved 5 grand", "I set aside 5 grand", "My rent is too high",
    "the rent in Paris is $3000 a month", "My rent is not $2000",
])
def test_no_amount_where_none_is_the_users(reasoner, said):
    assert facts(reasoner, said) == []


# -- 7. an employer's part; a firm with commas ------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I work at Marks & Spencer's head office", [("user.employer", "Marks & Spencer")]),
    ("I work at Google's London office", [("user.employer", "Google")]),
    ("I work at Apple's headquarters in Cupertino", [("user.employer", "Apple")]),
    ("I work at Tesco's distribution centre", [("user.employer", "Tesco")]),
    ("I work at Morgan, Lewis & Bockius", [("user.employer", "Morgan, Lewis & Bockius")]),
    ("I work at Skadden, Arps, Slate, Meagher & Flom", [("user.employer", "Skadden, Arps, Slate, Meagher & Flom")]),
    ("I'm a lawyer at Wachtell, Lipton, Rosen & Katz",
     [("user.employer", "Wachtell, Lipton, Rosen & Katz"), ("user.job", "lawyer")]),
    ("I joined Paul, Weiss, Rifkind, Wharton & Garrison", [("user.employer", "Paul, Weiss, Rifkind, Wharton & Garrison")]),
    ("I work at Procter & Gamble", [("user.employer", "Procter & Gamble")]),
    ("I work at McDonald's", [("user.employer", "McDonald's")]),
    ("I work at Google, in London", [("user.employer", "Google")]),
])
def test_one_employer_as_named(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "I work at Google, Meta & Amazon", "I work at Google and Meta", "I work at Google, Meta and Amazon",
    "I'm an engineer at Google, Meta & Amazon",
])
def test_two_or_more_employers_are_still_reported(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] == "user.employer"] == []
