"""The user's diet is one value (`user.diet`, cardinality "one"): diets said together are kept together in
it, a later diet of another kind joins the one on record, one of the same kind takes its place, and a
looser diet the record already says ("I don't eat meat" after "I'm vegan") changes nothing."""

from __future__ import annotations

import pytest

from vault_ray import RuleReasoner


@pytest.fixture(scope="module")
def reasoner():
    return RuleReasoner()


TOGETHER = [
    ("I'm vegan and gluten free", "vegan, gluten-free"),
    ("im vegan and gluten free", "vegan, gluten-free"),
    ("I'm vegan and keep kosher", "vegan, kosher"),
    ("im vegan and keep kosher", "vegan, kosher"),
    ("I'm vegan, and I keep kosher", "vegan, kosher"),
    ("I keep kosher and I'm vegan", "kosher, vegan"),
    ("I'm halal. I'm also dairy free.", "halal, dairy-free"),
    ("i'm gluten free and follow a keto diet", "gluten-free, keto"),
    ("I'm dairy free and gluten free", "dairy-free, gluten-free"),
    ("I'm vegetarian and I keep halal", "vegetarian, halal"),
]


@pytest.mark.parametrize(("said", "value"), TOGETHER)
def test_diets_said_together_are_one_value_listing_each(reasoner, said, value):
    (fact,) = reasoner.extract_turn(said).facts
    assert (fact.entity, fact.value) == ("user.diet", value)
    *head, last = value.split(", ")
    assert fact.text == f"The user's diet is {', '.join(head)} and {last}"


FISH = [
    ("i'm a vegetarian but i eat fish", "pescatarian"), ("I don't eat meat but I eat fish", "pescatarian"),
    ("I'm vegetarian but I do eat seafood", "pescatarian"), ("i'm vegetarian but eat fish", "pescatarian"),
    ("i'm vegetarian, but i eat fish sometimes", "pescatarian"),
    ("I'm vegetarian and my husband eats fish", "vegetarian"), ("I'm vegetarian, I don't eat fish", "vegetarian"),
]


@pytest.mark.parametrize(("said", "value"), FISH)
def test_a_vegetarian_who_eats_fish_is_pescatarian(reasoner, said, value):
    assert [f.value for f in reasoner.extract_turn(said).facts if f.entity == "user.diet"] == [value]


@pytest.mark.parametrize("said", ["I live in Berlin and keep bees", "I'm vegan and eat only organic food",
                                  "my wife is vegan and keeps kosher"])
def test_no_second_diet_where_none_is_said_as_the_users(reasoner, said):
    assert [f.value for f in reasoner.extract_turn(said).facts if f.entity == "user.diet"] in ([], ["vegan"])


LATER = [
    # a looser diet the record says, said without naming it: nothing new, the stricter diet stays
    (["im vegan", "i dont eat meat"], ("vegan",)),
    (["I'm vegan", "I do not eat meat"], ("vegan",)),
    (["I'm vegan", "I'm dairy free"], ("vegan",)),
    (["I'm vegan and gluten free", "I don't eat meat", "im vegan"], ("vegan, gluten-free",)),
    # a diet of another kind joins the record; one of the same kind takes its place
    (["I'm vegan", "I'm also gluten free"], ("vegan, gluten-free",)),
    (["I'm vegan", "i keep kosher"], ("vegan, kosher",)),
    (["I'm vegan and gluten free", "I'm vegetarian now"], ("vegetarian, gluten-free",)),
    (["I'm vegan", "I'm vegetarian now"], ("vegetarian",)),
    # a denial of one part leaves the others
    (["I'm vegan and gluten free", "im not gluten free anymore"], ("vegan",)),
    (["I'm vegan and keep kosher", "I'm not vegan anymore"], ("kosher",)),
    # a part of the record the turn names but does not keep is gone
    (["I'm vegan", "I'm not vegan, I'm gluten free"], ("gluten-free",)),
    (["I'm vegan and keep kosher", "I used to be vegan, now I'm gluten free"], ("kosher, gluten-free",)),
    (["I'm vegan", "I'm not vegan, I don't eat meat"], ("vegetarian",)),
]


@pytest.mark.parametrize(("turns", "want"), LATER)
def test_a_later_diet_is_read_with_the_one_on_record(make_vault, turns, want):
    vault = make_vault()
    for said in turns:
        vault.agent("chat").add(said)
    assert vault.get("user.diet").values == want


def test_a_diet_on_record_said_again_adds_no_claim_and_two_orders_agree(make_vault):
    vault = make_vault()
    vault.agent("a").add("I'm vegan and gluten free")
    assert vault.agent("a").add("I don't eat meat").decisions[0].op == "NOOP"
    decision = vault.agent("b").add("I'm gluten free and vegan").decisions[0]
    assert decision.outcome == "active" and vault.disputes() == []
    # another agent's "I don't eat meat" agrees with the diet on record: no dispute, no replacement
    assert vault.agent("c").add("i dont eat meat").decisions[0].outcome == "active" and vault.disputes() == []
    assert vault.get("user.diet").values == ("vegan, gluten-free",)
