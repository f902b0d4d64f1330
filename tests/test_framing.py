"""What is not the user's statement of how things are now is reported, never stored:
quoted speech and pasted code, a past state, a hypothetical or pretence, a denial the
prototype reading cannot carry. A value corrected in passing is read as corrected.
Each case was a wrong fact stored by the default path (LocalEmbedder + RuleReasoner)."""

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


@pytest.mark.parametrize(("said", "why"), [
    ('She texted "I work at Google"', "quoted words"),
    ('Writing a story where the main character says "I live in Atlantis and I\'m vegan"', "quoted words"),
    ('Translate to Spanish: "I am allergic to peanuts"', "quoted words"),
    ('"I\'m allergic to penicillin" is what my dad always says', "quoted words"),
    ('He asked me, "do you live in Berlin?"', "quoted words"),
    ("```python\nuser_tz = 'PST'  # I'm in PST\n```", "code"),
    ("print('I live in Berlin')", "code"),
    ("<script>alert('I live in Berlin')</script>", "code"),
    ("I used to be on central time before the move", "past state"),
    ("Growing up we were on Mountain time", "past state"),
    ("I was married for ten years", "past state"),
    ("Last year I was vegetarian", "past state"),
    ("I was vegetarian for 5 years in college", "past state"),
    ("In college I spoke decent French", "past state"),
    ("I had a dog growing up", "past state"),
    ("According to LinkedIn I work at IBM, but that's outdated", "past state"),
    ("if I moved to London I'd be on GMT", "hypothetical"),
    ("I might switch to Eastern time next year", "hypothetical"),
    ("Once I move to Berlin I'll be on CET", "hypothetical"),
    ("Assume my budget is 10k for this exercise", "hypothetical"),
    ("For the role play, pretend I live in London", "hypothetical"),
    ("Ask me if I live in Berlin", "hypothetical"),
    ("I'm either in PST or MST depending on the week", "hypothetical"),
    ("I wouldn't say I'm vegan", "denies"),
    ("I don't speak Spanish at all", "denial"),
    ("It's not like I live in Paris or anything", "denies"),
    ("Nobody in my family is vegan", "denial"),
])
def test_words_that_are_not_a_current_statement_are_reported_not_stored(reasoner, said, why):
    facts, reasons = turn(reasoner, said)
    assert facts == [] and any(why in r for r in reasons), (facts, reasons)


@pytest.mark.parametrize(("said", "facts"), [
    ("I don't live in Chicago at all, I'm in Milwaukee", [("user.location", canonical("user.location", "Milwaukee"))]),
    ("i'm not allergic to nuts, just shellfish", [("user.allergies", canonical("user.allergies", "not:nuts")),
                                                 ("user.allergies", "shellfish")]),
    ("My dog passed away last spring", [("user.pets", "not:dog")]),
    ("I grew up speaking Arabic", [("user.language", canonical("user.language", "Arabic"))]),
    ("I've lived in Berlin for 5 years", [("user.location", canonical("user.location", "Berlin"))]),
    ("My favorite movie is \"Up\"", [("user.favorite_movie", "up")]),
    ("Don't go over 3000 dollars", [("user.budget", "3000 USD")]),
    ("My budget is about two grand", [("user.budget", "2000 USD")]),
    ("My rent is $2,400 a month", [("user.rent", "2400 USD/month")]),
    ("my birthday is march 12... wait no, march 21", [("user.birthday", canonical("user.birthday", "march 21"))]),
    ("I work at Shopify — sorry, I meant Spotify", [("user.employer", canonical("user.employer", "Spotify"))]),
    ("call me Mike. Actually make it Michael", [("user.name", "michael")]),
    ("I'm a nurse in Toronto, on Eastern time", [("user.timezone", canonical("user.timezone", "Eastern time")),
                                                  ("user.job", "nurse"),
                                                  ("user.location", canonical("user.location", "Toronto"))]),
])
def test_what_the_user_says_of_now_is_still_read(reasoner, said, facts):
    assert turn(reasoner, said)[0] == facts


