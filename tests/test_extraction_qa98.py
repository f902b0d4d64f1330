"""Misses QA round 98 found in the extraction of corrections and changes within one message: a
now part whose slot is left to the past statement before it ("I worked at Google, now I'm at
Meta"); a value corrected in the same message that is also a word of another kind ("EST, no,
Central", "Google, sorry, Amazon"), has dots in it ("a@x.com, sorry, b@x.com") or was said with a
preposition ("at 9am, sorry, 9:30"); a second turn that only corrects a zone, an e-mail or a time.
An apology or an aside still replaces nothing, and a now part that says no value of the slot's
kind ("now I'm at the gym") stores nothing."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import HashingEmbedder, LocalEmbedder, RuleReasoner, Vault


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    return RuleReasoner(LocalEmbedder())


def chat(*turns: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for i, t in enumerate(turns):
        if i:
            out.append({"role": "assistant", "content": "Noted!"})
        out.append({"role": "user", "content": t})
    return out


# -- B1. a now part with its slot left to the past statement before it -------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I worked at Google, now I'm at Meta", [("user.employer", "Meta")]),
    ("I used to live in Austin, now I live in Denver", [("user.location", "Denver")]),
    ("I used to work at Google, now I'm at Meta", [("user.employer", "Meta")]),
    ("I worked at Apple, but now I'm with Google", [("user.employer", "Google")]),
    ("I worked for Apple, now I'm at Google", [("user.employer", "Google")]),
    ("I left Apple, now I'm at Google", [("user.employer", "Google")]),
    ("I quit Apple, and now I'm at Google", [("user.employer", "Google")]),
    ("I worked at Apple but I'm at Stripe now", [("user.employer", "Stripe")]),
    ("I worked at Apple, I'm now at Stripe", [("user.employer", "Stripe")]),
    ("My old job was at Apple, now I'm at Stripe", [("user.employer", "Stripe")]),
    ("I worked at Google. Now I'm at Meta", [("user.employer", "Meta")]),
    ("I worked at Google for years, these days I'm at Meta", [("user.employer", "Meta")]),
    ("I used to work at Google, now Meta", [("user.employer", "Meta")]),
    ("I used to live in Boston, now Chicago", [("user.location", "Chicago")]),
    ("I lived in Boston for years, these days I'm in Chicago", [("user.location", "Chicago")]),
    ("I used to be on Eastern time, now Pacific", [("user.timezone", "Pacific time")]),
    ("I used to be vegetarian, now vegan", [("user.diet", "vegan")]),
    ("I used to wake up at 6am, now 7am", [("user.schedule.wake_up", "at 7am")]),
    ("I worked at Apple, now I'm at Google and I live in Austin", [("user.employer", "Google"), ("user.location", "Austin")]),
    ("I worked at Google until 2023, now I'm at Meta", [("user.employer", "Meta")]),
    ("I was at Google until May, now I'm at Meta", [("user.employer", "Meta")]),
    ("I was at Apple for 5 years, now I'm at Google", [("user.employer", "Google")]),
    ("I was with Google for 5 years, now I'm with Meta", [("user.employer", "Meta")]),
    ("Now I'm at Meta. Before that I was at Google for years", [("user.employer", "Meta")]),
    ("I was working at Google, now I'm at Meta", [("user.employer", "Meta")]),
    ("I'm at Meta now, I used to work at Google", [("user.employer", "Meta")]),
    ("I worked at Google, now I'm at Meta, sorry for the delay", [("user.employer", "Meta")]),
    ("I worked at Google, now I'm at Meta, sorry, Apple", [("user.employer", "Apple")]),
    ("I used to live in Austin, now Denver, sorry, Dallas", [("user.location", "Dallas")]),
])
def test_a_now_part_takes_the_slot_of_the_past_statement(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", [
    "I worked at Apple, now I'm at the gym", "I worked at Google, now I'm at home", "I worked at Apple, now I'm at lunch",
    "I worked at Apple. Now I'm at the airport", "I used to live in Boston, now I'm at the office",
    "I was at Target earlier, now I'm at Walmart", "I worked at Apple, now I'm happy",
    "I used to be vegetarian, now I'm not", "My sister worked at Apple, now she's at Google",
    "I worked at Google, now I'm at Denver", "I'm at the gym now, I used to work at Google",
    # no job said before "I'm at": no job word, nor months or years at a name ("I was at Google until May" says one)
    "I was at Google until Friday, now I'm at Meta", "I was at Apple last week, now I'm at Google",
    "I used to be at Apple, now I'm at Google", "I was with Google earlier, now I'm with Meta",
    "Now I'm at Meta. Before that I was at Google this morning",
])
def test_a_now_part_with_no_value_of_that_kind_stores_nothing(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize(("said", "want"), [
    ("I worked at Google, now I'm at Meta", [("user.employer", "Meta")]),
    ("I used to work at Google, now Meta", [("user.employer", "Meta")]),
    ("I used to live in Austin, now Denver", [("user.location", "Denver")]),
    ("I worked at Apple, now I'm at the gym", []),
])
@pytest.mark.parametrize("make", [RuleReasoner, lambda: RuleReasoner(HashingEmbedder())], ids=["patterns", "hashing"])
def test_a_now_part_is_read_without_the_model_too(make, said, want):
    assert facts(make(), said) == want


def test_the_now_value_replaces_the_earlier_claim_in_the_store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        agent = vault.agent("chat")
        first = agent.add(chat("I work at Google"))
        result = agent.add(chat("I worked at Google, now I'm at Meta"))
        (decision,) = result.decisions
        assert decision.op.value == "REPLACE" and decision.superseded == (first.decisions[0].claim_id,)
        assert vault.get("user.employer").values == ("Meta",)
        assert vault.claim(decision.claim_id).text == "The user works at Meta"


# -- B2. a value corrected within the message ---------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("My time zone is EST, no, Central", [("user.timezone", "Central")]),
    ("My time zone is EST, sorry, Central", [("user.timezone", "Central")]),
    ("My time zone is EST, I mean Central", [("user.timezone", "Central")]),
    ("My time zone is EST, actually Central", [("user.timezone", "Central")]),
    ("My time zone is EST, no wait, Central", [("user.timezone", "Central")]),
    ("My time zone is EST, scratch that, Central", [("user.timezone", "Central")]),
    ("I'm on Pacific time, no, Mountain", [("user.timezone", "Mountain time")]),
    ("my email is a@x.com, sorry, b@x.com", [("user.email", "b@x.com")]),
    ("my email is a@x.com, I mean b@x.com", [("user.email", "b@x.com")]),
    ("my email is a@x.com, no wait, b@x.com", [("user.email", "b@x.com")]),
    ("my email is a@x.com, scratch that, b@x.com", [("user.email", "b@x.com")]),
    ("My email is jane.doe@gmail.com, actually jane.d@gmail.com", [("user.email", "jane.d@gmail.com")]),
    ("I work at Google, correction, AWS", [("user.employer", "AWS")]),
    ("I work at Google, sorry, Amazon", [("user.employer", "Amazon")]),
    ("I work at Google, scratch that, Amazon", [("user.employer", "Amazon")]),
    ("I work at Google, no wait, Amazon", [("user.employer", "Amazon")]),
    ("I work at Meta, I mean Oracle", [("user.employer", "Oracle")]),
    ("My standup is at 9am, sorry, 9:30", [("user.schedule.standup", "at 9:30")]),
    ("My standup is at 9am, I mean 9:30", [("user.schedule.standup", "at 9:30")]),
    ("My standup is at 9am, actually 9:30", [("user.schedule.standup", "at 9:30")]),
    ("My standup is at 9am, scratch that, 10am", [("user.schedule.standup", "at 10am")]),
    ("I wake up at 6am, sorry, 6:30", [("user.schedule.wake_up", "at 6:30")]),
    ("My budget is $5.50, sorry, $6.50", [("user.budget", "$6.50")]),
    ("I live in Austin, sorry, Dallas", [("user.location", "Dallas")]),
    ("I live in Austin, I mean Dallas", [("user.location", "Dallas")]),
    ("I live in Austin, scratch that, Dallas", [("user.location", "Dallas")]),
])
def test_a_value_corrected_within_the_message_replaces_it(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I live in Austin, sorry for the delay", [("user.location", "Austin")]),
    ("My time zone is EST, sorry for the confusion", [("user.timezone", "EST")]),
    ("My time zone is EST, sorry, quick question", [("user.timezone", "EST")]),
    ("My time zone is EST, sorry, Alice", [("user.timezone", "EST")]),
    ("my email is a@x.com, sorry, typo", [("user.email", "a@x.com")]),
    ("my email is a@x.com, sorry about that", [("user.email", "a@x.com")]),
    ("I work at Google, sorry, Denver", [("user.employer", "Google")]),
    ("I work at Google, sorry, lol", [("user.employer", "Google")]),
    ("I work at Google, sorry for the delay", [("user.employer", "Google")]),
    ("My standup is at 9am, sorry, running late", [("user.schedule.standup", "at 9am")]),
    ("I live in Austin, sorry, I'm new here", [("user.location", "Austin")]),
    ("I'm vegan. Sorry, I'm also gluten-free", [("user.diet", "vegan, gluten-free")]),  # one value: diets.py
    ("I live in Austin. I'm currently staying in Denver", [("user.location", "Austin"), ("user.location", "Denver")]),
])
def test_an_apology_or_an_addition_replaces_nothing(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- B3. a second turn that only corrects ------------------------------------------------------
@pytest.mark.parametrize(("before", "fix", "want"), [
    ("I live in Austin", "Sorry, Dallas", ("user.location", "Dallas")),
    ("I live in Austin", "I mean Dallas", ("user.location", "Dallas")),
    ("I live in Austin", "Scratch that, Dallas", ("user.location", "Dallas")),
    ("I live in Austin", "No wait, Dallas", ("user.location", "Dallas")),
    ("My time zone is EST", "Sorry, Central", ("user.timezone", "Central")),
    ("My time zone is EST", "I mean Central", ("user.timezone", "Central")),
    ("I'm on Pacific time", "Actually, Mountain", ("user.timezone", "Mountain time")),
    ("My email is a@x.com", "Sorry, b@x.com", ("user.email", "b@x.com")),
    ("My email is a@x.com", "I mean b@x.com", ("user.email", "b@x.com")),
    ("My standup is at 9am", "Sorry, 9:30", ("user.schedule.standup", "at 9:30")),
    ("My standup is at 9am", "Actually, 10am", ("user.schedule.standup", "at 10am")),
    ("My phone number is 555-123-4567", "Sorry, 555-123-7654", ("user.phone", "555-123-7654")),
    ("I work at Google", "Actually, Microsoft", ("user.employer", "Microsoft")),
])
def test_a_second_turn_that_only_corrects(reasoner, before, fix, want):
    extraction = reasoner.extract_turn(chat(before, fix))
    assert [(f.entity, f.value) for f in extraction.facts] == [want]
    assert extraction.facts[0].source == fix


@pytest.mark.parametrize(("before", "fix"), [
    ("I live in Austin", "Sorry for the delay"), ("I live in Austin", "Sorry, quick question"),
    ("My time zone is EST", "Sorry, lol"), ("I live in Austin", "Sorry, Alice"),
    ("My budget is $500", "Sorry, 5pm"), ("I wake up at 7am", "Sorry, Tuesday"),
    ("My email is a@x.com", "Sorry, 9:30"), ("My standup is at 9am", "Sorry, b@x.com"),
    ("I work at Google", "Sorry, Dave"), ("I work at Google", "Actually, Denver"),
])
def test_a_second_turn_with_no_value_of_that_kind_stores_nothing(reasoner, before, fix):
    assert facts(reasoner, chat(before, fix)) == []


@pytest.mark.parametrize(("before", "reply", "fix", "want"), [
    ("I live in Austin", "Got it, you live in Austin.", "Sorry, Dallas", ("user.location", "Dallas")),
    ("My time zone is EST", "Okay, your time zone is EST.", "I mean Central", ("user.timezone", "Central")),
    ("My email is a@x.com", "Thanks, your email is a@x.com.", "Sorry, b@x.com", ("user.email", "b@x.com")),
])
def test_a_correction_after_a_reply_that_says_the_statement_back(reasoner, before, reply, fix, want):
    messages = [{"role": "user", "content": before}, {"role": "assistant", "content": reply},
                {"role": "user", "content": fix}]
    assert facts(reasoner, messages) == [want]


@pytest.mark.parametrize(("before", "reply", "fix"), [
    ("I live in Boston", "Got it, you live in Boston. Here are hotels in Rome.", "Sorry, Florence"),
    ("I live in Boston", "Great, I booked a table in Boston for Friday.", "No, Cambridge."),
    ("I live in Austin", "Got it, you live in Denver.", "Sorry, Dallas"),
    ("I live in Austin", "Great! Austin is a lovely city.", "Sorry, Dallas"),
])
def test_a_correction_after_any_other_reply_stores_nothing(reasoner, before, reply, fix):
    messages = [{"role": "user", "content": before}, {"role": "assistant", "content": reply},
                {"role": "user", "content": fix}]
    assert facts(reasoner, messages) == []


def test_a_line_that_only_corrects_in_vault_ray_chat(tmp_path):
    from io import StringIO

    from rich.console import Console

    from vault_ray.chat import run_chat

    lines = iter(["I live in Austin", "/get user.location", "Sorry, Dallas", "My time zone is EST", "I mean Central"])

    def reader(_prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:  # the user is done: the chat ends
            raise EOFError from None

    out = StringIO()
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        run_chat(vault, "chat", Console(file=out, width=200), read=reader, errors=Console(file=out))
        assert vault.get("user.location").values == ("Dallas",)
        assert vault.get("user.timezone").values == ("Central",)
