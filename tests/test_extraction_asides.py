"""What reads like a user fact but is not one (QA round 82): a guess, filler in a list,
a retraction said with "my job at", a work or passing variant of a fact, a third
party's fact; and claim texts that rewrite only first-person pronouns."""

from __future__ import annotations

import pytest

from vault_ray import LocalEmbedder, RuleReasoner
from vault_ray.reasoners.clauses import first_person, third_person


@pytest.fixture(scope="module")
def reasoner() -> RuleReasoner:
    """With the local model: clauses no pattern reads go to the prototypes (the default path)."""
    return RuleReasoner(LocalEmbedder())


def read(reasoner: RuleReasoner, said: str) -> tuple[list[tuple[str, str]], list[str]]:
    found = reasoner.extract_turn(said)
    return [(f.entity, f.value) for f in found.facts], [u.reason for u in found.unextracted]


def values_of(reasoner: RuleReasoner, said: str, entity: str) -> list[str]:
    return [v for e, v in read(reasoner, said)[0] if e == entity]


# -- 1. claim texts: only first-person pronouns become "the user" ------------------------------
@pytest.mark.parametrize(("said", "text"), [
    ("I live in the US", "The user lives in the US"),
    ("I moved to the US last year", "The user moved to the US last year"),
    ("I have a budget of 2,500 US dollars", "The user has a budget of 2,500 US dollars"),
    ("I work for Meet Me Inc", "The user works for Meet Me Inc"),
    ("I'm a nurse at Our Lady of Lourdes hospital", "The user is a nurse at Our Lady of Lourdes hospital"),
    ("My email is me@example.com", "The user's email is me@example.com"),
    ("Call me at 5", "Call the user at 5"),
    ("Our office is in NYC", "The user's office is in NYC"),
    ("I love my dog", "The user loves the user's dog"),
    ("I left Google and joined Stripe", "The user left Google and joined Stripe"),
    ("I quit smoking", "The user quit smoking"),
    ("I got a new job", "The user got a new job"),
    ("I went vegan", "The user went vegan"),
    ("I joined Stripe", "The user joined Stripe"),
    ("I work at Google", "The user works at Google"),
])
def test_third_person_rewrites_pronouns_not_names(said, text):
    assert third_person(said) == text


@pytest.mark.parametrize("text", ["The user left Google", "The user lives in the US", "The user got a dog"])
def test_first_person_reads_the_rewrite_back(text):
    assert first_person(text).startswith("i ")
    assert "lefts" not in third_person(first_person(text))

