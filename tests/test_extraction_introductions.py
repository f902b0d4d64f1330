"""Lost and wrong facts of an introduction: a name that is also a place, said after a greeting
("Hi, I'm Jordan") or alone ("I'm David": a town's name too); a given name that ends as a
people's name does ("I'm Brian", "I'm Sean"), while a people, a language or a great place stays
no name ("Hi, I'm Canadian", "I'm Boston"); the age and home said after the name ("I'm Sofia, 27,
from Texas"); a gerund that is part of the thing liked ("I hate drinking games"); a list of what
the user has that mixes kin and pets ("I have two kids and a dog"), a spouse said as had ("I
have a wife"); one channel asked for and another refused ("Text me, don't call")."""

from __future__ import annotations

import tempfile

import pytest
from extraction_qa import facts

from vault_ray import HashingEmbedder, RuleReasoner, Vault


@pytest.fixture(scope="module")
def reasoner(local_reasoner: RuleReasoner) -> RuleReasoner:
    return local_reasoner


# -- 1. a name that is also a place ---------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("Hi, I'm Jordan", [("user.name", "Jordan")]), ("Hi I'm Jordan", [("user.name", "Jordan")]),
    ("Hey there, I'm Paris and I live in Boston", [("user.location", "Boston"), ("user.name", "Paris")]),
    ("Hi all! I'm Sydney.", [("user.name", "Sydney")]), ("Hello, I'm Brooklyn", [("user.name", "Brooklyn")]),
    ("Hi, I'm Christian", [("user.name", "Christian")]),
    ("Hi, I'm Jordan. I work at Google", [("user.employer", "Google"), ("user.name", "Jordan")]),
])
def test_a_place_name_after_a_greeting_is_a_name(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("name", ["David", "Mary", "Anna", "George", "Adam", "Logan", "Mason", "Victoria", "Sofia",
                                  "Austin", "Jordan", "Charlotte", "Lucas", "Leo", "Eugene"])
def test_a_given_name_that_is_also_a_town_is_a_name_said_alone(reasoner, name):
    assert facts(reasoner, f"I'm {name}") == [("user.name", name)]


@pytest.mark.parametrize("name", ["Brian", "Sean", "Zach", "Julian", "Ian", "Vivian", "Mitch", "Hamish"])
def test_a_given_name_ending_as_a_people_is_a_name(reasoner, name):
    assert ("user.name", name) in facts(reasoner, f"I'm {name}")
    assert ("user.name", name) in facts(reasoner, f"Hi, I'm {name}")


@pytest.mark.parametrize("said", [
    "Hi, I'm Canadian", "Hi, I'm French", "I'm Canadian", "I'm Brazilian", "Hello, I'm Australian", "I'm Boston",
    "I'm Texas", "I'm Canada", "I'm London", "Hi, I'm Rich", "I'm Clean", "Hi, I'm Vegan", "Hey, I'm Home",
])
def test_a_people_a_language_a_great_place_or_a_state_is_no_name(reasoner, said):
    assert "user.name" not in dict(facts(reasoner, said))


@pytest.mark.parametrize(("said", "want"), [
    ("Hey! Name's Mike", [("user.name", "Mike")]), ("The name's Bond", [("user.name", "Bond")]),
    ("Hi, this is Priya", [("user.name", "Priya")]),
    ("Hi, this is Ana from Boston", [("user.hometown", "Boston"), ("user.name", "Ana")]),
    ("hi im jordan", [("user.name", "Jordan")]), ("I'm Jordan btw", [("user.name", "Jordan")]),
    ("I'm Daniel from Ohio", [("user.hometown", "Ohio"), ("user.name", "Daniel")]),
    ("Hi I'm Jordan from Ohio", [("user.hometown", "Ohio"), ("user.name", "Jordan")]),
    ("My name is Jordan from Ohio", [("user.hometown", "Ohio"), ("user.name", "Jordan")]),
    ("I'm Daniel from accounting", [("user.name", "Daniel")]),
])
def test_an_introduction_said_short_or_with_where_from(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["hi im tired", "hey im frank with you", "hello im new here", "Hi, this is my wife",
                                  "hi, this is great", "hi i'm good thanks"])
def test_a_greeting_before_a_state_is_no_introduction(reasoner, said):
    assert "user.name" not in dict(facts(reasoner, said))


def test_a_place_after_a_greeting_is_still_where_the_user_is(reasoner):
    assert facts(reasoner, "Hi, I'm in Jordan") == [("user.location", "Jordan")]


# -- 2. the age and home said after the name ------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm Sofia, 27", [("user.age", "27"), ("user.name", "Sofia")]),
    ("I'm Sofia, 27yo", [("user.age", "27"), ("user.name", "Sofia")]),
    ("My name is Sam, 34 years old", [("user.age", "34"), ("user.name", "Sam")]),
    ("I'm Daniel, 31, from Texas", [("user.age", "31"), ("user.hometown", "Texas"), ("user.name", "Daniel")]),
    ("Hi, I'm Jordan, 27, from Ohio", [("user.age", "27"), ("user.hometown", "Ohio"), ("user.name", "Jordan")]),
    ("Sofia here, 27, from Texas", [("user.age", "27"), ("user.hometown", "Texas"), ("user.name", "Sofia")]),
    ("I'm 27 and from Texas", [("user.age", "27"), ("user.hometown", "Texas")]),
    ("I'm vegan, from Brazil", [("user.diet", "vegan"), ("user.hometown", "Brazil")]),
])
def test_the_age_and_home_after_a_name_are_kept(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["I'm Sam, 2 kids", "I'm Anna, 5'6", "I'm Sam, 200 lbs", "I'm Tom, 1000"])
def test_a_number_after_a_name_that_is_no_age_is_not_stored_as_one(reasoner, said):
    assert "user.age" not in dict(facts(reasoner, said))


