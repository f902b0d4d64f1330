"""Chat as casual users type it: lower case, no apostrophes ("im", "dont", "ive"), no commas, short
forms ("my gf", "rn"). The facts it says are read as they are when written with care; what it says
of someone else, asks, or imagines is still no fact. Read with the local model, as a vault does by
default (and, for the harms, with every reader)."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import RegistryEntry, Vault, values

READ = [
    # the employer said in lower case, changed in one message
    ("no longer at google, im at meta now", [("user.employer", "Meta")]),
    ("im no longer at google, im at meta now", [("user.employer", "Meta")]),
    ("not at google anymore, im at meta now", [("user.employer", "Meta")]),
    ("no longer at google. im at meta now", [("user.employer", "Meta")]),
    ("i used to work at amazon now im at microsoft", [("user.employer", "Microsoft")]),
    ("i worked at google now im at starbucks", [("user.employer", "Starbucks")]),
    ("i left google now im at meta", [("user.employer", "Meta")]),
    ("i work at meta", [("user.employer", "Meta")]),
    ("my job is at deloitte", [("user.employer", "Deloitte")]),
    ("my new job is at amazon", [("user.employer", "Amazon")]),
    # a correction without its comma, or with "sorry I mean"
    ("i live in denver sorry i mean boulder", [("user.location", "Boulder")]),
    ("I live in Denver, sorry I mean Boulder.", [("user.location", "Boulder")]),
    ("i work at google i mean meta", [("user.employer", "Meta")]),
    ("I work at Google. Oops, I mean Meta.", [("user.employer", "Meta")]),
    # apostrophes left out
    ("i dont eat meat", [("user.diet", "vegetarian")]),
    ("ive got 2 cats", [("user.pets", "2 cats")]),
    ("im vegan", [("user.diet", "vegan")]),
    ("im allergic to peanuts", [("user.allergies", "peanuts")]),
    ("im 34 years old", [("user.age", "34")]),
    # names and places in lower case
    ("my name is john smith", [("user.name", "john smith")]),
    ("my name is john lol", [("user.name", "john")]),
    ("my names mike", [("user.name", "mike")]),
    ("moved to berlin last year", [("user.location", "Berlin")]),
    ("i live in berlin atm", [("user.location", "Berlin")]),
    ("i work at google and live in seattle", [("user.employer", "Google"), ("user.location", "Seattle")]),
    ("i speak spanish and french", [("user.language", "french"), ("user.language", "spanish")]),
    ("im married with 2 kids", [("user.family", "2 children"), ("user.marital_status", "married")]),
    # a correction's "i mean" that amends nothing
    ("i work at google sorry i mean it", [("user.employer", "Google")]),
    ("i live in denver i mean its cold here", [("user.location", "Denver")]),
    ("my company is acme", [("user.employer", "acme")]),
    ("My company is Great Clips.", [("user.employer", "Great Clips")]),
    ("i work at new relic", [("user.employer", "new relic")]),
    ("I live with my sisters in Boston.", [("user.location", "Boston")]),
    ("i have yoga at 7", [("user.schedule.yoga", "at 7")]),
    # a job and where it is done, in lower case
    ("im a software engineer at google", [("user.employer", "Google"), ("user.job", "software engineer")]),
    ("im a nurse at kaiser", [("user.employer", "Kaiser"), ("user.job", "nurse")]),
    ("im a barista at starbucks in seattle", [("user.employer", "Starbucks"), ("user.job", "barista")]),
    ("im a student at ucla", [("user.job", "student"), ("user.school", "UCLA")]),  # a school, no employer
    ("im a teacher at school", [("user.job", "teacher")]),
    ("im a nurse at the hospital", [("user.job", "nurse")]),
    ("im a waiter at night", [("user.job", "waiter")]),
    ("i work at a small company called nimbus", [("user.employer", "nimbus")]),
    ("I work for a tech startup named Zapp.", [("user.employer", "Zapp")]),
    # shouted, or with a smiley
    ("I WORK AT GOOGLE", [("user.employer", "Google")]),  # no time zone "AT"
    ("I LIVE IN BERLIN", [("user.location", "Berlin")]),
    ("i live in berlin :)", [("user.location", "Berlin")]),
    ("I'm in PST :D", [("user.timezone", "PST")]),
    # two statements run on without a comma
    ("i work at google im an engineer", [("user.employer", "Google"), ("user.job", "engineer")]),
    ("i live in austin i work at dell", [("user.employer", "Dell"), ("user.location", "Austin")]),
    ("my name is sam i live in denver", [("user.location", "Denver"), ("user.name", "sam")]),
]


@pytest.mark.parametrize(("said", "want"), READ)
def test_casual_chat_gives_the_facts_said(local_reasoner, said, want):
    assert facts(local_reasoner, said) == sorted(want)


NOTHING = [
    # someone else's, said short
    "my gf is vegan", "my hubby works at google", "my bro lives in la", "my wife works at google",
    "my bf works at google", "my sis is allergic to cats",
    # imagined, planned or wished
    "if i moved to paris id be happier", "what if i worked at google", "id love to live in paris",
    "ill be in berlin next week", "i might move to seattle", "thinking about moving to london",
    "maybe ill move to tokyo next year", "i wish i worked at google",
    # questions without a question mark
    "where do i live", "do you know where i work", "should i move to denver",
    # where the user is at the moment, after a past job: no employer
    "i used to work at google, now im at home", "i used to work at google, now im at lunch",
    "i used to work at google, now im at the gym", "i used to work at google, now im at work",
    # someone else's, said without the apostrophe, or more than one of them
    "my daughters vegan", "my bosses timezone is est", "my wifes birthday is march 3", "my sisters budget is 500",
    "my sisters are vegan", "My sisters are vegan.", "my nephews are allergic to nuts",
    # said, then taken back without a comma
    "im vegan not really", "im vegan haha no", "im vegan lol just kidding", "i work at google haha no",
    "i work at google jk", "lets say i live in paris",
    # said of the company, or of whom the user works with: no employer's name
    "my company is great", "my company is hiring", "i work with kids", "I work with kids.",
    "the company i work for is great", "The company I work for is great.", "i think im vegan",
    "i have an interview at google",
    # past, or no value
    "i used to be vegan", "im ill", "i feel ill", "im at the atm", "my job is at home",
]


@pytest.mark.parametrize("said", NOTHING)
def test_what_casual_chat_says_of_others_asks_or_imagines_is_no_fact(reasoner, said):
    assert facts(reasoner, said) == []


def test_a_casual_budget_is_an_amount(local_reasoner):
    (found,) = local_reasoner.extract_turn("my budget is like 500 bucks").facts
    assert (found.entity, values.canonical(found.entity, found.value)) == ("user.budget", "500 USD")


def test_a_lower_case_change_of_employer_replaces_the_stored_one(tmp_path, local_embedder, local_reasoner):
    with Vault.open(tmp_path / "s", embedder=local_embedder, reasoner=local_reasoner) as vault:
        vault.register(RegistryEntry("user.bank", "the bank the user banks with", "one", (),
                                     ("My bank is [Chase]", "I bank with [Wells Fargo]")))
        chat = vault.agent("chat")
        chat.add("i work at google")
        result = chat.add("no longer at google, im at meta now")
        chat.add("my bank is chase")
        assert [(d.entity, d.value) for d in result.decisions] == [("user.employer", "Meta")]
        assert vault.get("user.employer").values == ("Meta",)
        assert vault.get("user.bank").values == ("chase",)
