"""False facts QA round 99 found in the then/now and correction rules: a visit, a person, a hope, a
trip or a stay read as the new employer or home; a take-back or reported speech after a now part;
the article kept in a job; a routine's exception, a greeting, a day, a kinship word or a state taken
as a correction; a chain of corrections that did not end on the last one said."""

from __future__ import annotations

import pytest
from extraction_qa import facts, reasons

from vault_ray import HashingEmbedder, LocalEmbedder, RuleReasoner, Vault


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    return RuleReasoner(LocalEmbedder())


READERS = pytest.mark.parametrize("make", [RuleReasoner, lambda: RuleReasoner(HashingEmbedder())],
                                  ids=["patterns", "hashing"])

# -- A. nothing false about the user ------------------------------------------------------------
NOTHING = [
    # A1: "today" says where the user is; "I was at X" with no job and no months or years says no job ("I was at Google
    # until May. Right now I'm at Starbucks" does: test_extraction_qa99c.py); "I'm at X right now" alone is a visit
    "I was at Google until 3pm. Right now I'm at Starbucks.", "I was at Google until Friday, now I'm at Barnes & Noble.",
    "I worked at Google until 2023. Today I'm at Starbucks.", "I'm at Starbucks right now.", "Right now I'm at Target.",
    "I was at Google last week. These days I'm with Meta.", "I was at Google earlier, now I'm at Meta.",
    "I was at Google until May. Today I'm at Meta for an interview.",
    # A2: a person is no employer
    "I worked at Google, now I'm with Sarah.", "I used to work at Apple, now I'm with Tom.",
    "I worked at Google, now I'm with Sarah Jones.", "I worked at Google, now I'm with Mom.",
    # A3: a hope or a plan
    "I used to work at Google, now at Meta hopefully soon.", "I used to work at Google, now at Meta soon.",
    "I used to work at Google, now at Meta, hopefully soon.", "I used to work at Google, now Meta, hopefully.",
    "I work at Meta hopefully soon.", "I worked at Apple, now I'm at Stripe, fingers crossed.",
    # A4: travel is no move
    "I was in Boston yesterday, now Chicago.", "I was in Boston, now Chicago.", "I was in Denver last week, now Austin.",
    # A5: a take-back in the next sentence, reported speech
    "I used to live in Boston, now Chicago. Just kidding, still Boston.", "I used to live in Boston, now Chicago. Just kidding.",
    "I used to work at Google, now Meta, my wife says.", "I used to work at Google, now Meta, according to my wife.",
    "I used to live in Austin, now Denver, or so I'm told.", "I work at Meta, my wife says.",
    "I live in Chicago, according to my husband.",
    # C23: a stay with an end, a school, a visit
    "I used to live in Boston, now I'm in Paris until Friday.", "I used to live in Austin, now I'm in Rome until tomorrow.",
    # (after a school the now part is a school: user.school, test_extraction_text.py)
    "I worked at Google, now I'm at Meta for a conference.", "I worked at Google, now I'm at Meta's competitor.",
]