@pytest.mark.parametrize("said", ["I got a gift from Mom and from Dad", "I bought it, from Amazon",
                                  "My wife is Canadian, from Toronto"])
def test_from_without_the_users_i_am_is_no_hometown(reasoner, said):
    assert "user.hometown" not in dict(facts(reasoner, said))


# -- 3. a gerund that is part of the thing ----------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I hate drinking games", [("user.likes", "dislikes:drinking games")]),
    ("I hate drinking alone", [("user.likes", "dislikes:drinking alone")]),
    ("I love eating out", [("user.food_preferences", "likes:eating out")]),
    ("I love drinking coffee", [("user.food_preferences", "likes:coffee")]),
    ("I enjoy eating sushi", [("user.food_preferences", "likes:sushi")]),
])
def test_a_gerund_is_dropped_only_before_food_or_drink(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 4. what the user has, kin and pets in one list; a spouse -------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I have two kids and a dog", [("user.family", "2 children"), ("user.pets", "dog")]),
    ("I have a dog and two kids", [("user.family", "2 children"), ("user.pets", "dog")]),
    ("I have two kids, a dog and a cat", [("user.family", "2 children"), ("user.pets", "cat"), ("user.pets", "dog")]),
    ("We have a son and a golden retriever", [("user.family", "son"), ("user.pets", "dog")]),
    ("I have a wife and two cats", [("user.marital_status", "married"), ("user.pets", "2 cats")]),
    ("I have a husband", [("user.marital_status", "married")]),
    ("I have a husband named Tom", [("user.family", "husband:Tom")]),
])
def test_what_the_user_has_is_read_item_by_item(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize(("said", "want"), [
    ("I'm a single dad", [("user.family", "child"), ("user.marital_status", "single")]),
    ("I'm a single mom of two", [("user.family", "2 children"), ("user.marital_status", "single")]),
    ("I have no kids", [("user.family", "not:children")]), ("We don't have any kids", [("user.family", "not:children")]),
    ("I'm childfree", [("user.family", "not:children")]), ("I don't have kids with him", []),
])
def test_a_single_parent_and_no_children(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["I don't have a wife", "I have a meeting and a lot of work"])
def test_what_the_user_has_not_is_not_stored(reasoner, said):
    assert facts(reasoner, said) == []


# -- 5. one channel asked for, another refused --------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("Text me, don't call", "text"), ("Email me, don't call", "email"), ("Call me, don't text", "phone"),
    ("Please text me - don't call me", "text"), ("Text me please, not call", "text"),
])
def test_a_channel_asked_for_beside_one_refused_is_the_preference(reasoner, said, want):
    assert facts(reasoner, said) == [("user.contact_preference", want)]