@pytest.mark.parametrize("said", ["Don't call me before 9am", "please call me after lunch", "call me maybe",
                                  "Call me when you're free", "Don't call me Bob"])
def test_call_me_is_a_name_only_when_a_name_follows(reasoner, said):
    assert "user.name" not in {e for e, _ in turn(reasoner, said)[0]}


@pytest.mark.parametrize(("said", "facts"), [
    ("Please call me Dr. Patel", [("user.name", "dr patel")]),
    ("please don't message me", [("user.contact_preference", "not:text")]),
    ("message me instead", [("user.contact_preference", "text")]),
])
def test_names_and_channels_read_as_said(reasoner, said, facts):
    assert turn(reasoner, said)[0] == facts


def test_a_dollar_of_another_country_is_its_own_currency():
    assert canonical("user.budget", "C$500") == "500 CAD" != canonical("user.budget", "$500")
    assert canonical("user.budget", "A$20") == "20 AUD"
    assert canonical("user.budget", "a couple thousand") == "2000 USD"


@pytest.mark.parametrize(("said", "entities"), [
    ("hey so quick update — i moved to denver last month, new job at REI, still vegetarian",
     ["user.location", "user.employer", "user.diet"]),
    ("I'm 41, originally from Naples, now in Chicago", ["user.age", "user.hometown", "user.location"]),
    ("Born July 4 1990 in Cleveland, now living in Phoenix", ["user.birthday", "user.location"]),
    ("Work at Stripe, on the payments team", ["user.employer"]),
    ("Currently interning at NASA JPL this summer", ["user.employer"]),
])
def test_parts_whose_subject_was_left_out_are_read(reasoner, said, entities):
    """Each fact after the first was dropped without a word: "now in Chicago" has no "I"."""
    assert [e for e, _ in turn(reasoner, said)[0]] == entities


@pytest.mark.parametrize(("said", "facts"), [
    ("I have two dogs and a cat named Luna", [("user.pets", "2 dog"), ("user.pets", "cat:luna")]),
    # addresses given, no way preferred (QA 89: "You can reach me at +44 ..." is no contact preference)
    ("you can reach me at dana.r@proton.me or 617-555-0142",
     [("user.email", "dana.r@proton.me"), ("user.phone", "+1 6175550142")]),
])
def test_every_thing_a_list_names_is_kept(reasoner, said, facts):
    assert turn(reasoner, said)[0] == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("I'm allergic to peanuts, so ask me if a dish has nuts", [("user.allergies", "peanut")]),
    ("I live in Seattle, if I travel it's usually to Portland", [("user.location", "seattle")]),
    ("I can spend up to $500, maybe $600 if I have to", [("user.budget", "500 USD")]),
    ("I live in Paris, either Saturday or Sunday works for me", [("user.location", "paris")]),
    ("My budget is $1000, assume taxes are included", [("user.budget", "1000 USD")]),
    ("I live in Denver but might move to Boulder", [("user.location", "denver")]),
    ("I speak Spanish and can help translate", [("user.language", "spanish")]),
    ("I joined Google two years ago", [("user.employer", "Google")]),
    ("I found out I'm allergic to penicillin years ago", [("user.allergies", "penicillin")]),
    ("I have a dog I adopted when I was in college", [("user.pets", "dog")]),
    ("I worked at Microsoft for 3 years and now I work at Google", [("user.employer", "Google")]),
    ("I had a cat but now I have a dog", [("user.pets", "dog")]),
    ("I'm in London, previously I was in Paris", [("user.location", "london")]),
    ("I was promoted to manager last month", [("user.job", "manager")]),
    ("Update (June): I moved to Denver", [("user.location", "denver")]),
    ("// quick note, I have a dog", [("user.pets", "dog")]),
    ("I live in Ohio 'cause it's cheap, and I'm a nurse at my kids' school", [("user.location", "ohio"), ("user.job", "nurse")]),
    ('My favorite song is "I Will Always Love You"; I live in Nashville',
     [("user.favorite_song", "i will always love you"), ("user.location", "nashville")]),
    ("I don't think you have this yet: I live in Denver", [("user.location", "denver")]),
    ("My budget is $500. Make it count!", [("user.budget", "500 USD")]),
    ("I'm allergic to peanuts — make it nut-free", [("user.allergies", "peanut")]),
])
def test_a_current_statement_beside_a_gate_word_is_still_read(reasoner, said, facts):
    """A QA pass after the gates landed: each of these lost its fact (the whole clause was
    judged by a hypothetical said after it, a past verb inside it, a bracket, an apostrophe,
    a quoted title, or an instruction read as a correction)."""
    assert [(e, v) for e, v in turn(reasoner, said)[0]] == [(e, canonical(e, v)) for e, v in facts]


