"""RuleReasoner (extraction, classification, contradiction, disambiguation) and
ScriptedReasoner."""

from __future__ import annotations

import pytest

from vault_ray import Fact, Op, RuleReasoner, ScriptedReasoner
from vault_ray.models import Claim, Kind, Status, utcnow
from vault_ray.registry import EntityRegistry, RegistryEntry
from vault_ray.values import canonical

rules = RuleReasoner()


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I'm in PST", [("user.timezone", "America/Los_Angeles", "The user is in PST")]),
        ("my timezone is UTC+2", [("user.timezone", "UTC+02:00", None)]),
        ("I live in Berlin", [("user.location", "berlin", "The user lives in Berlin")]),
        ("I am vegetarian. I speak French", [("user.diet", "vegetarian", None), ("user.language", "french", None)]),
        ("I love Italian food", [("user.food_preferences", "likes:italian", "The user loves Italian food")]),
        ("I hate Italian food, I only eat Japanese",
         [("user.food_preferences", "dislikes:italian", "The user hates Italian food"),
          ("user.food_preferences", "likes:japanese", "The user only eats Japanese")]),
        ("I go to the gym at 7am", [("user.schedule.gym", "at 07:00", None)]),  # canonical clock time
        ("My name is Ana and I work at Acme", [("user.name", "ana", None), ("user.employer", "acme", None)]),
        ("my payment method is PayPal", [("user.payment.method", "paypal", None)]),
        ("What's the weather like?", []),
        ("I speak only English", [("user.language", "english", None)]),
        # a pet that died or was given away is retracted, not added
        ("Our dog Rex passed away.", [("user.pets", "not:dog:rex", None)]),  # Rex only (QA round 93 W9)
        ("We had to give away our cat.", [("user.pets", "not:cat", None)]),
        ("I don't have pets.", [("user.pets", "not:pet", None)]),
        # a request to remove stored data is no statement of the value it names
        ("Please remove my credit card.", []), ("Please delete my phone number", []),
        # an intolerance sits with the allergies, not in place of the diet
        ("I'm lactose intolerant", [("user.allergies", "lactose", None)]),
        ("Shellfish makes me sick.", [("user.allergies", "shellfish", None)]),
        ("I'm vegetarian and lactose intolerant", [("user.diet", "vegetarian", None), ("user.allergies", "lactose", None)]),
        ("New phone number: 206-555-0199.", [("user.phone", "+1 2065550199", None)]),
        ("My email changed to maria@newmail.com.", [("user.email", "maria@newmail.com", None)]),
        ("My full name is Maria Gonzalez.", [("user.name", "maria gonzalez", None)]),
        ("I work for myself.", [("user.job", "self-employed", None)]),
        # a cap on one thing, per night, is that thing's budget, not the user's whole budget
        ("Keep the hotel under $200 a night.", [("user.budget.hotel", "200 USD/night", None)]),
        # consent and the way to reach the user, as said
        ("You can text me at 206 555 0199.", [("user.phone", "+1 2065550199", None), ("user.contact_preference", "text", None)]),
        ("You can reach me at maria@example.com for receipts.", [("user.email", "maria@example.com", None)]),
        ("I agree to the terms but no marketing emails please.",
         [("user.consent.term", "given", None), ("user.consent.email_marketing", "withdrawn", None)]),
        ("No marketing emails please", [("user.consent.email_marketing", "withdrawn", None)]),
        ("You can text me anytime", [("user.consent.text", "given", None)]),
        # a relative named in apposition is the user's family, whatever the rest says of them
        ("My wife Anna is a doctor.", [("user.family", "wife:anna", None)]),
        ("I live in the Bay Area", [("user.location", "bay area", None)]),
        # what a review of those rules found read wrongly
        ("I don't have pet insurance", []), ("My dog almost died last year", []), ("I'm in the Army", []),
        ("My wife is Anna Smith", [("user.family", "wife:anna smith", None)]),  # the name as said, surname and all
        ("I can't tolerate rude people", []), ("My commute makes me sick", []),
        ("No calls after 9pm please", []), ("Keep my spending under 50 a day", [("user.budget", "50 USD/day", None)]),
        ("I speak English only", [("user.language", "english", None)]),
        ("I don't speak French, only English", [("user.language", "not:french", None), ("user.language", "english", None)]),
        ("I don't speak French, just English and Spanish",
         [("user.language", "not:french", None), ("user.language", "english", None), ("user.language", "spanish", None)]),
    ],
)
def test_rule_extraction(said, expected):
    facts = rules.extract([{"role": "assistant", "content": "hi"}, {"role": "user", "content": said}])
    got = [(f.entity, canonical(f.entity, f.value), f.text if e[2] else None) for f, e in zip(facts, expected, strict=False)]
    assert len(facts) == len(expected)
    assert got == [(e, v, t) for e, v, t in expected]


def test_extraction_uses_latest_user_turn_only():
    msgs = [{"role": "user", "content": "I'm in PST"}, {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "I'm vegan"}, {"role": "assistant", "content": "noted"}]
    assert [f.entity for f in rules.extract(msgs)] == ["user.diet"]


