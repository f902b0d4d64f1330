"""Values whose words make them another value must never agree with it (QA2 F2, F3, F4, F10):
an amount misread ("half a million dollars" as $1M, "5 cents" as $5, "not over $5k" as a
floor), a qualifier that ends or changes a value ("Visa (expired)", "vice president", "used
to be vegan"), a count of zero, and a named pet against a count of pets."""

from __future__ import annotations

import pytest

from vault_ray import Fact, Policy
from vault_ray.models import Op, Outcome
from vault_ray.values import canonical


def budget(said: str) -> str:
    return canonical("user.budget", said)


@pytest.mark.parametrize(("said", "form"), [
    ("half a million dollars", "500000 USD"), ("half a million", "500000 USD"), ("a quarter of a million euros", "250000 EUR"),
    ("two and a half thousand dollars", "2500 USD"), ("one and a half million", "1500000 USD"),
    ("a million and a half", "1500000 USD"), ("one point two thousand", "1200 USD"), ("three point five million", "3500000 USD"),
    ("5 cents", "0.05 USD"), ("50 cents", "0.5 USD"), ("fifty cents a day", "0.5 USD/day"), ("50p", "0.5 GBP"),
    ("5 lakh rupees", "500000 INR"), ("1 crore", "10000000 INR"), ("Rs 2 lakh", "200000 INR"), ("1.5 lakh", "150000 INR"),
])
def test_spoken_scales_cents_and_indian_numbers_read_as_said(said, form):
    assert budget(said) == form


@pytest.mark.parametrize("said", ["not over $5k", "not above $5k", "never over $5k", "won't go above $5k",
                                  "shouldn't go over $5k", "must not exceed $5k", "$5k or less", "no more than $5k",
                                  "not more than 5000 dollars", "$5k max", "up to $5k", "under $5k", "below $5k",
                                  "less than 5000 USD", "at most 5000 dollars"])
def test_a_negated_floor_or_any_ceiling_is_a_ceiling(said):
    assert budget(said) == "5000 USD"


@pytest.mark.parametrize("said", ["at least $5k", "$5k or more", "$5k and up", "$5k+", "not under $5k", "not below $5k",
                                  "no less than $5k", "5000 dollars minimum", "more than five thousand dollars"])
def test_a_negated_ceiling_or_any_floor_is_a_floor(said):
    assert budget(said) == ">=5000 USD"


@pytest.mark.parametrize(("a", "b"), [
    ("$5k", "not $5k"), ("$5k", "no longer $5k"), ("$5k", "was $5k"), ("$120k gross", "$120k net"), ("$80k", "$80k after taxes"),
    ("$5k", "$5k each"), ("$5k total", "$5k per person"), ("$5k per month", "$5k per person per month"),
    ("$500 a week", "$500 every two weeks"), ("$5", "$5 a minute"), ("$5k", "$5k for 2 people"), ("$5", "$5 and 50 cents"),
])
def test_an_amount_with_words_not_read_never_equals_the_plain_amount(a, b):
    assert budget(a) != budget(b)


def test_same_amounts_said_otherwise_still_agree():
    assert budget("$500k") == budget("half a million") == budget("about 500,000 dollars") == budget("500 thousand USD")
    assert budget("$0.50") == budget("50 cents") and budget("€5k") == budget("5000 euros") == budget("5k EUR")
    assert budget("5000 Canadian dollars") == budget("C$5000") and budget("5,000 kr") == "5000 kr"


def _authority(make_vault, **cardinality):
    policy = Policy(default_strategy="authority", authority={"boss": {"*": 0.9}, "intern": {"*": 0.1}},
                    cardinality=cardinality)
    return make_vault(policy=policy)


def _write(vault, agent, entity, value):
    return vault.agent(agent).add_facts([Fact(entity=entity, text=f"{entity} is {value}", value=value)]).decisions[0]


@pytest.mark.parametrize(("entity", "boss", "intern"), [
    ("user.budget.hotel", "at least $5k", "not over $5k"), ("user.budget.house", "$1M", "half a million dollars"),
    ("user.budget.snack", "$5", "5 cents"), ("user.budget.food", "$5k", "not $5k"), ("user.salary", "$120k gross", "$120k net"),
    ("user.budget.trip", "$5k or less", "$5k or more"), ("user.rent", "1 lakh rupees", "1 INR"),
])
def test_different_amounts_from_a_low_authority_agent_open_a_dispute(make_vault, entity, boss, intern):
    vault = _authority(make_vault)
    _write(vault, "boss", entity, boss)
    decision = _write(vault, "intern", entity, intern)
    view = vault.get(entity)
    assert decision.outcome == Outcome.DISPUTED and view.contested and view.disputes
    assert [c.value for c in view.active] == [boss]


