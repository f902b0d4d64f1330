"""Messages typed the way people type on a phone or in a chat: a capital only where the keyboard puts one ("I have a
dog named max"), a company without its apostrophe ("mcdonalds"), how the user works before whom for ("I work remotely
for Shopify"), a drink not drunk, a zone in lower case with "now" after it, a slip put right with "sorry, I mean", a
campus after a comma. Each is read as the user meant it; what reads otherwise stays as it was."""

from __future__ import annotations

import pytest

from vault_ray import RuleReasoner


@pytest.fixture(scope="module")
def reasoner():
    return RuleReasoner()


def read(reasoner: RuleReasoner, text: str) -> list[tuple[str, str | None]]:
    return [(f.entity, f.value) for f in reasoner.extract_turn(text).facts]


READ = [
    # a name typed in lower case by someone whose keyboard capitalizes "I" and a sentence's first letter
    ("I have a dog named max", [("user.pets", "dog:Max")]),
    ("We adopted a cat called luna", [("user.pets", "cat:Luna")]),
    ("My husbands name is tom", [("user.family", "husband:Tom")]),
    ("I have a dog named max. My wife is maria", [("user.pets", "dog:Max"), ("user.family", "wife:Maria")]),
    ("My son is ben and my daughter is amy", [("user.family", "son:Ben"), ("user.family", "daughter:Amy")]),
    ("My wife is pregnant", []),
    # "named after" names no one, and is no routine
    ("I have a dog named after my dad", [("user.pets", "dog")]),
    ("I go to the gym after work", [("user.schedule.gym", "after work")]),
    # a company typed without its apostrophe, as it is written
    ("i work at mcdonalds", [("user.employer", "McDonald's")]),
    ("i work at mcdonald\u2019s", [("user.employer", "McDonald's")]),
    ("i work at walmart", [("user.employer", "Walmart")]),
    # how the user works, said between "work" and the employer
    ("I work remotely for Shopify", [("user.employer", "Shopify")]),
    ("I work from home for Shopify", [("user.employer", "Shopify")]),
    ("I'm working part-time at Target", [("user.employer", "Target")]),
    ("I work remotely for my dad", []),
    # a child said with their age
    ("I have a 5 year old son", [("user.family", "son")]),
    ("I have a 5-year-old son and a 2 year old daughter", [("user.family", "son"), ("user.family", "daughter")]),
    ("I have a newborn daughter", [("user.family", "daughter")]),
    ("I have 2 years old experience", []),
    # an allergy said after what the user asks to leave out is an allergy to it; "it" alone is none
    ("no nuts please, I'm allergic", [("user.allergies", "nuts")]),
    ("I can't have peanuts because I'm allergic", [("user.allergies", "peanuts")]),
    ("please no shellfish, I'm allergic to it", [("user.allergies", "shellfish")]),
    ("No nuts please, I'm allergic to shellfish", [("user.allergies", "shellfish")]),
    ("no thanks, I'm allergic", []),
    ("I'm allergic to them", []),
    # a zone said with "the" before it
    ("I'm in the Eastern time zone", [("user.timezone", "Eastern time zone")]),
    # celiac disease: gluten is what the user cannot eat
    ("I'm celiac", [("user.allergies", "gluten")]),
    ("I have coeliac disease", [("user.allergies", "gluten")]),
    ("my friend is celiac", []),
    # a move into a home in a place: the place
    ("we just moved into a new place in Brooklyn", [("user.location", "Brooklyn")]),
    ("I moved into my parents' house in Ohio", [("user.location", "Ohio")]),
    ("I moved into a new house", []),
    # a drink the user does not drink, as a food they do not eat; no drink, no preference
    ("I don't drink alcohol", [("user.food_preferences", "dislikes:alcohol")]),
    ("I stopped drinking coffee", [("user.food_preferences", "dislikes:coffee")]),
    ("I don't drink and drive", []),
    ("I don't drink enough water", []),
    ("I only drink oat milk", [("user.food_preferences", "likes:oat milk")]),
    ("I only drink on weekends", []),
    # a zone in lower case, alone in its clause, "now" or "these days" after it
    ("i'm on est now", [("user.timezone", "EST")]),
    ("im on pst", [("user.timezone", "PST")]),
    ("i am in cet these days", [("user.timezone", "CET")]),
    ("i'm at the gym now", []),
    # "I mean" puts a slip right after "sorry" or "oops"; alone it is a filler
    ("I'm vegan, sorry, I mean gluten free", [("user.diet", "gluten-free")]),
    ("I live in Boston, oops I mean Denver", [("user.location", "Denver")]),
    ("My birthday is march 12, sorry I mean march 21", [("user.birthday", "march 21")]),
    ("I'm vegan, I mean gluten free", [("user.diet", "vegan")]),
    ("I live in Boston, sorry I mean that", [("user.location", "Boston")]),
    ("i work at google sorry i mean it", [("user.employer", "Google")]),
    # a campus after a comma is part of the school's name; a remark after it is not
    ("I went to university of california, berkeley", [("user.school", "University of California, Berkeley")]),
    ("i study at university of wisconsin, madison", [("user.school", "University of Wisconsin, Madison")]),
    ("I went to the University of California, Los Angeles.", [("user.school", "University of California, Los Angeles")]),
    ("I go to the University of Michigan, it's great", [("user.school", "University of Michigan")]),
]


@pytest.mark.parametrize(("said", "facts"), READ)
def test_a_message_typed_casually_is_read_as_meant(reasoner, said, facts):
    assert read(reasoner, said) == facts


def test_a_name_written_with_capitals_elsewhere_is_left_as_typed(reasoner):
    """A capital past the keyboard's own says the user writes names so: a name in lower case is then no name."""
    assert ("user.pets", "dog:Max") not in read(reasoner, "I have a dog named max and my son Tom")
    assert ("user.family", "son:Tom") in read(reasoner, "I have a dog named max and my son Tom")
