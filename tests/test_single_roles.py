"""A role one person holds at a time, inside a `many` entity (QA round 95, F2): on
`user.family`, "My wife's name is Maria" then "... Anna" contradict (a dispute, or the
strategy's verdict, across agents; a REPLACE by the same agent), while children, siblings
and pets stand side by side as before (two dogs named differently are two dogs)."""

from __future__ import annotations

import pytest

from vault_ray.models import Op, Outcome, Status
from vault_ray.reasoners.rules import contradicts
from vault_ray.roles import SINGLE_ROLES


def values(view) -> list[str]:
    return sorted(c.value for c in view.active)


def test_the_same_agent_correcting_its_wifes_name_replaces_it(vault):
    (maria,) = vault.agent("a").add("My wife's name is Maria").decisions
    (anna,) = vault.agent("a").add("My wife's name is Anna").decisions
    assert anna.op == Op.REPLACE and anna.superseded == (maria.claim_id,)
    assert values(vault.get("user.family")) == ["wife:Anna"]
    assert vault.claim(maria.claim_id).superseded_by == anna.claim_id


def test_two_agents_naming_two_wives_meet_the_strategy(make_vault):
    vault = make_vault()
    vault.set_strategy("user.family", "authority")  # equal weights: nobody outweighs the other
    vault.agent("a").add("My wife's name is Maria")
    (anna,) = vault.agent("b").add("My wife's name is Anna").decisions
    assert anna.outcome == Outcome.DISPUTED and anna.dispute_id
    view = vault.get("user.family")
    assert view.contested and sorted(c.claim.value for c in view.candidates) == ["wife:Anna", "wife:Maria"]
    hits = {h.claim.value: h for h in vault.search("what is the name of the user's wife?", k=3)}
    assert hits["wife:Maria"].contested and [a.value for a in hits["wife:Maria"].alternatives] == ["wife:Anna"]
    assert vault.dispute(anna.dispute_id).incumbents == tuple(c.id for c in view.active)


def test_under_recency_the_newer_name_wins(vault):
    (maria,) = vault.agent("a").add("My wife's name is Maria").decisions
    (anna,) = vault.agent("b").add("My wife's name is Anna").decisions
    assert anna.outcome == Outcome.ACTIVE and anna.superseded == (maria.claim_id,)
    assert values(vault.get("user.family")) == ["wife:Anna"]
    assert vault.claim(maria.claim_id).status == Status.SUPERSEDED


def test_other_family_members_and_pets_stand_side_by_side(vault):
    vault.agent("a").add("My wife's name is Maria")
    vault.agent("b").add("My brother is Tom")
    vault.agent("b").add("My brother is Sam")
    vault.agent("a").add("I have two kids")
    vault.agent("a").add("My dog is called Rex")
    vault.agent("b").add("My dog is called Max")
    family, pets = vault.get("user.family"), vault.get("user.pets")
    assert not family.contested and "wife:Maria" in values(family) and len(family.active) == 4
    assert not pets.contested and len(pets.active) == 2
    assert vault.disputes() == []


@pytest.mark.parametrize(("a", "b", "contradict"), [
    ("wife:maria", "wife:anna", True),
    ("wife:maria", "husband:anna", True),      # one spouse
    ("mom:ann", "mother:jane", True),          # synonyms name one role
    ("dad:joe", "father:bill", True),
    ("wife:maria", "wife:maria gonzalez", False),  # said more fully: the same person
    ("wife:maria", "mother:maria", False),     # two roles
    ("wife:maria", "wife", False),             # no name: nothing to contradict
    ("wife:maria", "not:wife:maria", True),    # a retraction, as before
    ("not:wife:maria", "wife:anna", False),    # "we divorced" says nothing of Anna
    ("brother:tom", "brother:sam", False),
    ("dog:rex", "dog:max", False),
    ("daughter:ava", "daughter:mia", False),
])
def test_which_items_contradict(a, b, contradict):
    assert contradicts(a, b, "many") is contradict
    assert contradicts(b, a, "many") is contradict


def test_the_role_list_names_roles_not_people_in_numbers():
    assert {"wife", "husband", "spouse", "partner", "mother", "father"} <= set(SINGLE_ROLES)
    assert not {"child", "son", "daughter", "brother", "sister", "friend", "dog", "cat"} & set(SINGLE_ROLES)
