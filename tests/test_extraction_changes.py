"""A value changed for another and an amount said with its bound, through `vault.agent(...).add` and `vault.get`:
"I switched from Stripe to Shopify", "We replaced Zoom with Teams", "My budget was $500 but now it's $800" store
the new value only, never the old one as current; "Keep it under 200 pounds" stores a budget with its bound kept
("under 200 pounds", 200 GBP); "Keep it under 5 minutes" is no budget. One vault (the local model) for the module:
each case states the old value first, so the change must replace it."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import RegistryEntry, Vault
from vault_ray.values import canonical

ENTRIES = (
    RegistryEntry("user.bank", "the bank the user banks with", "one", (),
                  ("My bank is [Chase]", "I bank with [Chase]", "My account is at [Chase]")),
    RegistryEntry("user.shop_platform", "the platform the user's online shop runs on", "one", (),
                  ("Our shop runs on [Shopify]", "We sell through [Etsy]", "My store is on [Wix]")),
    RegistryEntry("user.video_tool", "the video call tool the user's team uses", "one", (),
                  ("We use [Zoom] for calls", "Our meetings are on [Google Meet]")),
)


@pytest.fixture(scope="module")
def vault(tmp_path_factory, local_embedder, local_reasoner):
    with Vault.open(tmp_path_factory.mktemp("changes") / "s", embedder=local_embedder, reasoner=local_reasoner) as vault:
        for entry in ENTRIES:
            vault.register(entry)
        yield vault


def said_then(vault: Vault, entity: str, *turns: str) -> tuple[str, ...]:
    agent = vault.agent("chat")
    for turn in turns:
        agent.add(turn)
    return vault.get(entity).values


# -- 1. a change: the new value is the current one, the old one is not ------------------------------------------
@pytest.mark.parametrize(("entity", "before", "change", "want"), [
    ("user.shop_platform", "My store is on Stripe", "I switched from Stripe to Shopify", "Shopify"),
    ("user.shop_platform", "My store is on Stripe", "We moved from Stripe to Shopify", "Shopify"),
    ("user.shop_platform", "My store is on Wix", "We moved our shop from Wix to Squarespace last year", "Squarespace"),
    ("user.bank", "My bank is Chase", "We changed our bank from Chase to Wells Fargo", "Wells Fargo"),
    ("user.bank", "My bank is Chase", "I switched banks from Chase to Ally", "Ally"),
    ("user.bank", "My bank is Chase", "I switched over from Chase to Ally", "Ally"),  # no job said: no employer
    ("user.bank", "My bank is Chase", "I replaced Chase with Ally as my bank", "Ally"),
    ("user.bank", "My bank is Chase", "My bank was Chase, now it's Capital One", "Capital One"),
    ("user.video_tool", "We use Zoom for calls", "We replaced Zoom with Teams", "Teams"),
    ("user.video_tool", "We use Zoom for calls", "We ditched Zoom for Google Meet", "Google Meet"),
    ("user.employer", "I work at Google", "I left Google for Meta", "Meta"),
    ("user.employer", "I work at Google", "I switched from Google to Meta", "Meta"),
    ("user.payment.method", "I pay with Visa", "I replaced my Visa with an Amex", "Amex"),
    ("user.payment.method", "I pay with Visa", "I swapped my Visa for a Mastercard", "Mastercard"),
    ("user.payment.method", "I pay with Visa", "I switched my card from Visa to Amex", "Amex"),
    ("user.timezone", "I'm on Pacific time", "I moved from Pacific time to Eastern", "Eastern"),
    ("user.timezone", "I'm on Pacific time", "My time zone was PST, now it's EST", "EST"),
])
def test_a_change_stores_the_new_value_only(vault, entity, before, change, want):
    assert said_then(vault, entity, before, change) == (want,)


@pytest.mark.parametrize(("before", "change", "want"), [
    ("My budget is $500", "We increased our budget from $500 to $800", "800 USD"),
    ("My budget is $500", "My budget went from $500 to $800", "800 USD"),
    ("My budget is $500", "My budget was $500 but now it's $800", "800 USD"),
    ("My budget is $5000", "My budget is no longer $5000, it's $3000 now", "3000 USD"),
    ("My budget is $500", "My budget used to be $500, now it's 900 euros", "900 EUR"),
])
def test_an_amount_changed_is_the_new_amount(vault, before, change, want):
    (value,) = said_then(vault, "user.budget", before, change)
    assert canonical("user.budget", value) == want


# -- 2. an amount with a bound: a budget that keeps its bound -----------------------------------------------------
@pytest.mark.parametrize(("said", "entity", "want", "amount"), [
    ("Keep it under 200 pounds", "user.budget", "under 200 pounds", "200 GBP"),
    ("my budget is under £250", "user.budget", "under £250", "250 GBP"),
    ("Keep it under £300", "user.budget", "under £300", "300 GBP"),
    ("Try to keep it under £150", "user.budget", "under £150", "150 GBP"),
    ("Let's keep it under $1k", "user.budget", "under $1k", "1000 USD"),
    ("Please stay below 80 euros", "user.budget", "below 80 euros", "80 EUR"),
    ("I can spend no more than $300", "user.budget", "no more than $300", "300 USD"),
    ("I can spend at least $2,000", "user.budget", "at least $2,000", ">=2000 USD"),
    ("I don't want to spend more than $50", "user.budget", "$50", "50 USD"),  # a denied floor: the ceiling alone
    ("Keep the hotel under 200 pounds a night", "user.budget.hotel", "under 200 pounds a night", "200 GBP/night"),
])
def test_a_bound_said_with_an_amount_is_kept(vault, said, entity, want, amount):
    assert said_then(vault, entity, said) == (want,)
    assert canonical(entity, want) == amount


# -- 3. a bound of no money, and what a change does not say ---------------------------------------------------------
@pytest.mark.parametrize("said", [
    "Keep it under 5 minutes", "Keep it under 200 words", "Let's keep it under 2 hours", "Try to keep it under 500 words",
    "Stay within 3 miles of the hotel", "Stay under 30 minutes please",
    "My old job was at Apple, now it's nursing",  # the old one said as old: no value
    "My name isn't Sam, it's spelled Sem",
])
def test_no_value_is_read(local_reasoner, said):
    assert [f for f in facts(local_reasoner, said) if f[0] != "user.job"] == []


@pytest.mark.parametrize(("said", "want"), [
    ("I moved from Google to Meta in 2020.", [("user.employer", "Meta")]),  # no place called Meta
    ("I moved from Chicago to Austin", [("user.location", "Austin")]),
    ("I switched over from Chase to Ally", []),  # "over" is no job ("I switched jobs from ...": the employer)
    ("I switched companies from Google to Meta", [("user.employer", "Meta")]),
    ("My old job was at Apple, now I'm at Stripe", [("user.employer", "Stripe")]),
])
def test_a_change_is_read_by_its_own_slot(local_reasoner, said, want):
    assert facts(local_reasoner, said) == want