@pytest.mark.parametrize("said", NOTHING)
def test_no_false_fact_from_a_now_part(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize("said", NOTHING[::3])
@READERS
def test_no_false_fact_without_the_model_either(make, said):
    assert facts(make(), said) == []


def test_why_nothing_is_said(reasoner):
    assert any("my wife says" in r or "someone else says" in r for r in reasons(reasoner, "I work at Meta, my wife says."))
    assert any("hope" in r for r in reasons(reasoner, "I used to work at Google, now Meta, hopefully."))


# -- what still reads ---------------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I worked at Google, now I'm at Meta.", [("user.employer", "Meta")]),
    ("I used to work at Google, now I'm with Amazon.", [("user.employer", "Amazon")]),
    ("I used to work at Google, now at Meta.", [("user.employer", "Meta")]),
    ("My old job was at Apple, these days I'm at Stripe.", [("user.employer", "Stripe")]),
    ("I left Google, now I'm at Meta.", [("user.employer", "Meta")]),
    ("I quit Apple, and now I'm at Google.", [("user.employer", "Google")]),
    ("I used to live in Boston, now Chicago.", [("user.location", "Chicago")]),
    ("I lived in Denver for years, now Austin.", [("user.location", "Austin")]),
    ("I'm vegetarian. Just kidding, I'm vegan.", [("user.diet", "vegan")]),
])
def test_a_job_or_home_said_before_the_now_part_still_carries_it(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- B. values said as the slot says them -------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I was a nurse, now a nurse practitioner.", [("user.job", "nurse practitioner")]),
    ("I was a manager, now a director.", [("user.job", "director")]),
    ("I used to be an engineer, now an architect.", [("user.job", "architect")]),
    ("I wake up at 9am, sorry, 9:30 on weekends.", [("user.schedule.wake_up", "at 9am")]),
    ("I wake up at 7am, sorry, 8 on Sundays.", [("user.schedule.wake_up", "at 7am")]),
    ("I wake up at 9am, no, 10am on Sundays.", [("user.schedule.wake_up", "at 9am")]),
    ("I wake up at 9am, sorry, 9:30.", [("user.schedule.wake_up", "at 9:30")]),
])
def test_values_keep_their_own_form(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- C. a correction is a value of the slot, and the last one said stands ----------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I work at Google, sorry, Hi.", [("user.employer", "Google")]),
    ("I work at Google, sorry, Thanks.", [("user.employer", "Google")]),
    ("I work at Google, sorry, Monday.", [("user.employer", "Google")]),
    ("I work at Google, sorry, January.", [("user.employer", "Google")]),
    ("I work at Apple, sorry, Hello.", [("user.employer", "Apple")]),
    ("I work at Google, sorry, Sarah.", [("user.employer", "Google")]),
    ("My name is Sam, sorry, Dad.", [("user.name", "Sam")]),
    ("My name is Alex, sorry, Mom.", [("user.name", "Alex")]),
    ("I live in Portland, sorry, Oregon.", [("user.location", "Portland")]),
    ("I live in Springfield, sorry, Illinois.", [("user.location", "Springfield")]),
    ("I live in Lyon, sorry, France.", [("user.location", "Lyon")]),
    ("I work at Google, sorry, Microsoft, sorry, Google.", [("user.employer", "Google")]),
    ("I live in Boston, no, Brooklyn. No wait, Boston.", [("user.location", "Boston")]),
    ("I'm in Central time, no, Mountain, no wait, Central.", [("user.timezone", "Central time")]),
    ("My time zone is Pacific, sorry, Eastern, sorry again, Pacific.", [("user.timezone", "Pacific")]),
    # a real correction still replaces
    ("I work at Google, sorry, Amazon.", [("user.employer", "Amazon")]),
    ("My name is Sam, sorry, Sean.", [("user.name", "Sean")]),
    ("I live in Portland, sorry, Seattle.", [("user.location", "Seattle")]),
    ("I work at Google, sorry, Microsoft.", [("user.employer", "Microsoft")]),
    ("I'm on Pacific time, wait no, Mountain.", [("user.timezone", "Mountain time")]),
])
def test_a_correction_is_a_value_of_the_slot(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I work at Google, sorry, Monday.", [("user.employer", "Google")]),
    ("I work at Google, sorry, Microsoft, sorry, Google.", [("user.employer", "Google")]),
    ("I live in Portland, sorry, Oregon.", [("user.location", "Portland")]),
    ("I was a nurse, now a nurse practitioner.", [("user.job", "nurse practitioner")]),
])
@READERS
def test_corrections_without_the_model(make, said, want):
    assert facts(make(), said) == want


def test_a_greeting_after_sorry_leaves_the_stored_employer(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        agent = vault.agent("chat")
        agent.add([{"role": "user", "content": "I work at Google, sorry, Monday."}])
        agent.add([{"role": "user", "content": "I was at Google until 3pm. Right now I'm at Starbucks."}])
        assert vault.get("user.employer").values == ("Google",)
