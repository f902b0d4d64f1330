"""Misses QA round 98 found in the offline extractor: rent said as "I pay $900 rent", raised ("My
rent went up to $2,100") or no longer paid; a spouse named with "married to" and the latest of two
dated statuses; family names that lost their surnames; someone else's diet, meeting place or job read
as the user's; income ("I make 5 grand a month"), "I'd prefer to be called Sam", "AT&T", "nurse
practitioner"."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.models import Op, Status


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    return RuleReasoner(LocalEmbedder())


# -- B1. rent, said every way a tenant says it ------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I pay $900 rent", [("user.rent", "$900")]),
    ("I pay $900 a month in rent", [("user.rent", "$900 a month")]),
    ("I pay $900 rent a month", [("user.rent", "$900 a month")]),
    ("We pay 2k rent monthly", [("user.rent", "2k monthly")]),
    ("I pay $1,200 monthly rent", [("user.rent", "$1,200 monthly")]),
    ("I pay £950 mortgage each month", [("user.mortgage", "£950 each month")]),
    ("My rent went up to $2,100", [("user.rent", "$2,100")]),
    ("My rent just went up to $2,100 a month", [("user.rent", "$2,100 a month")]),
    ("Our rent was raised from $1,800 to $2,000 a month", [("user.rent", "$2,000 a month")]),
    ("My rent increased to $2,100", [("user.rent", "$2,100")]),
    ("My mortgage went down to $1,500", [("user.mortgage", "$1,500")]),
    ("My landlord raised my rent to $2,100", [("user.rent", "$2,100")]),
    ("Our landlord just raised our rent from $1,800 to $2,000 a month", [("user.rent", "$2,000 a month")]),
    ("I don't pay rent anymore", [("user.rent", "not:rent")]),
    ("We don't pay rent anymore", [("user.rent", "not:rent")]),
    ("I no longer pay rent", [("user.rent", "not:rent")]),
    ("We paid off the mortgage", [("user.mortgage", "not:mortgage")]),
])
def test_rent_said_as_a_tenant_says_it(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "My rent went up by $200", "My rent went up 10%", "My rent might go up to $2,100",
    "If my rent goes up to $2,100 I'll move", "My landlord raised the rent on my neighbor to $2,000",
    "I don't pay rent late", "I pay taxes", "I pay $20 for parking",
])
def test_no_rent_without_the_amount_it_is_now(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] in ("user.rent", "user.mortgage")] == []


def test_no_longer_paying_rent_replaces_the_rent_said_before(vault):
    (rent,) = vault.agent("a").add("My rent is $900 a month").decisions
    (none,) = vault.agent("a").add("I don't pay rent anymore").decisions
    assert none.op == Op.REPLACE and none.superseded == (rent.claim_id,)
    assert [c.value for c in vault.get("user.rent").active] == ["not:rent"]
    assert vault.claim(rent.claim_id).status == Status.SUPERSEDED


def test_a_raise_replaces_the_old_rent(vault):
    (old,) = vault.agent("a").add("I pay $1,800 rent").decisions
    (new,) = vault.agent("b").add("My rent went up to $2,100").decisions
    assert new.superseded == (old.claim_id,)
    assert [c.value for c in vault.get("user.rent").active] == ["$2,100"]


# -- B2. the spouse named with "married to"; the latest of two dated statuses -----------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm married to Sarah Jones", [("user.family", "spouse:Sarah Jones"), ("user.marital_status", "married")]),
    ("I'm married to Sarah", [("user.family", "spouse:Sarah"), ("user.marital_status", "married")]),
    ("I'm happily married to David Okafor", [("user.family", "spouse:David Okafor"), ("user.marital_status", "married")]),
    ("I'm engaged to Tom Baker", [("user.family", "fiance:Tom Baker"), ("user.marital_status", "engaged")]),
    ("I'm married to a nurse", [("user.marital_status", "married")]),
    ("I've been married to a doctor for 10 years", [("user.marital_status", "married")]),
    ("I separated from my husband in 2019, we divorced in 2021", [("user.marital_status", "divorced")]),
    ("I separated from my husband in 2019 and we divorced in 2021", [("user.marital_status", "divorced")]),
    ("I separated from my wife, then we divorced", [("user.marital_status", "divorced")]),
    ("We divorced in 2021, after I separated from my husband in 2019", [("user.marital_status", "divorced")]),
    ("We divorced in 2021. I had separated from my husband in 2019", [("user.marital_status", "divorced")]),
    ("I got married in 2010, we separated in 2020", [("user.marital_status", "separated")]),
])
def test_a_spouse_and_the_latest_status(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- B3. family names keep their surnames -----------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("my mother Ann Lee lives nearby", [("user.family", "mother:Ann Lee")]),
    ("My mother is Ann Lee", [("user.family", "mother:Ann Lee")]),
    ("My wife is Maria Gonzalez", [("user.family", "wife:Maria Gonzalez")]),
    ("My wife's name is Maria Lopez", [("user.family", "wife:Maria Lopez")]),
    ("My sister is Mary-Jo O'Brien", [("user.family", "sister:Mary-Jo O'Brien")]),
    ("My husband is Tom", [("user.family", "husband:Tom")]),
    ("Now my wife's name is Anna Weber", [("user.family", "wife:Anna Weber")]),
    ("My wife Sarah Monday", [("user.family", "wife:Sarah")]),
])
def test_family_names_keep_the_surname(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["My mom is Korean", "My dad is Italian", "My wife is Spanish"])
def test_what_a_relative_is_is_no_name(reasoner, said):
    assert facts(reasoner, said) == []


def test_two_surnames_are_two_wives(make_vault):
    vault = make_vault()
    vault.set_strategy("user.family", "authority")
    vault.agent("a").add("My wife is Maria Gonzalez")
    (lopez,) = vault.agent("b").add("My wife is Maria Lopez").decisions
    assert lopez.dispute_id and vault.get("user.family").contested


# -- B4. what belongs to someone else ---------------------------------------------------------
@pytest.mark.parametrize("said", [
    "Now my husband is vegan", "And now my wife is vegetarian", "These days my husband is gluten-free",
    "My wife and I met in Paris", "We met in Paris", "I met my wife in Paris", "I'm married to a nurse",
    "I'm dating a firefighter", "I'm engaged to Tom Baker",
])
def test_someone_elses_facts_are_not_the_users(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] in ("user.diet", "user.location", "user.job")] == []


@pytest.mark.parametrize(("said", "want"), [
    ("Now I'm vegan", [("user.diet", "vegan")]),
    ("Now the budget is $500", [("user.budget", "$500")]),
    ("Now my rent is $1,500", [("user.rent", "$1,500")]),
    ("My wife and I live in Paris", [("user.location", "Paris")]),
    ("My wife and I met in Paris but we live in London now", [("user.location", "London")]),
    ("My husband and I got married in Rome and now live in London",
     [("user.location", "London"), ("user.marital_status", "married")]),
    ("I'm married to Sarah Jones and we live in Austin",
     [("user.family", "spouse:Sarah Jones"), ("user.location", "Austin"), ("user.marital_status", "married")]),
    ("I live in Paris", [("user.location", "Paris")]),
    ("I'm a nurse", [("user.job", "nurse")]),
])
def test_the_users_own_still_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- B5. income, a preferred name, employers and jobs -----------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I make 5 grand a month", [("user.income", "5 grand a month")]),
    ("I make $80k a year", [("user.income", "$80k a year")]),
    ("I earn $5,000 a month", [("user.income", "$5,000 a month")]),
    ("I make 80k", [("user.income", "80k")]),
    ("I earn $20 an hour", [("user.income", "$20 an hour")]),
    ("My salary is $90,000", [("user.income", "$90,000")]),
    ("My annual income is about $120k", [("user.income", "$120k annual")]),
    ("I make 5 grand a month before taxes", [("user.income", "5 grand a month")]),
    ("I make $4,000 a month and pay $1,500 in rent", [("user.income", "$4,000 a month"), ("user.rent", "$1,500")]),
])
def test_income(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["I make $50 on each sale", "I make pasta", "I make 3 trips a month", "I make good money"])
def test_no_income_in_other_makings(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] == "user.income"] == []


def test_income_said_monthly_and_yearly_compare_as_amounts(vault):
    vault.agent("a").add("I make 5 grand a month")
    (again,) = vault.agent("b").add("I earn $5,000 a month").decisions
    assert again.op == Op.ADD and not vault.get("user.income").contested
    (raised,) = vault.agent("b").add("I make $6,000 a month").decisions
    assert raised.op == Op.REPLACE


@pytest.mark.parametrize(("said", "want"), [
    ("I'd prefer to be called Sam", [("user.name", "Sam")]),
    ("I'd like to be called Sam", [("user.name", "Sam")]),
    ("I would prefer to be called Samantha", [("user.name", "Samantha")]),
    ("I'd rather be called Sam", [("user.name", "Sam")]),
    ("I prefer to go by Sam", [("user.name", "Sam")]),
    ("Call me Sam", [("user.name", "Sam")]),
    ("I work at AT&T", [("user.employer", "AT&T")]),
    ("I work for AT&T", [("user.employer", "AT&T")]),
    ("My employer is AT&T", [("user.employer", "AT&T")]),
    ("I work at H&M", [("user.employer", "H&M")]),
    ("I work at Chick's", [("user.employer", "Chick's")]),
    ("I work at Chick's as a cashier", [("user.employer", "Chick's"), ("user.job", "cashier")]),
    ("I work at Trader Joe's", [("user.employer", "Trader Joe's")]),
    ("I'm a nurse practitioner", [("user.job", "nurse practitioner")]),
    ("I work as a nurse practitioner", [("user.job", "nurse practitioner")]),
    ("I'm a dental hygienist", [("user.job", "dental hygienist")]),
])
def test_names_employers_and_jobs(reasoner, said, want):
    assert facts(reasoner, said) == want
