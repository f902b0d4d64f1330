"""Extraction on the default text path: the phrasing corpus (tests/data/phrasings.jsonl),
nothing dropped silently, notes for what no rule reads, your own registry entries."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from vault_ray import HashingEmbedder, LocalEmbedder, Policy, RegistryEntry, RuleReasoner
from vault_ray.registry import BUILTIN_ENTRIES, NOTES_ENTITY
from vault_ray.values import canonical

CORPUS = [json.loads(line) for line in (Path(__file__).parent / "data" / "phrasings.jsonl").read_text().splitlines()
          if line.strip()]
SILENTLY_DROPPED = [  # issue 13: each returned an empty result with no warning
    "Actually I'm on Eastern time now", "I'm on Pacific Standard Time", "I live in California (PST)",
    "I moved to New York, EST", "I'm UTC-5", "Please schedule my calls in PT", "I eat meat every day now",
    "I'm not vegetarian anymore", "I just joined Microsoft", "I consent to marketing emails",
]


def read(said: str) -> list[tuple[str, str]]:
    """(entity, canonical value) of each fact the rule reasoner reads in a statement."""
    return [(f.entity, canonical(f.entity, f.value)) for f in RuleReasoner().extract(said)]


def corpus_scores(reasoner: RuleReasoner) -> tuple[float, float, list[tuple[str, set, set]]]:
    tp = got_n = want_n = 0
    misses = []
    for row in CORPUS:
        got = {(f.entity, canonical(f.entity, f.value)) for f in reasoner.extract(row["text"], BUILTIN_ENTRIES)}
        want = {(e, canonical(e, v)) for e, v in row["facts"]}
        tp, got_n, want_n = tp + len(got & want), got_n + len(got), want_n + len(want)
        if got != want:
            misses.append((row["text"], got - want, want - got))
    return tp / got_n, tp / want_n, misses


def test_the_corpus_is_large_and_varied():
    categories = Counter(row["category"] for row in CORPUS)
    labelled = [c for c in categories if c != "no_fact"]
    assert len(CORPUS) >= 200 and len(labelled) >= 15
    assert all(categories[c] >= 10 for c in labelled if c != "name")
    negated = [r for r in CORPUS if any(v.startswith("not:") or v == "withdrawn" for _, v in r["facts"])]
    assert len(negated) >= 20
    assert sum(1 for r in CORPUS if not r["facts"]) >= 30


@pytest.mark.slow
def test_default_path_precision_and_recall_on_the_corpus():
    precision, recall, misses = corpus_scores(RuleReasoner(LocalEmbedder()))
    assert precision >= 0.98, misses
    assert recall >= 0.90, misses


def test_hashing_vectors_keep_the_rule_reasoner_usable():
    precision, recall, misses = corpus_scores(RuleReasoner(HashingEmbedder()))
    assert precision >= 0.98, misses
    assert recall >= 0.90, misses


def test_patterns_alone_without_an_embedder_still_extract():
    reasoner = RuleReasoner()
    assert [f.entity for f in reasoner.extract("I live in Berlin and I'm vegan")] == ["user.location", "user.diet"]


@pytest.mark.parametrize("said", SILENTLY_DROPPED)
def test_no_statement_of_the_issue_is_dropped_silently(vault, said):
    result = vault.agent("chat").add(said)
    assert result.decisions or result.unextracted
    assert result.decisions, result.unextracted  # each of them now yields a fact


def test_what_no_rule_reads_is_reported_with_a_reason(vault):
    result = vault.agent("chat").add("I live in Berlin. I'm learning to knit. My sister lives in Boston. What time is it?")
    assert [d.entity for d in result.decisions] == ["user.location"]
    reported = {u.text: u.reason for u in result.unextracted}
    assert set(reported) == {"I'm learning to knit", "My sister lives in Boston"}
    assert "someone else" in reported["My sister lives in Boston"]
    assert all(u.note_id is None for u in result.unextracted)
    assert vault.get(NOTES_ENTITY).active == ()


@pytest.mark.parametrize("said", ["Ich wohne in Berlin", "J'habite à Paris", "私は東京に住んでいます", "Ik woon in Amsterdam",
                                  "Sono vegetariano"])
def test_a_statement_in_another_language_is_reported_not_dropped(vault, said):
    result = vault.agent("chat").add(said)
    assert result.decisions == ()
    (missed,) = result.unextracted
    assert missed.text == said and "English" in missed.reason


def test_english_that_looks_foreign_is_not_reported_as_foreign(vault):
    for said in ("Mon meeting is at 5", "Ma said hi", "See you at the EU summit"):
        assert all("English" not in u.reason for u in vault.agent("chat").add(said).unextracted)


def test_small_talk_and_questions_are_not_reported(vault):
    result = vault.agent("chat").add("Thanks! Can you book a table for two?")
    assert result.decisions == () and result.unextracted == ()


def test_the_notes_policy_keeps_unread_statements_searchable_and_never_in_conflict(make_vault):
    vault = make_vault(policy=Policy(unextracted_notes=True))
    first = vault.agent("a").add("I'm learning to knit", session="s1")
    second = vault.agent("b").add("I collect vintage stamps")
    (note,) = first.unextracted
    assert note.note_id is not None and first.decisions == ()
    claim = vault.claim(note.note_id)
    assert (claim.entity, claim.agent, claim.session, claim.text) == (NOTES_ENTITY, "a", "s1", "I'm learning to knit")
    view = vault.get(NOTES_ENTITY)
    assert len(view.active) == 2 and not view.contested and vault.disputes() == []
    assert second.unextracted[0].note_id in {c.id for c in view.active}
    hits = vault.search("learning to knit", k=3)
    assert hits and hits[0].claim.id == note.note_id
    again = vault.agent("a").add("I'm learning to knit")
    assert again.unextracted[0].note_id == note.note_id  # the same note is known, not stored twice


def test_a_reasoner_without_a_report_still_flags_an_empty_turn(vault):
    rules = RuleReasoner()

    class Plain:  # the Reasoner protocol only (no extract_turn), and it finds nothing
        name = "plain"
        classify, conflicts, disambiguate, judge, close = (
            rules.classify, rules.conflicts, rules.disambiguate, rules.judge, rules.close)

        def extract(self, messages, registry=()):
            return []

    vault.reasoner = Plain()
    result = vault.agent("a").add("I'm on Eastern time now")
    assert result.decisions == ()
    assert [u.text for u in result.unextracted] == ["I'm on Eastern time now"]
    assert "plain" in result.unextracted[0].reason


def test_your_own_registry_entry_extracts_through_its_examples(vault):
    vault.register(RegistryEntry("user.car", "the car the user drives", "one", (),
                                 ("I drive a [Tesla]", "My car is a [Honda Civic]")))
    (decision,) = vault.agent("a").add("I drive a Volvo").decisions
    assert decision.entity == "user.car" and vault.get("user.car").values == ("Volvo",)


def test_values_keep_what_was_said_and_compare_canonically():
    (fact,) = RuleReasoner().extract("I moved to Chicago last month")
    assert fact.value == "Chicago" and fact.text == "The user moved to Chicago last month"
    (zone, place) = sorted(RuleReasoner().extract("I live in California (PST)"), key=lambda f: f.entity)
    assert (zone.entity, zone.value, place.entity, place.value) == ("user.location", "California", "user.timezone", "PST")


def test_a_batch_of_turns_reports_each_turns_own_unextracted_and_notes(make_vault):
    from vault_ray import WriteRequest

    vault = make_vault(policy=Policy(unextracted_notes=True))
    first, second = vault.write_batch([
        WriteRequest("a", messages="I live in Berlin. I'm learning to knit"),
        WriteRequest("b", messages="I'm vegan"),
    ])
    assert [d.entity for d in first.decisions] == ["user.location"]
    (note,) = first.unextracted
    assert vault.claim(note.note_id).text == "I'm learning to knit"
    assert [d.entity for d in second.decisions] == ["user.diet"] and second.unextracted == ()


@pytest.mark.parametrize(("said", "facts"), [
    ("I'm 30 years old", [("user.age", "30")]), ("I turned 41 last week", [("user.age", "41")]),
    ("My age is 25", [("user.age", "25")]), ("I'm 5 minutes away", []), ("I'll be 40 next week", []),
    ("My email is Ana.Lopez@example.com", [("user.email", "ana.lopez@example.com")]),
    ("My phone number is (555) 123-4567", [("user.phone", "+1 5551234567")]),
])
def test_age_and_contact_details_are_read(said, facts):
    assert read(said) == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("I am not in PST", [("user.timezone", "not:America/Los_Angeles")]),
    ("I'm not on Pacific time", [("user.timezone", "not:America/Los_Angeles")]),
    ("I'm in PST, not EST", [("user.timezone", "America/Los_Angeles")]),
    ("I'm not in PST anymore", [("user.timezone", "not:America/Los_Angeles")]),
    ("My budget is no longer $5000", [("user.budget", "not:5000 USD")]),
    ("My budget is not $5000", [("user.budget", "not:5000 USD")]),
])
def test_a_denied_value_is_never_stored_as_said(said, facts):
    """A clause that denies a value gives `not:` the value (it was stored as the value, and
    agreed with it: "I am not in PST" backed PST)."""
    assert read(said) == facts


@pytest.mark.parametrize("said", ["My boss is in EST", "My colleague's timezone is CET", "My team is in IST",
                                  "My wife is on Pacific time"])
def test_someone_elses_time_zone_is_reported_not_stored_as_the_users(said):
    from vault_ray.reasoners.extraction import extract_turn

    extraction = extract_turn(said)
    assert extraction.facts == ()
    assert [u.reason for u in extraction.unextracted] == ["about someone else (the user's family, friends or colleagues)"]


@pytest.mark.parametrize(("said", "facts"), [
    ("My dog's name is Rex", [("user.pets", "dog:rex")]), ("My cat is called Luna", [("user.pets", "cat:luna")]),
    ("I have a dog named Rex and a cat", [("user.pets", "dog:rex"), ("user.pets", "cat")]),
    ("I have a dog", [("user.pets", "dog")]), ("I have two cats", [("user.pets", "2 cat")]),
    ("My wife is Sarah", [("user.family", "wife:sarah")]),
    ("I have a golden retriever named Max", [("user.pets", "dog:max")]), ("I have two beagles", [("user.pets", "2 dog")]),
])
def test_a_pets_name_is_kept_as_a_familys_is(said, facts):
    """"My dog's name is Rex" and "... Max" were both stored as "dog": two names agreed."""
    assert read(said) == facts


def test_a_fact_longer_than_the_policy_allows_is_reported_and_the_turn_still_writes(make_vault):
    vault = make_vault(embedder=HashingEmbedder())
    said = "I live in Paris. I love " + ", ".join(f"long walk number {i} on the beach at sunset" for i in range(60)) + "."
    assert len(said) < vault.policy.max_text * 10  # within what `add` takes
    result = vault.agent("a").add(said)
    assert [(d.entity, vault.claim(d.claim_id).value) for d in result.decisions] == [("user.location", "Paris")]
    (long,) = result.unextracted
    assert "longer than the policy's max_text" in long.reason and long.reason.startswith("reads as user.likes")


@pytest.mark.parametrize(("said", "facts"), [
    ("I'm a nurse at St. Mary's hospital", [("user.job", "nurse"), ("user.employer", "st marys hospital")]),
    ("My company is in London", []),  # a place, not the employer's name
    ("I'm in Berlin this week for a conference", []), ("I was living in Denver until 2020", []),
    ("I live in Denver", [("user.location", "denver")]), ("I moved to Berlin this week", [("user.location", "berlin")]),
    ("I've lived in Denver since 2020", [("user.location", "denver")]),
    ("I live in Denver for now", [("user.location", "denver")]),
    ("The federal budget is $6 trillion", []), ("The marketing budget is $50k", []),
    ("The Japan trip budget is $8000", [("user.budget.trip", "8000 USD")]),
    ("My number is (415) 555-0199", [("user.phone", "+1 4155550199")]),
    ("My old email was a@b.com, my new one is c@d.com", [("user.email", "c@d.com")]),
    ("I work at Amazon", [("user.employer", "amazon")]), ("I work for Orange", [("user.employer", "orange")]),
    ("I work for a company in Berlin", []),
    ("I'm retired", [("user.job", "retired")]), ("I'm between jobs", [("user.job", "between job")]), ("I'm tired", []),
])
def test_everyday_sentences_give_the_values_they_say(said, facts):
    assert read(said) == facts


@pytest.mark.parametrize(("entity", "a", "b"), [
    ("user.phone", "+1 415 555 0100", "415-555-0100"), ("user.phone", "+44 20 7946 0958", "0044 20 7946 0958"),
    ("user.phone", "020 7946 0958", "020-7946-0958"), ("user.phone", "1-415-555-0100", "(415) 555-0100"),
    ("user.employer", "Google", "Google LLC"), ("user.employer", "Acme, Inc.", "Acme"),
    ("user.location", "SF", "San Francisco"), ("user.location", "DC", "Washington"),
    ("user.schedule.lunch", "noon", "12pm"), ("user.schedule.lunch", "Noon on Fridays", "12:00 on Friday"),
    ("user.location", "St. Louis", "Saint Louis"), ("user.location", "Austin TX", "Austin, Texas"),
    ("user.location", "Washington, D.C.", "DC"), ("user.birthday", "1990-03-05", "March 5, 1990"),
    ("user.birthday", "25/12/1990", "December 25, 1990"), ("user.birthday", "the fourth of July", "July 4"),
    ("user.name", "Dr. Patel", "dr patel"), ("user.budget", "two grand", "$2000"),
])
def test_two_forms_of_one_value_agree(entity, a, b):
    assert canonical(entity, a) == canonical(entity, b)


@pytest.mark.parametrize(("entity", "a", "b"), [
    ("user.phone", "415-555-0100", "415-555-0101"), ("user.phone", "+1 212 555 0100", "+1 312 555 0100"),
    ("user.phone", "415-555-0100", "515-555-0100"), ("user.employer", "Google", "Goodle"),
    # two countries' numbers with the same national digits are two numbers (one was silently kept)
    ("user.phone", "+44 20 7946 0958", "+33 20 7946 0958"), ("user.phone", "+44 20 7946 0958", "+1 207 946 0958"),
    ("user.location", "SF", "Santa Fe"), ("user.schedule.lunch", "noon", "midnight"),
    ("user.schedule.lunch", "afternoon", "noon"),
    # names are spelled as said: a stem made two people one (the second one's write was lost)
    ("user.name", "Mary", "Marie"), ("user.name", "Daniel", "Daniels"),
    ("user.location", "Paris TX", "Paris"), ("user.birthday", "03/05/1990", "05/03/1990"),
    ("user.budget", "C$500", "$500"),
])
def test_two_values_still_differ(entity, a, b):
    assert canonical(entity, a) != canonical(entity, b)


@pytest.mark.parametrize(("said", "facts"), [
    ("The trip budget is $25,000", [("user.budget.trip", "25000 USD")]),
    ("Our wedding budget is 20k", [("user.budget.wedding", "20000 USD")]),
    ("My budget for the trip is 3000 euros", [("user.budget.trip", "3000 EUR")]),
    ("My monthly budget is $500", [("user.budget", "500 USD/month")]),
])
def test_a_budget_said_of_a_plan_is_read(said, facts):
    """"The trip budget is $25,000" was dropped without a word (no first person)."""
    assert read(said) == facts


@pytest.mark.parametrize(("said", "facts"), [
    ("I like sushi and jazz", [("user.food_preferences", "likes:sushi"), ("user.likes", "likes:jazz")]),
    ("I like hiking and cycling", [("user.likes", "likes:hiking"), ("user.likes", "likes:cycling")]),
    ("I love jazz, blues and hip hop", [("user.likes", "likes:jazz"), ("user.likes", "likes:blues"),
                                        ("user.likes", "likes:hip hop")]),
    ("I love mac and cheese", [("user.food_preferences", "likes:mac and cheese")]),  # one dish
    ("I love rock and roll", [("user.likes", "likes:rock and roll")]),
    ("I enjoy hiking when it is warm and sunny outside", [("user.likes", "likes:hiking")]),
])
def test_each_thing_a_list_names_is_a_preference_of_its_own(said, facts):
    """"I like sushi and jazz" was one item, so "I don't like jazz" retracted nothing."""
    assert read(said) == [(e, canonical(e, v)) for e, v in facts]


@pytest.mark.parametrize(("first", "second"), [
    ("I consent to marketing emails", "stop sending me promotional emails"),
    ("yes you can share my data with partners", "I withdraw my consent for data sharing"),
    ("Please don't share my data with third parties", "you can share my data"),
    ("My budget for the trip is $4000", "we cut the trip budget to 2500 dollars"),
    ("my laptop budget is 3.5k", "I can spend up to $3,500 on the laptop"),
    ("I go to the gym at 6am", "my gym session is at 7am now"),
])
def test_two_phrasings_of_one_thing_land_on_one_key(make_vault, first, second):
    """Each pair put its facts on two keys (`email_marketing` / `email_promotional`, `budget.trip` /
    `budget`, `schedule.gym` / `schedule.gym_session`): both stayed active, no conflict found."""
    vault = make_vault()
    (a,) = vault.agent("a").add(first).decisions
    (b,) = vault.agent("b").add(second).decisions
    assert a.entity == b.entity, (a.entity, b.entity)


@pytest.mark.parametrize("text", ["you can email me at ANA.LOPEZ@EXAMPLE.COM",
                                  "My email is Ana.Lopez@Example.Com. I live in Paris."])
def test_an_upper_case_address_ends_no_sentence(text):
    """"EXAMPLE.COM" was cut at ".C" (a dot before a capital), and the address lost."""
    facts = RuleReasoner().extract_turn(text).facts
    assert [f.value.lower() for f in facts if f.entity == "user.email"] == ["ana.lopez@example.com"]