def test_the_same_amount_in_other_words_corroborates(make_vault):
    vault = _authority(make_vault)
    _write(vault, "boss", "user.budget.house", "$500k")
    decision = _write(vault, "intern", "user.budget.house", "half a million dollars")
    assert decision.outcome == Outcome.ACTIVE and not vault.get("user.budget.house").contested


def test_bounds_and_scales_survive_extraction(vault):
    vault.agent("a").add("My hotel budget is $500 or less")
    (more,) = vault.agent("b").add("My hotel budget is $500 or more").decisions
    assert more.value == "$500 or more" and more.outcome == Outcome.DISPUTED
    (ceiling,) = vault.agent("c").add("My car budget is not over $9,000").decisions
    assert canonical(ceiling.entity, ceiling.value) == "9000 USD"
    (net,) = vault.agent("d").add("I make $120k net").decisions
    assert net.value == "$120k net" and canonical(net.entity, net.value) != canonical(net.entity, "$120k")
    (lakh,) = vault.agent("e").add("My budget is 5 lakh rupees").decisions
    assert canonical(lakh.entity, lakh.value) == "500000 INR"
    (spoken,) = vault.agent("f").add("My budget is two and a half thousand dollars").decisions
    assert canonical(spoken.entity, spoken.value) == "2500 USD"
    (gross,) = vault.agent("g").add("I make $90k a year before taxes").decisions
    assert canonical(gross.entity, gross.value) == canonical(gross.entity, "$90k a year")


@pytest.mark.parametrize(("entity", "boss", "intern"), [
    ("user.payment.method", "Visa", "Visa (expired)"), ("user.payment.method", "Visa", "Visa, reported stolen"),
    ("user.payment.method", "Mastercard", "Mastercard - declined"), ("user.payment.method", "PayPal", "suspended PayPal"),
    ("user.payment.method", "Amex", "Amex blocked"), ("user.payment.method", "Visa", "Visa on hold"),
    ("user.job", "president", "vice president"),
    ("user.job", "professor", "assistant professor"), ("user.job", "engineer", "fired engineer"),
    ("user.job", "lawyer", "disbarred lawyer"), ("user.job", "nurse", "unemployed nurse"), ("user.job", "CEO", "deputy CEO"),
    ("user.diet", "vegan", "used to be vegan"), ("user.diet", "keto", "was keto"), ("user.diet", "vegan", "trying vegan"),
    ("user.diet", "vegetarian", "vegetarian but eats fish"), ("user.name", "Bob", "Bob Jr"),
])
def test_a_qualifier_that_ends_or_changes_a_value_is_a_conflict(make_vault, entity, boss, intern):
    vault = _authority(make_vault)
    _write(vault, "boss", entity, boss)
    decision = _write(vault, "intern", entity, intern)
    view = vault.get(entity)
    assert decision.outcome == Outcome.DISPUTED and view.contested
    assert [c.value for c in view.active] == [boss]


@pytest.mark.parametrize(("entity", "boss", "intern"), [
    ("user.job", "product manager", "senior product manager"), ("user.payment.method", "Visa", "Visa debit"),
    ("user.name", "Maria", "Maria Ahmed"), ("user.job", "nurse", "registered nurse"),
])
def test_words_that_only_say_more_still_stand_together(make_vault, entity, boss, intern):
    vault = _authority(make_vault)
    _write(vault, "boss", entity, boss)
    decision = _write(vault, "intern", entity, intern)
    assert decision.outcome == Outcome.ACTIVE and not vault.get(entity).contested


def test_an_agent_saying_its_own_value_ended_replaces_it(vault):
    _write(vault, "a", "user.diet", "vegan")
    decision = _write(vault, "a", "user.diet", "used to be vegan")
    assert decision.op == Op.REPLACE


@pytest.mark.parametrize(("boss", "intern"), [
    ("wife:Maria", "wife:Maria (deceased)"), ("wife:Maria", "late wife:Maria"), ("wife:Maria", "former wife:Maria"),
    ("dog:Rex", "dog:Rex (died)"), ("cat:Tom", "cat:Tom, lost"),
])
def test_an_item_said_to_have_ended_conflicts_with_it(make_vault, boss, intern):
    vault = _authority(make_vault, **{"user.family": "many", "user.pets": "many"})
    entity = "user.pets" if boss.startswith(("dog", "cat")) else "user.family"
    _write(vault, "boss", entity, boss)
    assert _write(vault, "intern", entity, intern).outcome == Outcome.DISPUTED and vault.get(entity).contested