def c(cid: str, value: str, agent: str = "a", entity: str = "user.x") -> Claim:
    return Claim(cid, entity, f"text {value}", value, Kind.SEMANTIC, agent, None, utcnow(), utcnow(), Status.ACTIVE)


def test_classification_ops():
    assert rules.classify(c("n", "pst"), [c("o", "pst")], "one").op == Op.NOOP
    assert rules.classify(c("n", "at 7am on weekdays"), [c("o", "at 7am")], "one").op == Op.UPDATE
    assert rules.classify(c("n", "est"), [c("o", "pst")], "one") .op == Op.REPLACE
    assert rules.classify(c("n", "likes:sushi"), [c("o", "likes:pizza")], "many").op == Op.ADD
    assert rules.classify(c("n", "dislikes:pizza"), [c("o", "likes:pizza")], "many").op == Op.REPLACE


def test_contradiction_by_cardinality():
    assert rules.conflicts(c("n", "est"), [c("o", "pst"), c("p", "est")], "one") == ["o"]
    assert rules.conflicts(c("n", "dislikes:jazz"), [c("o", "likes:jazz"), c("p", "likes:rock")], "many") == ["o"]


def test_disambiguation_prefers_parsed_entity():
    fact = Fact("user.wrong_label", "The user is in EST")
    assert rules.disambiguate(fact, ["user.location", "user.timezone"], []) == "user.timezone"
    assert rules.disambiguate(Fact("user.q", "The sky is blue"), ["user.timezone"], []) is None


def test_registry_aliases_and_relevance():
    reg = EntityRegistry.builtin()
    assert reg.canonical("user.tz") == "user.timezone" and reg.canonical("user.time_zone") == "user.timezone"
    assert reg.cardinality("user.food_preferences") == "many"
    assert reg.lookup("user.schedule.gym").key == "user.schedule.*"
    from vault_ray import HashingEmbedder

    emb = HashingEmbedder()
    top = reg.relevant(emb.embed(["the user time zone is PST"])[0], emb.embed, k=3)
    assert len(top) <= 3 and top[0].key == "user.timezone"


def test_registry_relevance_of_many_vectors_is_each_vectors():
    """A bulk write asks for every new label at once: the same entries, in the same order,
    as one vector at a time, including vectors that find none."""
    from vault_ray import HashingEmbedder

    reg, emb = EntityRegistry.builtin(), HashingEmbedder()
    texts = ["the user time zone is PST", "I'm allergic to peanuts", "my dog is called Rex",
             "qwxz vbnm", "The user prefers window seats on flights", "call me on my work phone"]
    vectors = emb.embed(texts)
    many = reg.relevant_many(vectors, emb.embed, k=4, min_similarity=0.15)
    one = [reg.relevant(v, emb.embed, k=4, min_similarity=0.15) for v in vectors]
    assert [[e.key for e in row] for row in many] == [[e.key for e in row] for row in one]
    assert many[0][0].key == "user.timezone" and many[3] == [] and any(len(row) > 1 for row in many)


def test_a_registry_answers_with_entries_added_after_a_lookup():
    reg = EntityRegistry.builtin()
    assert reg.lookup("user.residence") is None and reg.canonical("user.gadget.phone") == "user.gadget.phone"
    reg.add(RegistryEntry("user.location", "where the user lives", "one", ("user.residence",)))
    reg.add(RegistryEntry("user.gadget.*", "the user's devices", "many", ()))
    assert reg.lookup("user.residence").key == "user.location" and reg.canonical("user.residence") == "user.location"
    assert reg.lookup("user.gadget.phone").key == "user.gadget.*"
    reg.entries["user.pet_name"] = RegistryEntry("user.pet_name", "the pet's name", "one", ("user.pets_name",))
    assert reg.lookup("user.pets_name").key == "user.pet_name"  # the dict itself changed, not through add


def test_a_pattern_matches_its_root_and_below_and_the_first_entry_wins():
    reg = EntityRegistry({})
    for key in ("user.*", "user.work.*", "team.a.*"):
        reg.add(RegistryEntry(key, key, "many", ()))
    assert reg.lookup("user.work.hours").key == "user.*"  # both match: the first in entry order
    assert reg.lookup("team.a").key == "team.a.*" and reg.lookup("team.a.b.c").key == "team.a.*"
    assert reg.lookup("team.ab") is None and reg.lookup("team") is None and reg.lookup("users.x") is None
    reg.entries.pop("user.*")
    assert reg.lookup("user.work.hours").key == "user.work.*" and reg.lookup("user.home") is None


def test_scripted_reasoner_answers_falls_back_and_counts():
    fact = Fact("user.wrong_label", "The user is in EST", "EST")
    r = ScriptedReasoner(extract={"I'm in EST": [fact]}, judge=lambda case: "incoming")
    assert r.extract("I'm in EST") == [fact]
    assert [f.entity for f in r.extract("I'm in PST")] == ["user.timezone"]  # fallback
    assert r.calls["extract"] == 2
