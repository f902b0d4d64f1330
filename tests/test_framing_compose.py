"""qa7 F1 and F4: a request to write or imagine something about "I", a plan for a time to come and a
pet that died are no current positive facts; each is reported with its reason, and a true fact on
record stays current. Plain statements that merely hold such words are still read."""

from __future__ import annotations

import pytest

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.values import canonical


@pytest.fixture(scope="module")
def reasoner():
    return RuleReasoner(LocalEmbedder())


def turn(reasoner, said):
    found = reasoner.extract_turn([{"role": "user", "content": said}])
    return [(f.entity, canonical(f.entity, f.value)) for f in found.facts], [u.reason for u in found.unextracted]


@pytest.mark.parametrize("said", [
    "Write a short story where I work at NASA.",
    "Write a story where I'm a pilot who lives in Cairo.",
    "Write a poem about how I'm a vegan living in Paris.",
    "Draft a LinkedIn post announcing I joined Stripe.",
    "Write a cover letter saying I work at Google as a data scientist.",
    "I need a bio that says I'm a nurse at Mercy Hospital.",
    "Hey, could you draft an email to my team saying I'm now on Pacific time.",
    "Can you write me a song about how I moved to Berlin?",
    "Please compose a toast where I'm married to Sarah.",
    "Tell me a bedtime story where I have a cat named Luna.",
    "Write about how I moved to Paris.",
])
def test_a_request_to_compose_is_set_aside(reasoner, said):
    facts, reasons = turn(reasoner, said)
    assert facts == [] and any("a request to write or imagine" in r for r in reasons), (facts, reasons)


@pytest.mark.parametrize("said", [
    "Imagine I live in Tokyo; what would my commute look like?", "Imagine I'm vegan and work at Google.",
    "Suppose I lived in Denver, where would I ski?", "Picture me living in Rome with two cats.",
    "Let's imagine I have a dog named Rex.", "Help me write a dating profile: I'm a chef who loves hiking.",
])
def test_a_daydream_or_a_text_to_work_on_is_set_aside(reasoner, said):
    facts, reasons = turn(reasoner, said)
    assert facts == [] and reasons, (facts, reasons)


def test_the_request_and_a_statement_after_it(reasoner):
    facts, reasons = turn(reasoner, "Write a story where I work at NASA. I live in Houston.")
    assert facts == [("user.location", canonical("user.location", "Houston"))]
    assert [r for r in reasons if "a request to write" in r]


@pytest.mark.parametrize(("said", "want"), [
    ("Imagine Dragons is my favorite band", [("user.favorite_band", canonical("user.favorite_band", "Imagine Dragons"))]),
    ("I write poems for a living and I'm vegan", [("user.diet", "vegan")]),
    ("I make posts about how I'm vegan.", [("user.diet", "vegan")]),
    ("Make a note that I live in Boston.", [("user.location", canonical("user.location", "Boston"))]),
    ("Write down that I'm allergic to peanuts.", [("user.allergies", canonical("user.allergies", "peanuts"))]),
    ("I'm a writer and I live in Paris.", [("user.job", "writer"), ("user.location", canonical("user.location", "Paris"))]),
])
def test_statements_with_the_same_words_are_still_read(reasoner, said, want):
    assert turn(reasoner, said)[0] == want


@pytest.mark.parametrize("said", ["I imagine I'll stay in Boston.", "I imagine I live in Boston for good now."])
def test_i_imagine_is_a_guess(reasoner, said):
    facts, reasons = turn(reasoner, said)
    assert facts == [] and all("guess" in r or "no pattern" in r for r in reasons), (facts, reasons)


