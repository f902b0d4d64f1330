"""The rule reasoner on the default text path, end to end: contradicting statements
in different words land on one entity and take their policy's path; statements that
mean the same thing corroborate and never dispute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import HashingEmbedder, LocalEmbedder, Policy

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
RECENCY, DISPUTE, NEEDS_USER = "recency", "dispute", "needs_user"
AUTHORITY = Policy().with_strategy("user.timezone", "authority").with_authority("a", "user.*", 0.9).with_authority(
    "b", "user.*", 0.2)

PARAPHRASED_CONTRADICTIONS = [
    ("My timezone is Pacific time", "Actually I'm on Eastern time now", RECENCY),
    ("I'm in PST", "I'm UTC-5 these days", RECENCY),
    ("Please schedule my calls in PT", "I switched to Central European Time", RECENCY),
    ("I live in Berlin", "We relocated to Lisbon in March", RECENCY),
    ("I'm based in NYC", "I just moved to San Francisco", RECENCY),
    ("Home is Toronto", "I moved to Chicago last month", RECENCY),
    ("I work at Google", "I just joined Microsoft", RECENCY),
    ("My employer is Deloitte", "I got a job at Spotify", RECENCY),
    ("I'm a software engineer", "I was promoted to senior manager", RECENCY),
    ("I'm vegetarian", "I eat meat every day now", RECENCY),
    ("I don't eat meat", "I'm not vegetarian anymore", RECENCY),
    ("I went vegan last year", "I'm pescatarian now", RECENCY),
    ("I love sushi", "I can't stand sushi", RECENCY),
    ("I'm allergic to cats", "I'm no longer allergic to cats", RECENCY),
    ("I have a dog", "I don't have a dog anymore", RECENCY),
    ("I'm married", "I got divorced last year", RECENCY),
    ("I speak Italian", "I don't speak Italian", RECENCY),
    ("Contact me by email", "Please text me instead of calling", RECENCY),
    ("I go to the gym at 7am", "I go to the gym at 6pm", RECENCY),
    ("My budget is 5000 dollars", "I can spend up to $9k", NEEDS_USER),
    ("I pay with my Visa card", "Charge it to my Amex", NEEDS_USER),
    ("I consent to marketing emails", "Stop sending me marketing emails", NEEDS_USER),
    ("I'm on Pacific Standard Time", "Actually I'm on Eastern time now", DISPUTE),  # under AUTHORITY, seed demo
    ("I have two kids", "I have three kids", RECENCY),  # counts of one thing on a 'many' entity
    ("I have one cat", "I have five cats", RECENCY),
    ("My email is alice@example.com", "My email is bob@example.com", RECENCY),  # the address is the value
    ("My budget is $5000 per month", "My budget is $5000 per year", NEEDS_USER),  # what qualifies an amount
    ("My budget is between $3k and $5k", "My budget is $3k", NEEDS_USER),
    ("My budget is under 5000 dollars", "My budget is at least 5000 dollars", NEEDS_USER),
]
NEAR_EQUIVALENTS = [
    ("I'm in PST", "I'm on Pacific time"),
    ("I'm on Pacific Standard Time", "My time zone is America/Los_Angeles"),
    ("I'm on PDT for the summer", "Schedule my calls in PT"),
    ("I live in NYC", "I moved to New York"),
    ("I'm based in the Big Apple", "I live in New York City"),
    ("My budget is $5k", "I can spend up to five thousand dollars"),
    ("I speak Mandarin", "I'm fluent in Chinese"),
    ("I'm allergic to peanuts", "I have a peanut allergy"),
    ("I pay with PayPal", "My payment method is Paypal"),
    ("I consent to marketing emails", "I agree to receive marketing emails"),
    ("I moved to Chicago last month", "I live in Chicago"),
    ("My budget is $5000 a month", "My monthly budget is five thousand dollars"),
    ("I have two cats", "I've got 2 cats"),
    ("My phone number is 555-1234", "My phone number is 555 1234"),
    ("I go to the gym at 7pm", "I go to the gym at 19:00"),
]


@pytest.fixture(params=["hashing", pytest.param("local", marks=pytest.mark.slow)])
def text_vault(request, make_vault):
    embedder = HashingEmbedder() if request.param == "hashing" else LocalEmbedder()

    def _open(policy: Policy | None = None):
        return make_vault(f"store-{len(_open.opened)}", embedder=embedder, policy=policy)

    _open.opened = []  # type: ignore[attr-defined]
    return _open


def say(vault, agent: str, text: str, minutes: int):
    result = vault.agent(agent).add(text, session=agent, observed_at=T0 + timedelta(minutes=minutes))
    assert len(result.decisions) == 1, (text, result)
    return result.decisions[0]


def test_there_are_enough_pairs():
    assert len(PARAPHRASED_CONTRADICTIONS) >= 20 and len(NEAR_EQUIVALENTS) >= 10


@pytest.mark.parametrize(("first", "second", "path"), PARAPHRASED_CONTRADICTIONS)
def test_a_paraphrased_contradiction_lands_on_the_same_entity_and_follows_the_policy(text_vault, first, second, path):
    vault = text_vault(AUTHORITY if path == DISPUTE else None)
    old = say(vault, "a", first, 0)
    new = say(vault, "b", second, 60)
    assert new.entity == old.entity
    if path == RECENCY:
        assert (new.outcome, new.strategy, new.superseded) == ("active", "recency", (old.claim_id,))
        assert [c.id for c in vault.get(new.entity).active] == [new.claim_id]
    else:
        assert new.outcome == "disputed"
        dispute = vault.dispute(new.dispute_id)
        assert dispute.incumbents == (old.claim_id,)
        assert dispute.needs_user is (path == NEEDS_USER)
        assert vault.get(new.entity).contested


@pytest.mark.parametrize("strategy", ["recency", "authority", "consensus"])
@pytest.mark.parametrize(("first", "second"), NEAR_EQUIVALENTS)
def test_statements_that_mean_the_same_corroborate(text_vault, strategy, first, second):
    vault = text_vault(Policy(default_strategy=strategy).with_authority("a", "*", 0.9).with_authority("b", "*", 0.1))
    old = say(vault, "a", first, 0)
    new = say(vault, "b", second, 60)
    assert new.entity == old.entity
    assert (new.outcome, new.superseded, new.dispute_id) == ("active", (), None)
    view = vault.get(new.entity)
    assert not view.contested and {c.id for c in view.active} == {old.claim_id, new.claim_id}
    assert vault.disputes() == []


@pytest.mark.parametrize("strategy", ["recency", "authority"])
@pytest.mark.parametrize(("first", "second"), [("I'm vegetarian", "I stopped being vegan"),
                                               ("I'm vegetarian", "I'm lactose intolerant"),
                                               ("I have a dog", "My cat died last week"),
                                               # another agent saying more (or less) of the same
                                               ("My name is Maria", "My name is Maria Gonzalez"),
                                               ("I'm a senior product manager", "I'm a product manager"),
                                               ("My birthday is March 5", "I was born on 5 March 1990"),
                                               ("I go to the gym at 7am", "I go to the gym at 7am on weekdays"),
                                               ("I live in Portugal", "I live in Lisbon")])
def test_a_statement_that_denies_or_adds_something_else_leaves_the_fact_alone(text_vault, strategy, first, second):
    """"not vegan" denies vegan only; an intolerance is no diet; a cat's death retracts no dog.
    Before, the second superseded the first under recency, or disputed it under authority."""
    vault = text_vault(Policy(default_strategy=strategy).with_authority("a", "*", 0.9).with_authority("b", "*", 0.1))
    old = say(vault, "a", first, 0)
    new = say(vault, "b", second, 60)
    assert (new.outcome, new.superseded, new.dispute_id) == ("active", (), None)
    assert old.claim_id in {c.id for c in vault.get(old.entity).active} and vault.disputes() == []


def test_more_detail_is_no_contradiction_but_a_change_word_or_another_kind_is():
    from vault_ray.reasoners.rules import detail_of

    assert detail_of("user.job", "product manager", "senior product manager")
    assert detail_of("user.name", "maria gonzalez", "maria")
    assert not detail_of("user.job", "manager", "former manager")  # a change, not a detail
    assert not detail_of("user.meeting", "monday", "monday cancelled")
    assert not detail_of("user.location", "york", "new york city")  # places: only a city in its state or country
    assert detail_of("user.location", "lisbon", "portugal") and detail_of("user.location", "texas", "austin")
    assert not detail_of("user.location", "lisbon", "spain") and not detail_of("user.location", "paris", "united states")
    assert not detail_of("user.budget", "5000 USD", "5000 USD/month")
    # a word that turns the value, or a number said more exactly, is another value
    assert not detail_of("user.diet", "vegetarian", "non vegetarian") and not detail_of("user.job", "lawyer", "aspiring lawyer")
    assert not detail_of("user.shoe_size", "9", "9.5") and detail_of("user.birthday", "march 5", "march 5 1990")
    assert not detail_of("user.location", "hyderabad, pakistan", "india")


def test_a_region_whose_name_names_another_place_holds_no_city():
    """"Washington D.C." reads as `washington`, the state's name too, and Georgia is a state
    and a country: Seattle or Atlanta may be another place than the one meant."""
    from vault_ray.reasoners.rules import detail_of
    from vault_ray.values import canonical

    assert canonical("user.location", "Washington DC") == canonical("user.location", "Washington")
    assert not detail_of("user.location", "seattle", "washington") and not detail_of("user.location", "atlanta", "georgia")
    assert not detail_of("user.location", "tbilisi", "georgia")
    assert detail_of("user.location", "portland", "oregon") and detail_of("user.location", "kansas city", "missouri")


def test_no_pets_retracts_every_pet_and_one_species_only_itself():
    from vault_ray.reasoners.rules import contradicts

    assert contradicts("not:pet", "dog", "many") and contradicts("not:pet", "2 cats", "many")
    assert not contradicts("not:dog", "cat", "many") and contradicts("not:dog", "dog:rex", "many")
