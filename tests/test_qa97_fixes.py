"""QA round 97 fixes.

F10: a value pending in a dispute that waits for a person (its incumbent retracted) is found by
`search` as a contested hit, live and `as_of`, even when the entity holds another active claim:
another item of a `many` entity, or an event on a `one` entity. The check is per dispute.

F1: on a `many` entity, a denial naming a single-valued role by a synonym ("not:mother:Ann Lee"
against "mom:Ann Lee") or by the bare role ("not:father" against "dad:Bob") contradicts it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact
from vault_ray.reasoners.rules import contradicts

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, entity, value, seconds, kind="semantic", text=None):
    fact = Fact(entity, text or f"{entity} is {value}", value=value, kind=kind,
                observed_at=T0 + timedelta(seconds=seconds))
    return vault.agent(agent).add_facts([fact]).decisions[0]


def hits(vault, query, **kw):
    return [(h.claim.value, h.contested) for h in vault.search(query, k=6, **kw)]


def test_pending_wife_found_beside_another_family_item(vault):
    family = "user.family"
    vault.set_policy(vault.policy.updated(high_stakes=(family,)))
    maria = say(vault, "a", family, "wife:Maria", 0)
    anna = say(vault, "b", family, "wife:Anna", 1)
    assert anna.dispute_id
    vault.retract(maria.claim_id, decided_by="user")
    assert ("wife:Anna", True) in hits(vault, "wife")
    say(vault, "c", family, "child:Tom", 2)
    before_tom = datetime.now(UTC)
    found = hits(vault, "wife")
    assert ("wife:Anna", True) in found and ("child:Tom", False) in found
    assert "wife:Anna" in [c.claim.value for c in vault.get(family).candidates]
    assert ("wife:Anna", True) in hits(vault, "wife", as_of=before_tom + timedelta(seconds=1))


def test_pending_budget_found_beside_an_event(vault):
    budget = "user.budget"
    first = say(vault, "a", budget, "5000", 0)
    say(vault, "b", budget, "9000", 1)
    vault.retract(first.claim_id, decided_by="user")
    say(vault, "c", budget, "spent 300", 2, "episodic", "user spent 300 dollars of the budget")
    found = hits(vault, "budget")
    assert ("9000", True) in found and ("spent 300", False) in found
    assert ("9000", True) in hits(vault, "budget", as_of=datetime.now(UTC) + timedelta(seconds=1))


def test_standing_incumbent_still_hides_the_challenger(vault):
    """A dispute with an active incumbent is not waiting: search shows the incumbent, not the challenger."""
    family = "user.family"
    vault.set_policy(vault.policy.updated(high_stakes=(family,)))
    say(vault, "a", family, "wife:Maria", 0)
    assert say(vault, "b", family, "wife:Anna", 1).dispute_id
    values = [v for v, _ in hits(vault, "wife")]
    assert "wife:Maria" in values and "wife:Anna" not in values


@pytest.mark.parametrize(("item", "denial"), [
    ("mom:Ann Lee", "not:mother:Ann Lee"),
    ("dad:Bob", "not:father"),
    ("wife:Maria", "not:spouse:Maria"),
    ("mum:Jo", "not:mum:Jo"),
])
def test_role_denial_by_synonym_supersedes_the_item(vault, item, denial):
    family = "user.family"
    kept = say(vault, "a", family, item, 0)
    say(vault, "b", family, denial, 10)
    assert [c.value for c in vault.get(family).active] == [denial]
    assert vault.claim(kept.claim_id).status == "superseded"


def test_role_denials_and_other_items_unchanged():
    assert contradicts("not:mother", "mom:ann", "many")
    assert not contradicts("not:wife:anna", "wife:maria", "many")  # a named denial denies that name only
    assert not contradicts("not:mother", "father:bob", "many")
    assert not contradicts("not:dog:rex", "dog:max", "many")
    assert not contradicts("child:tom", "child:ann", "many")
    assert not contradicts("cat", "dog", "many")
    assert contradicts("not:dog", "dog:rex", "many")


def test_no_husband_says_nothing_of_a_wife(vault):
    family = "user.family"
    wife = say(vault, "a", family, "wife:Maria", 0)
    say(vault, "b", family, "not:husband", 10)
    assert sorted(c.value for c in vault.get(family).active) == ["not:husband", "wife:Maria"]
    assert vault.claim(wife.claim_id).status == "active"
    assert contradicts("not:spouse", "wife:maria", "many")  # the role's own word still denies either
    assert not contradicts("not:wife", "husband:john", "many")