@pytest.mark.parametrize("said", [
    "I worked at Google until 2020", "I was at Google until last year", "In 2015 I lived in Berlin",
    "I lived in Berlin from 2010 to 2015", "I spent five years in Berlin", "My old address was in Berlin",
    "I was vegan during lockdown", "I was a vegetarian once", "Translate to French: I live in London and I'm a doctor",
    "Role-play: you are my assistant and I live in Tokyo", "Back when I was at Google, I was on PST",
    "Example sentence: I work at Google", "Once I'm in London I'll be on GMT",
])
def test_a_past_or_given_statement_is_not_stored(reasoner, said):
    assert turn(reasoner, said)[0] == []


@pytest.mark.parametrize(("said", "facts"), [
    ("My ex lived in Toronto", []),
    ("I love hiking and bouldering, hate running tho",
     [("user.likes", "likes:hiking"), ("user.likes", "likes:bouldering"), ("user.likes", "dislikes:running")]),
    ("I love hiking but hate running", [("user.likes", "likes:hiking"), ("user.likes", "dislikes:running")]),
    ("I'm 38. no wait, 39, just had my birthday", [("user.age", "39")]),
    ("I work at Patagonia, new job at REI starting next week actually", [("user.employer", "Patagonia")]),
    ("I live in Chicago and work at Rush", [("user.location", "Chicago"), ("user.employer", "Rush")]),
    ("Hi, I'm Daniel Okafor. I live in Chicago", [("user.name", "Daniel Okafor"), ("user.location", "Chicago")]),
    ("I'm Anna, nice to meet you", [("user.name", "Anna")]),
    ("I'm Canadian", []),
    ("I'm allergic to: peanuts, shellfish, latex",
     [("user.allergies", "peanuts"), ("user.allergies", "shellfish"), ("user.allergies", "latex")]),
    ("phone: +44 7700 900123, but i prefer email: tom.h@bbc.co.uk",
     [("user.phone", "+44 7700 900123"), ("user.email", "tom.h@bbc.co.uk"), ("user.contact_preference", "email")]),
    ("i'm vegan and allergic to tree nuts", [("user.diet", "vegan"), ("user.allergies", "tree nuts")]),
    ("ok officially live in Austin now!!", [("user.location", "Austin")]),
    ("if you need to reach me, telegram is best, never call", [("user.contact_preference", "telegram")]),
    ("tokyo budget is now $5,000", [("user.budget.tokyo", "$5,000")]),
    ("i'm 29, birthday is 1996-08-02", [("user.age", "29"), ("user.birthday", "1996-08-02")]),
    ("ugh I'm allergic to penicillin too, forgot to mention", [("user.allergies", "penicillin")]),
    ("I'm not allergic to peanuts, that was my brother", [("user.allergies", "not:peanuts")]),
    ("my birthday is march 14 btw, turning 34 this year", [("user.birthday", "march 14")]),
    ("I live in São Paulo 🇧🇷", [("user.location", "São Paulo")]),
    ("vegan", []), ("Love this song", []), ("Prefer not to say", []),
])
def test_a_week_of_messages_reads_as_said(reasoner, said, facts):
    """A third QA pass: whole messages as users write them (lists, introductions, fragments
    without "I", tails such as "tho" or an emoji)."""
    assert turn(reasoner, said)[0] == [(e, canonical(e, v)) for e, v in facts]