@pytest.mark.parametrize(("entity", "held", "zero"), [
    ("user.pets", "dog:Rex", "0 dogs"), ("user.pets", "1 dog", "0 dogs"), ("user.pets", "cat", "zero cats"),
    ("user.family", "child:Tom", "0 children"), ("user.family", "2 kids", "0 children"),
])
def test_a_count_of_zero_denies_the_thing(make_vault, entity, held, zero):
    vault = _authority(make_vault)
    _write(vault, "boss", entity, held)
    assert _write(vault, "intern", entity, zero).outcome == Outcome.DISPUTED and vault.get(entity).contested


@pytest.mark.parametrize("said", ["I have 0 dogs", "I have 0 kids", "I have 0 siblings", "I have 0 allergies",
                                  "I have zero allergies", "We have 0 cats"])
def test_zero_is_never_stored_as_having_one(vault, said):
    for d in vault.agent("a").add(said).decisions:
        assert d.value.startswith("not:"), (said, d.entity, d.value)


@pytest.mark.parametrize("named", ["My dog's name is Rex", "I have a dog named Rex", "One of my dogs is called Rex"])
def test_naming_one_of_several_pets_keeps_the_count(make_vault, named):
    for writer in ("a", "b"):
        vault = make_vault(f"store-{writer}-{len(named)}")
        vault.agent("a").add("I have two dogs")
        (rex,) = vault.agent(writer).add(named).decisions
        assert rex.value == "dog:Rex" and not rex.superseded
        assert sorted(vault.get("user.pets").values) == ["2 dogs", "dog:Rex"]


def test_two_counts_of_children_in_other_words_conflict(make_vault):
    vault = _authority(make_vault)
    _write(vault, "boss", "user.family", "2 children")
    assert _write(vault, "intern", "user.family", "3 kids").outcome == Outcome.DISPUTED
    (tom,) = vault.agent("boss").add("My son Tom just turned 5").decisions
    assert tom.value == "son:Tom" and tom.outcome == Outcome.ACTIVE and not tom.superseded


def test_items_that_only_say_another_kind_stand_side_by_side(make_vault):
    vault = _authority(make_vault, **{"user.food_preferences": "many"})
    _write(vault, "boss", "user.food_preferences", "likes:chicken")
    fried = _write(vault, "intern", "user.food_preferences", "likes:fried chicken")
    assert fried.outcome == Outcome.ACTIVE and not vault.get("user.food_preferences").contested
    assert sorted(vault.get("user.food_preferences").values) == ["likes:chicken", "likes:fried chicken"]


def test_a_junior_is_another_holder_of_a_single_role(make_vault):
    vault = _authority(make_vault, **{"user.family": "many"})
    _write(vault, "boss", "user.family", "father:Bob")
    assert _write(vault, "intern", "user.family", "father:Bob Jr").outcome == Outcome.DISPUTED


@pytest.mark.parametrize("said", ["under $100k", "less than 100k", "below $100,000", "up to 100 grand", "at most $100k"])
@pytest.mark.parametrize("entity", ["user.income", "user.rent", "user.mortgage"])
def test_an_upper_bound_on_an_amount_that_is_no_budget_is_not_the_amount(entity, said):
    # a budget is a ceiling ("up to $5k" is a budget of $5k); an income "under $100k" is not one of $100k
    assert canonical(entity, said) == "<=100000 USD" != canonical(entity, "$100k")
    assert canonical("user.budget", said) == canonical("user.budget", "$100k") == "100000 USD"


@pytest.mark.parametrize(("said", "value"), [
    ("I make over 200k", "over 200k"), ("i make more than $150k a year", "more than $150k a year"),
    ("My salary is under $100k", "under $100k"), ("my salary is less than 90 grand", "less than 90 grand"),
    ("I earn at least $70,000 a year", "at least $70,000 a year"), ("I make about $85k a year", "$85k a year"),
])
def test_an_income_said_with_a_bound_keeps_it(vault, said, value):
    (income,) = vault.agent("a").add(said).decisions
    assert (income.entity, income.value) == ("user.income", value)


def test_an_exact_income_after_a_bound_one_replaces_it(vault):
    vault.agent("a").add("My salary is under $100k")
    (exact,) = vault.agent("a").add("My salary is $95k").decisions
    assert exact.outcome == Outcome.ACTIVE and vault.get("user.income").values == ("$95k",)
    (same,) = vault.agent("a").add("My salary is $95,000").decisions
    assert same.outcome == Outcome.NOOP
