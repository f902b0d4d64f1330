"""Misses QA round 99 left in the rule extractor, fixed without a false fact: a now part after a past
job said by its months ("I was at Google until May. Right now I'm at Starbucks"), a current place
after a trip, a laugh after true money ("I pay $2,500 rent lol") against sarcasm, the period of a
corrected amount, a subscription that is no employer, a second turn that corrects the employer, and
money said with its "I" left out ("I work at Google and pay $1,500 rent"). Each is checked with every
reader (the local model, the hashing embedder and patterns only)."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import HashingEmbedder, Vault


def chat(*turns: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in turns]


# -- a current place after a trip ----------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I was in Boston last week, now I'm in Chicago", "Chicago"),
    ("I was in Denver last month, but now I'm in Seattle.", "Seattle"),
    ("I was in Boston yesterday. Now I'm in Austin.", "Austin"),
    ("I was in Miami last week and now I'm in Portland.", "Portland"),
    ("I was in Boston until 2020, now Chicago.", "Chicago"),  # a stay of years: a home
    ("I was in Paris for 5 years, now Berlin.", "Berlin"),
    ("I used to live in Boston, now Chicago, loving it.", "Chicago"),
])
def test_where_the_user_is_now_after_where_they_were(reasoner, said, want):
    assert facts(reasoner, said) == [("user.location", want)]


@pytest.mark.parametrize("said", [
    "I was in Boston last week", "I was in Boston last week.", "I was in Chicago yesterday.",
    "I was in Boston last week, now I'm in Chicago for a conference.",
    "I was in Boston until Friday, now Chicago.",  # a trip's end, no home
])
def test_where_the_user_was_is_not_where_they_are(reasoner, said):
    assert facts(reasoner, said) == []


# -- a now part after a past job ------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I used to work at Google, now I'm at Starbucks", "Starbucks"),
    ("I was at Google until May. Right now I'm at Starbucks.", "Starbucks"),
    ("I was at Google until May. Right now I'm at Starbucks", "Starbucks"),
    ("I was at Google until 2023. Right now I'm at Starbucks.", "Starbucks"),
    ("I was at Google until May, now I'm at Barnes & Noble.", "Barnes & Noble"),
    ("I was at Microsoft until last year, right now I'm at Costco.", "Costco"),
    ("I was at Deloitte from 2018 to 2022, now I'm at KPMG.", "KPMG"),
    ("I was at Apple until June. These days I'm with Meta.", "Meta"),
    ("I worked at Google. At the moment I'm at Starbucks.", "Starbucks"),
    ("I worked at Google and right now I'm at Target.", "Target"),
    ("I was at Google until May and now I'm at Starbucks.", "Starbucks"),
    ("I used to work at Google. I'm at Starbucks right now.", "Starbucks"),
    ("I'm at Walmart right now, I used to work at Amazon.", "Walmart"),
    ("I used to work at Google, now I'm at Meta, loving it.", "Meta"),  # how it is, not what the user is doing there
])
def test_after_a_past_job_now_at_a_name_is_the_new_employer(reasoner, said, want):
    assert facts(reasoner, said) == [("user.employer", want)]


@pytest.mark.parametrize("said", [
    "I'm at Starbucks right now.", "I'm at Starbucks right now", "Right now I'm at Starbucks.",
    "At the moment I'm at Target.",
    "I was at Google until 3pm. Right now I'm at Starbucks.",  # a visit's end, no job
    "I was at Google until Friday, now I'm at Starbucks.", "I was at Google last week, now I'm at Meta.",
    "I was at Google earlier, now I'm at Meta.",
    "I worked at Google until 2023. Today I'm at Starbucks.",  # "today": where the user is today
    "I was at Google until May. Right now I'm at the gym.", "I was at Google until May. Right now I'm at home.",
    "I was at Google until May. Right now I'm with Sarah.",
    "I was at Google until May. Right now I'm at Starbucks for coffee.",
    "I was at MIT until 2020, now I'm at Google.",  # a school's years
    "My sister was at Google until May, now she's at Meta.",
    "I was at the library until May, now I'm at Starbucks.",
    # what the user is doing there, or a place people visit: where the user is at the moment
    "I used to work at Google. Right now I'm at Starbucks, waiting for my friend.",
    "I worked at Google until May. Right now I'm at Starbucks, working on my resume.",
    "I used to work at Google, now I'm at Starbucks, grabbing a coffee.",
    "I was at Google until May. Right now I'm at Heathrow.", "I worked at Google, now I'm at Disneyland.",
    "I was at Google until last month. Right now I'm at JFK.", "I worked at Google, now I'm at Central Park.",
])
def test_no_employer_without_a_past_job(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] == "user.employer"] == []


# -- a laugh, sarcasm --------------------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I pay $2,500 rent lol", ("user.rent", "$2,500")),
    ("I pay $1,900 rent haha.", ("user.rent", "$1,900")),
    ("I pay 1800 a month in rent lol", ("user.rent", "1800 a month")),
    ("My rent went up to $2,100 lol", ("user.rent", "$2,100")),
    ("My rent is $2,400 a month 😅", ("user.rent", "$2,400 a month")),
    ("I make $15 an hour, lol.", ("user.income", "$15 an hour")),
    ("I earn 60k a year lmao", ("user.income", "60k a year")),
])
def test_a_laugh_after_true_money_keeps_it(reasoner, said, want):
    assert facts(reasoner, said) == [want]


@pytest.mark.parametrize("said", [
    "Yeah right, I make $1 million a year, lol", "Yeah right, I make $1 million a year, lol.",
    "Yeah right, I make $1 million a year.", "I make $1 million a year, lol.", "I make $2 million a year haha",
    "I make $1,000,000 a year lol", "Sure, and I pay $10 rent, haha.", "Sure, and I pay $10 rent.",
    "Oh sure, and I make $5 million a year.", "As if I make $200k a year lol", "I make $200k a year, as if.",
    "I pay $900 rent, jk", "I pay $900 rent ;)", "My rent went up to $2,100 in my dreams, lol.",
    "Sure, and I make $90k a year and pay $10 rent.",
])
def test_money_said_in_jest_is_no_fact(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize("said", ["I'm at Central Park.", "I'm at AT&T Stadium tonight."])
def test_a_zone_word_inside_a_longer_name_is_no_zone(reasoner, said):
    assert facts(reasoner, said) == []


def test_sure_said_as_yes_keeps_the_rent(reasoner):
    assert facts(reasoner, "Sure, I pay $900 rent.") == [("user.rent", "$900")]


# -- a corrected amount keeps its period ----------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I make $80k a year, sorry, $90k.", ("user.income", "$90k a year")),
    ("I earn $25 an hour, no, $28.", ("user.income", "$28 an hour")),
    ("I make 5 grand a month, sorry, 6 grand.", ("user.income", "6 grand a month")),
    ("I pay $900 a month in rent, sorry, $950.", ("user.rent", "$950 a month")),
    ("My rent is $900 a month, no, $950 a week.", ("user.rent", "$950 a week")),  # its own period stands
    ("My budget is $500 a month, sorry, $600.", ("user.budget", "$600 a month")),
    ("I make $80k a year, sorry, $40 an hour.", ("user.income", "$40 an hour")),
    ("I used to make $80k a year, now $100k.", ("user.income", "$100k a year")),
])
def test_a_corrected_amount_keeps_the_period_of_the_one_it_corrects(reasoner, said, want):
    assert facts(reasoner, said) == [want]


@pytest.mark.parametrize(("asked", "said", "want"), [
    ("How much do you make?", "$80k a year, sorry, $90k", ("user.income", "$90k a year")),
    ("What's your salary?", "$95,000 a year", ("user.income", "$95,000 a year")),
    ("How much is your rent?", "$1,200 a month, sorry, $1,300", ("user.rent", "$1,300 a month")),
    ("How much can you spend?", "$500", ("user.budget", "$500")),
])
def test_an_answer_about_pay_or_rent_is_no_budget(reasoner, asked, said, want):
    assert facts(reasoner, [{"role": "assistant", "content": asked}, {"role": "user", "content": said}]) == [want]


@pytest.mark.parametrize("asked", ["What are your salary expectations?", "What is your desired salary?",
                                   "How much is rent in Paris?", "What was your salary before?"])
def test_an_answer_about_a_wish_or_someone_elses_money_is_none(reasoner, asked):
    assert facts(reasoner, [{"role": "assistant", "content": asked}, {"role": "user", "content": "$1,200 a month"}]) == []


# -- a subscription is no employer -----------------------------------------------------------------
@pytest.mark.parametrize("said", [
    "I pay $60 a month for Netflix and rent", "I pay $60 a month for Netflix and rent.", "I pay $15 a month for Spotify.",
    "I spend $20 a month on Hulu.", "I pay for Netflix.", "I'm paying 12 bucks a month for Amazon Prime.",
    "I paid $100 for Costco membership.", "I spend $20 at Starbucks every day.", "It's $15 a month for Spotify.",
])
def test_what_the_user_pays_for_is_no_employer(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] == "user.employer"] == []


@pytest.mark.parametrize(("said", "want"), [
    ("I work for Netflix.", [("user.employer", "Netflix")]),
    ("I'm a software engineer for Netflix.", [("user.employer", "Netflix"), ("user.job", "software engineer")]),
    ("I work for Netflix and pay $1,500 rent.", [("user.employer", "Netflix"), ("user.rent", "$1,500")]),
    ("I work at Google and make $90k a year.", [("user.employer", "Google"), ("user.income", "$90k a year")]),
    ("I live in Austin, work at Dell and pay $1,400 rent.",
     [("user.employer", "Dell"), ("user.location", "Austin"), ("user.rent", "$1,400")]),
    ("For this example, I make $80k a year and pay $2,000 rent.", []),
    ("We live in Denver and make $150k a year.", [("user.location", "Denver")]),  # a household's income
])
def test_money_said_with_its_subject_left_out(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- a second turn that corrects the employer ------------------------------------------------------
@pytest.mark.parametrize(("before", "fix", "want"), [
    ("I work at Google.", "Sorry, Amazon", "Amazon"),
    ("I work at Google.", "Sorry, Amazon.", "Amazon"),
    ("I work at Google.", "Actually, Amazon.", "Amazon"),
    ("I work at Google.", "I meant Microsoft.", "Microsoft"),
    ("I work at Google.", "Oops, Goldman Sachs.", "Goldman Sachs"),
    ("I work at Google.", "Correction: Procter & Gamble", "Procter & Gamble"),
    ("I work for Netflix.", "Sorry, Hulu", "Hulu"),
    ("I work at Google and live in Austin.", "Sorry, Meta", "Meta"),
    ("I live in Austin and work at Google.", "Sorry, Meta", "Meta"),
    ("I work at Google.", "Nope, Meta now.", "Meta"),
    ("I work at Google.", "Sorry, Meta!", "Meta"),
    ("I work at Google.", "Sorry, IBM", "IBM"),
])
def test_a_second_turn_corrects_the_employer(reasoner, before, fix, want):
    extraction = reasoner.extract_turn(chat(before, fix))
    assert [(f.entity, f.value) for f in extraction.facts] == [("user.employer", want)]
    assert extraction.facts[0].source == fix


@pytest.mark.parametrize(("before", "fix"), [
    ("I work at Google.", "Sorry, lol"), ("I work at Google.", "Sorry, Monday"), ("I work at Google.", "Sorry, Dave"),
    ("I work at Google.", "Sorry, Sarah"), ("I work at Google.", "Sorry, Claude"), ("I work at Google.", "Sorry, Denver"),
    ("I work at Google.", "Sorry, PST"), ("I work at Google.", "Sorry, Dad"), ("I work at Google.", "Sorry, quick question"),
    ("I work at Google.", "Sorry, BRB"), ("I work at Google.", "Sorry, Christmas"), ("I work at Google.", "Sorry, Spanish"),
    ("I work at Google.", "Sorry, Korean"), ("I work at Google.", "Sorry, ChatGPT"), ("I work at Google.", "Sorry, Max"),
    ("I work at Google.", "Sorry for the delay"), ("I work at Google.", "Sorry, Amazon sucks"),
    ("I live in Boston.", "Actually, Amazon"), ("My name is Sam.", "Sorry, Amazon"),
    ("My wife works at Google.", "Sorry, Amazon"), ("I used to work at Google.", "Sorry, Amazon"),
    ("I love Thai food.", "Sorry, Microsoft"),
])
def test_a_second_turn_that_is_no_employer_stores_nothing(reasoner, before, fix):
    assert facts(reasoner, chat(before, fix)) == []


@pytest.mark.parametrize(("before", "fix", "want"), [
    ("I make $80k a year.", "Sorry, $90k", ("user.income", "$90k a year")),
    ("My rent is $1,200 a month.", "Actually, $1,300.", ("user.rent", "$1,300 a month")),
    ("I pay $900 rent.", "Sorry, $950", ("user.rent", "$950")),
])
def test_a_second_turn_corrects_income_and_rent(reasoner, before, fix, want):
    assert facts(reasoner, chat(before, fix)) == [want]


def test_the_corrected_employer_replaces_the_stored_one(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        agent = vault.agent("chat")
        first = agent.add(chat("I work at Google."))
        result = agent.add(chat("I work at Google.", "Sorry, Amazon"))
        (decision,) = result.decisions
        assert decision.op.value == "REPLACE" and decision.superseded == (first.decisions[0].claim_id,)
        assert vault.get("user.employer").values == ("Amazon",)