# -- 6. a job said with where the user is based or from; where a remote worker lives --------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I'm a designer based in Lisbon", [("user.job", "designer"), ("user.location", "Lisbon")]),
    ("I'm a freelance designer living in Berlin", [("user.job", "freelance designer"), ("user.location", "Berlin")]),
    ("I'm a nurse from Ohio", [("user.hometown", "Ohio"), ("user.job", "nurse")]),
    ("I'm a software engineer originally from Kenya", [("user.hometown", "Kenya"), ("user.job", "software engineer")]),
    ("I'm an engineer at Boeing", [("user.employer", "Boeing"), ("user.job", "engineer")]),
    ("I work from home in Denver", [("user.location", "Denver")]),
    ("I work remotely from Lisbon", [("user.location", "Lisbon")]),
    ("I work remotely for Acme", [("user.employer", "Acme")]),
    ("I went back to eating meat", [("user.diet", "omnivore")]),
    ("hey so i just moved to austin for a new job at dell", [("user.employer", "Dell"), ("user.location", "Austin")]),
    ("i'm a mom of 3 and work part time as a pharmacist", [("user.family", "3 children"), ("user.job", "pharmacist")]),
    ("Born and raised in Chicago", [("user.hometown", "Chicago")]),
    ("I'm looking for a new job at Google", []), ("I applied for a new job at Google", []),
    ("I interviewed at Meta yesterday", []),
    ("I love my job at Google", [("user.employer", "Google")]), ("I hate my job at Walmart", [("user.employer", "Walmart")]),
    ("I lost my job at Walmart", [("user.employer", "not:Walmart")]), ("I lost my keys", []),
])
def test_a_job_with_its_place_and_a_remote_workers_home(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 7. hobbies, a fan, a preference over another thing ------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("My hobbies are reading and chess", [("user.likes", "likes:chess"), ("user.likes", "likes:reading")]),
    ("My hobby is knitting", [("user.likes", "likes:knitting")]),
    ("I'm a huge Star Wars fan", [("user.likes", "likes:Star Wars")]),
    ("I'm a Yankees fan", [("user.likes", "likes:Yankees")]),
    ("I prefer tea over coffee", [("user.food_preferences", "likes:tea")]),
    ("I'm a big fan", []), ("I'm a total nerd", []),
    ("I'm a cat person", [("user.likes", "likes:cats")]), ("I'm a dog lover", [("user.likes", "likes:dogs")]),
    ("I'm a shy person", []),
    ("I'm a 35 year old nurse", [("user.age", "35"), ("user.job", "nurse")]),
    ("I'm a 35-year-old engineer at Google", [("user.age", "35"), ("user.employer", "Google"), ("user.job", "engineer")]),
])
def test_hobbies_a_fan_and_a_preference_over_another(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- 8. a birthday said short, an address said as where the user is reached ----------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("my bday is 12/25", ("user.birthday", "12/25")), ("bday: 12/25", ("user.birthday", "12/25")),
    ("My b-day is June 3", ("user.birthday", "June 3")),
    ("I'm reachable at jo.doe@gmail.com", ("user.email", "jo.doe@gmail.com")),
    ("I'm best reached at 415-555-0100", ("user.phone", "415-555-0100")),
])
def test_a_birthday_said_short_and_where_the_user_is_reached(reasoner, said, want):
    assert want in facts(reasoner, said)


# -- 9. a profile written as fields ------------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("Name: Sam, Age: 35, Location: NYC", [("user.age", "35"), ("user.location", "NYC"), ("user.name", "Sam")]),
    ("Name: Sam Lee\nAge: 35\nCity: Boston\nEmployer: Acme Corp\nLanguages: English, Spanish",
     [("user.age", "35"), ("user.employer", "Acme Corp"), ("user.language", "English"), ("user.language", "Spanish"),
      ("user.location", "Boston"), ("user.name", "Sam Lee")]),
    ("Occupation: nurse", [("user.job", "nurse")]), ("Diet: vegetarian", [("user.diet", "vegetarian")]),
    ("Allergies: peanuts, shellfish", [("user.allergies", "peanuts"), ("user.allergies", "shellfish")]),
    ("Hometown: Lyon", [("user.hometown", "Lyon")]),
])
def test_a_profile_written_as_fields(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["Location: Conference Room B", "Title: Weekly sync\nLocation: Zoom\nTime: 3pm",
                                  "Name: team offsite", "From: Alice\nSubject: lunch in Paris"])
def test_an_events_or_an_emails_fields_are_no_profile(reasoner, said):
    assert facts(reasoner, said) == []


# -- 10. through a store, as a user writes it --------------------------------------------------------
def test_an_introduction_reaches_the_store():
    with tempfile.TemporaryDirectory() as root, Vault.open(root, embedder=HashingEmbedder()) as vault:
        result = vault.agent("chat").add("Hi, I'm Jordan, 29, from Ohio")
        assert not result.unextracted
        assert vault.get("user.name").values == ("Jordan",)
        assert vault.get("user.age").values == ("29",)
        assert vault.get("user.hometown").values == ("Ohio",)