@pytest.mark.parametrize("said", [
    "I start at Netflix in two weeks.", "I move to Denver next month.", "I become a manager in a few weeks.",
    "I'm flying to Tokyo tomorrow, I'll be on JST for two weeks.", "I'll be in Berlin next week, so switch me to CET.",
    "I'm in Berlin next week, so switch me to CET.", "I'm vegan, starting tomorrow.", "I'm vegan as of next Monday.",
    "We move into our new place in Austin on Friday.",
])
def test_a_plan_for_a_time_to_come_is_no_fact(reasoner, said):
    facts, reasons = turn(reasoner, said)
    assert facts == [] and any("plan" in r for r in reasons), (facts, reasons)


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Boston but move to Denver next month.", [("user.location", canonical("user.location", "Boston"))]),
    ("I'm on Eastern time, switching to Pacific next week.", [("user.timezone", canonical("user.timezone", "Eastern"))]),
    ("I'm on Eastern time until next week.", [("user.timezone", canonical("user.timezone", "Eastern"))]),
    ("I usually wake up at 6 but tomorrow I need to wake up at 4", [("user.schedule.wake_up", canonical(
        "user.schedule.wake_up", "at 6"))]),
    ("I'll pay by Venmo", [("user.payment.method", canonical("user.payment.method", "Venmo"))]),
    ("I started at Netflix two weeks ago.", [("user.employer", canonical("user.employer", "Netflix"))]),
    ("I go to the gym on Mondays at 6am.", [("user.schedule.gym", canonical("user.schedule.gym", "on mondays at 6am"))]),
])
def test_a_state_of_now_beside_a_time_to_come_is_read(reasoner, said, want):
    assert turn(reasoner, said)[0] == want


@pytest.mark.parametrize(("said", "want"), [
    ("We had to put our dog down yesterday.", "not:dog"),
    ("We had to put our cat Luna to sleep last night.", "not:cat:luna"),
    ("Biscuit, our golden retriever, passed away.", "not:dog:biscuit"),
    ("Our old dog passed away last week.", "not:dog"),
    ("We lost our cat Luna last month.", "not:cat:luna"),
    ("Our dog was put down yesterday.", "not:dog"),
])
def test_a_pet_that_died_is_retracted(reasoner, said, want):
    assert turn(reasoner, said)[0] == [("user.pets", want)]


def test_a_compose_request_from_another_agent_leaves_the_employer(make_vault):
    vault = make_vault()
    vault.agent("a").add("I work at Google.")
    result = vault.agent("b").add("Write a short story where I work at NASA.")
    assert result.decisions == () and result.unextracted
    assert vault.get("user.employer").values == ("Google",)


def test_a_future_start_leaves_the_employer(make_vault):
    vault = make_vault()
    vault.agent("a").add("I work at Google.")
    assert vault.agent("b").add("I start at Netflix in two weeks.").decisions == ()
    assert vault.get("user.employer").values == ("Google",)


@pytest.mark.parametrize("said", ["Sad news, Biscuit passed away this morning.", "Biscuit died."])
def test_a_named_death_of_a_pet_on_record_retracts_it(make_vault, said):
    vault = make_vault()
    vault.agent("a").add("We have a golden retriever named Biscuit.")
    vault.agent("a").add("I also have a cat named Luna.")
    vault.agent("b").add(said)
    assert set(vault.get("user.pets").values) == {"not:dog:Biscuit", "cat:Luna"}


def test_a_named_death_with_no_such_pet_on_record_stores_nothing(make_vault):
    vault = make_vault()
    vault.agent("a").add("We have a golden retriever named Biscuit.")
    result = vault.agent("b").add("Sad news, Grandpa Joe passed away.")
    assert result.decisions == ()
    result = vault.agent("b").add("Tom passed away.")
    assert result.decisions == () and result.unextracted
    assert vault.get("user.pets").values == ("dog:Biscuit",)


def test_we_put_our_dog_down_retracts_the_dog(make_vault):
    vault = make_vault()
    vault.agent("a").add("I have a dog.")
    vault.agent("b").add("We had to put our dog down yesterday.")
    assert vault.get("user.pets").values == ("not:dog",)
