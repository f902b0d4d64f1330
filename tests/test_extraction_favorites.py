"""A favourite is one value, and a value said as no longer so gives way to the one said now, through
`vault.agent(...).add` and `vault.get`: "My favorite color is blue", later "My favourite colour is green" (the
same agent or another) leaves green alone on `user.favorite_color`, while "I like jazz" stays one like of many;
"I'm no longer at Google, I'm at Meta now" is the employer Meta, "I no longer live in Leeds, I live in York now"
the home York. One vault (the local model) for the module: each case states the old value first, so the new one
must replace it."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import Fact, Vault


@pytest.fixture(scope="module")
def vault(tmp_path_factory, local_embedder, local_reasoner):
    with Vault.open(tmp_path_factory.mktemp("favorites") / "s", embedder=local_embedder, reasoner=local_reasoner) as vault:
        yield vault


def said_then(vault: Vault, entity: str, *turns: tuple[str, str]) -> tuple[str, ...]:
    for agent, turn in turns:
        vault.agent(agent).add(turn)
    return vault.get(entity).values


# -- 1. a favourite of a kind: one value, the later one replaces the earlier --------------------------------------
@pytest.mark.parametrize(("entity", "turns", "want"), [
    ("user.favorite_color", [("a", "My favorite color is blue"), ("a", "My favourite colour is green")], "green"),
    ("user.favorite_color", [("a", "My favorite color is blue"), ("b", "My favourite colour is green")], "green"),
    ("user.favorite_color", [("a", "My favorite color is green"), ("b", "blue is my favorite color")], "blue"),
    ("user.favorite_color", [("a", "My favorite color is blue"), ("a", "my favourite colour is no longer blue, it's green")],
     "green"),
    ("user.favorite_color", [("a", "Blue is my favourite colour"), ("b", "My fave color is red these days")], "red"),
    ("user.favorite_food", [("a", "my favorite food is sushi"), ("b", "Ramen is my favourite food")], "Ramen"),
    ("user.favorite_band", [("a", "my fave band is Muse"), ("a", "My favourite band is Radiohead")], "Radiohead"),
    ("user.favorite_movie", [("a", "my favorite movie is Alien"), ("b", "My all-time favorite film is Heat")], "Heat"),
    ("user.favorite_color", [("a", "My favorite colour's blue"), ("b", "Green's my favourite color")], "Green"),
    ("user.favorite_city", [("a", "my favorite city is NYC"), ("b", "New York is my favourite city")], "NYC"),  # one city
])
def test_a_favourite_is_one_value(vault, entity, turns, want):
    assert said_then(vault, entity, *turns) == (want,)


def test_a_drifted_favourite_label_meets_the_read_one_and_likes_stay_many(vault):
    said_then(vault, "user.favorite_color", ("a", "My favorite color is blue"))
    vault.agent("crm").add_facts(Fact("user.favourite_colour", "The user's favourite colour is red", "red"))
    assert vault.get("user.favorite_color").values == ("red",)
    likes = said_then(vault, "user.likes", ("a", "I like jazz"), ("b", "I love hiking"), ("a", "I'm really into chess"))
    assert {"likes:jazz", "likes:hiking", "likes:chess"} <= set(likes)
    assert not [v for v in likes if "blue" in v or "green" in v or "red" in v]  # no favourite stored as a like


@pytest.mark.parametrize(("said", "want"), [
    ("Sushi is my favorite", [("user.food_preferences", "likes:Sushi")]),  # no kind said: a like
    ("My favorite bands are Muse and Blur", [("user.likes", "likes:Blur"), ("user.likes", "likes:Muse")]),
    ("my favorite thing is hiking", [("user.likes", "likes:hiking")]),
    ("My wife's favorite color is red", []),
    ("My favorite color isn't blue anymore", [("user.favorite_color", "not:blue")]),
    ("Blue is probably my favorite color", []),  # a guess
])
def test_a_favourite_without_a_kind_of_one_value_is_a_like(local_reasoner, said, want):
    assert facts(local_reasoner, said) == want


# -- 2. a value said as no longer so: the one said now is the value ---------------------------------------------
@pytest.mark.parametrize(("entity", "before", "change", "want"), [
    ("user.employer", "I work at Google", "I'm no longer at Google, I'm at Meta now", "Meta"),
    ("user.employer", "I work at Google", "I don't work at Google anymore, I work at Meta", "Meta"),
    ("user.employer", "I work at Google", "I'm not with Google anymore, now I'm with Meta", "Meta"),
    ("user.employer", "I work at Google", "I no longer work at Google, I'm at Meta now", "Meta"),
    ("user.employer", "I work at Google", "I'm no longer working for Google. These days I'm at Stripe", "Stripe"),
    ("user.employer", "I work at Google", "I no longer work at Google but at Meta", "Meta"),
    ("user.employer", "I work at Google", "I'm at Meta now, I'm no longer at Google", "Meta"),
    ("user.employer", "I work at Google", "I'm no longer employed by Google; now I'm with Meta", "Meta"),
    ("user.employer", "I work at Google", "I'm no longer at Google", "not:Google"),
    ("user.location", "I live in Leeds", "I no longer live in Leeds, I live in York now", "York"),
    ("user.location", "I live in Leeds", "I don't live in Leeds anymore, I'm in York now", "York"),
    ("user.location", "I live in Leeds", "I no longer live in Leeds but in York", "York"),
    ("user.location", "I live in Leeds", "I'm no longer living in Leeds, now I live in Bristol", "Bristol"),
])
@pytest.mark.parametrize("other", ["a", "b"])
def test_a_value_said_as_no_longer_so_gives_way_to_the_one_said_now(vault, entity, before, change, want, other):
    assert said_then(vault, entity, ("a", before), (other, change)) == (want,)


@pytest.mark.parametrize("said", [
    "I'm not at Google, I'm at Meta now",  # no "no longer": where the user is
    "I'm no longer at Google, now I'm at the airport",
    "I'm no longer at Google, I'm at Starbucks now, waiting for a friend",
    "I'm no longer with Sarah",
    "I'm no longer at home",
])
def test_no_new_employer_is_read_where_none_is_said(local_reasoner, said):
    assert [v for e, v in facts(local_reasoner, said) if e == "user.employer" and not v.startswith("not:")] == []
