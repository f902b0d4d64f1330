"""False facts QA round 99 found in the income, rent, family-name and dated-status rules: payments
and differences read as income, rent for things that are no home, names that kept a possessive or
took the words after them, a spouse read from someone else's name, rent after moving out, a
mortgage paid off on another property, hypotheticals and jokes, a household's income, corrections
of rent and a status said after another. Each is checked with every reader (the local model, the
hashing embedder and patterns only)."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import RuleReasoner


def _of(reasoner: RuleReasoner, said: str, *entities: str) -> list[tuple[str, str]]:
    return [f for f in facts(reasoner, said) if f[0] in entities]


# -- A6, A7, A14: what is no income of the user's --------------------------------------------------
@pytest.mark.parametrize("said", [
    "I make 2 grand a month in student loan payments.",
    "I make $1,500 a month in payments on my car.",
    "I make $500 a month in interest.",
    "I make $20 an hour more than my brother.",
    "I make 80k a year less than my husband.",
    "I make $30 an hour less than my coworker.",
    "My husband and I make $150k a year.",
    "My wife and I earn $200k a year together.",
    "We make $150k a year combined.",
    "We make $150k a year.",
    "Tom and I make $5 grand a month.",
    "Sarah and I earn 100k a year.",
    "I make $80k a year if you count my wife's salary.",
    "I make $90k a year including my husband's pay.",
    "Our income is $150k a year.",
    "My household income is $150k.",
])
def test_no_income_of_the_users_own(reasoner, said):
    assert _of(reasoner, said, "user.income") == []


@pytest.mark.parametrize(("said", "want"), [
    ("I make $80k a year.", "$80k a year"),
    ("I make $25 an hour before taxes.", "$25 an hour"),
    ("I earn 5 grand a month in salary.", "5 grand a month"),
    ("My brother and I make $80k a year each.", "$80k a year"),
    ("I make $80k a year and my wife makes $70k.", "$80k a year"),
    ("I make $1,000 a month on Etsy.", "$1,000 a month"),
])
def test_the_users_own_income_still_reads(reasoner, said, want):
    assert _of(reasoner, said, "user.income") == [("user.income", want)]


# -- A8, A11: rent of what is not the user's home, or no longer ---------------------------------
@pytest.mark.parametrize("said", [
    "I pay $200 rent for my parking spot.",
    "I pay $300 rent on a storage unit.",
    "I pay $1,200 rent for my office.",
    "I pay $1,200 rent for our shop downtown.",
    "We pay $3k rent for the restaurant.",
    "We pay $40 rent for the kayak each weekend.",
    "I pay $900 rent for my son's dorm.",
    "I pay $900 rent for my parents.",
    "I pay $50 for rent insurance.",
    "I pay $900 in rent for my daughter's apartment.",
    "I pay $400 a month in rent for a garage.",
    "My rent went up to $2,100 for the studio I'm looking at.",
    "My rent went up to $2,100 last year but I moved out.",
    "I pay $900 rent but I moved out in 2023.",
    "Our rent went up to $2,100 — our meaning my parents'.",
    "Our rent is $2,000, I mean my parents'.",
])
def test_no_rent_of_a_home_the_user_lives_in(reasoner, said):
    assert _of(reasoner, said, "user.rent", "user.mortgage") == []


@pytest.mark.parametrize(("said", "want"), [
    ("I pay $900 rent for my apartment.", "$900"),
    ("I pay $1,200 a month in rent for my one-bedroom apartment.", "$1,200 a month"),
    ("I pay $900 rent each month.", "$900 each month"),
    ("I pay $900 rent on the first of the month.", "$900"),
    ("I pay $1,500 in rent for our place.", "$1,500"),
    ("We pay $2k rent for a 2-bedroom apartment.", "$2k"),
    ("I pay $900 rent, my sister pays $1,200.", "$900"),
    ("I pay $900 rent and I just moved in.", "$900"),
])
def test_the_rent_of_the_users_home_still_reads(reasoner, said, want):
    assert _of(reasoner, said, "user.rent") == [("user.rent", want)]


# -- A12: a mortgage paid off on another property ----------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I paid off my mortgage on the rental property.", []),
    ("We paid off the mortgage on our lake house.", []),
    ("I paid off the mortgage on my parents' house.", []),
    ("We paid off the mortgage on our second home.", []),
    ("I paid off my mortgage.", [("user.mortgage", "not:mortgage")]),
    ("We paid off the mortgage on our house.", [("user.mortgage", "not:mortgage")]),
])
def test_a_mortgage_paid_off_on_another_property_is_not_the_users(reasoner, said, want):
    assert _of(reasoner, said, "user.mortgage") == want


# -- A13: hypotheticals and jokes --------------------------------------------------------------
@pytest.mark.parametrize("said", [
    "For this example, I make $80k a year and pay $2,000 rent.",
    "For the sake of argument, I pay $2,000 rent.",
    "Hypothetically, I make $120k a year.",
    "I make $80k a year in my dreams.",
    "Yeah right, I make $1 million a year, lol.",
    "Sure, and I pay $10 rent, haha.",
    "My rent went up to $2,100 in my dreams, lol.",
])
def test_no_money_fact_in_a_hypothetical_or_a_joke(reasoner, said):
    assert _of(reasoner, said, "user.income", "user.rent", "user.mortgage") == []


@pytest.mark.parametrize("said", ["Hypothetically, I live in London.", "For the sake of argument, I'm vegan."])
def test_a_lead_frame_makes_any_clause_after_it_no_fact(reasoner, said):
    assert facts(reasoner, said) == []


# -- B15: a corrected amount --------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I pay $900 rent, sorry, $950.", [("user.rent", "$950")]),
    ("My rent went up to $2,100, no, $2,200.", [("user.rent", "$2,200")]),
    ("My rent is $1,900, sorry, $1,950.", [("user.rent", "$1,950")]),
    ("My rent is $900, no, $950.", [("user.rent", "$950")]),
])
def test_a_corrected_rent(reasoner, said, want):
    assert _of(reasoner, said, "user.rent") == want


# -- A9: family names --------------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("My mother Ann Lee's cooking is the best.", [("user.family", "mother:Ann Lee")]),
    ("My mother Ann Lee's house is in Ohio.", [("user.family", "mother:Ann Lee")]),
    ("My brother Sam's car broke down.", [("user.family", "brother:Sam")]),
    ("My son Max Loves Dinosaurs.", [("user.family", "son:Max")]),
    ("My brother Sam Houston State grad is visiting.", []),
    ("My father Bob Lee Harvey Oswald fan club is weird.", []),
    ("My wife is Mary-Jo O'Brien.", [("user.family", "wife:Mary-Jo O'Brien")]),
    ("My wife Ann Lee lives in Ohio.", [("user.family", "wife:Ann Lee")]),
    ("My sister Amy Lee teaches math.", [("user.family", "sister:Amy Lee")]),
    ("My husband Tom Lee cooks dinner.", [("user.family", "husband:Tom Lee")]),
])
def test_family_names_without_possessives_or_the_words_after_them(reasoner, said, want):
    assert _of(reasoner, said, "user.family") == want


# -- A10, A24, B16: spouses and status -------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm married to Sarah Jones' brother.", [("user.marital_status", "married")]),
    ("I'm married to Ann Lee's cousin.", [("user.marital_status", "married")]),
    ("I'm married to Dr. Sarah Jones.", [("user.family", "spouse:Sarah Jones"), ("user.marital_status", "married")]),
    ("I'm engaged to Prof. Ann Lee.", [("user.family", "fiance:Ann Lee"), ("user.marital_status", "engaged")]),
    ("I'm married to my job, haha.", []),
    ("I'm married to the idea of moving to Portland.", []),
    ("I was married to Sarah Jones.", []),
    ("I was married for ten years.", []),
    ("I'm married to my high school sweetheart.", [("user.marital_status", "married")]),
    ("I got married in 2012 and widowed in 2020.", [("user.marital_status", "widowed")]),
    ("I was married in 2012 and divorced in 2015.", [("user.marital_status", "divorced")]),
    ("I got divorced in 2021 and married in 2012.", [("user.marital_status", "divorced")]),
    ("We got divorced in 2021 and I got remarried in 2023.", [("user.marital_status", "married")]),
])
def test_spouse_and_status(reasoner, said, want):
    assert _of(reasoner, said, "user.family", "user.marital_status") == want


def test_a_household_income_leaves_the_users_own_in_the_vault(vault):
    vault.agent("a").add("I make $80k a year")
    vault.agent("a").add("My husband and I make $150k a year")
    assert [c.value for c in vault.get("user.income").active] == ["$80k a year"]
