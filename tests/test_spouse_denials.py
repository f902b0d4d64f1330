"""Denials of the spouse role through its words (QA99e L1).

The spouse is one single-valued role named by `spouse`, `wife` or `husband` (`roles.py`). A denial
meets every word that may name what it denies: `not:spouse` ("I'm not married to anyone") denies a
wife, a husband or a spouse; `not:wife` denies a wife and a spouse (who may be that wife) but says
nothing of a husband, who is no wife (one spouse at a time: `husband:Tom` itself says there is no
wife); `not:husband` likewise. A named denial (`not:spouse:Tom`) denies that person in any word."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, Status

T0 = datetime.now(UTC) - timedelta(hours=1)
FAM = "user.family"


def say(vault, agent, value, minutes):
    fact = Fact(FAM, f"family: {value}", value=value, observed_at=T0 + timedelta(minutes=minutes))
    (decision,) = vault.agent(agent).add_facts(fact).decisions
    return decision


def active(vault):
    return sorted(c.value for c in vault.get(FAM).active)


MEETS = [  # the item, a later denial that denies it (recency: the denial wins), in either order too
    ("husband:Tom", "not:spouse"),
    ("wife:Anna", "not:spouse"),
    ("spouse:Kim", "not:spouse"),
    ("spouse:Kim", "not:wife"),
    ("spouse:Kim", "not:husband"),
    ("wife:Anna", "not:wife"),
    ("husband:Tom", "not:husband"),
    ("husband:Tom", "not:spouse:Tom"),
    ("spouse:Tom", "not:husband:Tom"),
    ("wife:Anna Lee", "not:spouse:Anna Lee"),
]


@pytest.mark.parametrize(("item", "denial"), MEETS)
def test_a_denial_meets_the_spouse_in_every_word_that_may_name_it(family_vault, item, denial):
    kept = say(family_vault, "a", item, 0)
    said = say(family_vault, "b", denial, 10)
    assert said.outcome == "active" and said.superseded == (kept.claim_id,)
    assert active(family_vault) == [denial]
    back = say(family_vault, "c", item, 20)  # the other order: the newer item wins over the denial
    assert back.outcome == "active" and active(family_vault) == [item]
    assert family_vault.claim(said.claim_id).status == Status.SUPERSEDED


@pytest.mark.parametrize("strategy", ["authority", "consensus"])
@pytest.mark.parametrize(("item", "denial"), [("husband:Tom", "not:spouse"), ("spouse:Kim", "not:wife")])
def test_a_tie_between_a_spouse_and_its_denial_is_a_dispute(family_vault, strategy, item, denial):
    family_vault.set_strategy(FAM, strategy)
    say(family_vault, "a", item, 0)
    said = say(family_vault, "b", denial, 10)
    assert said.outcome == "disputed" and family_vault.get(FAM).contested
    assert active(family_vault) == [item]


@pytest.mark.parametrize(("item", "denial"), [
    ("husband:Tom", "not:wife"), ("wife:Anna", "not:husband"),
    ("husband:Tom", "not:wife:Tom"), ("wife:Anna", "not:spouse:Beth"),
])
def test_a_denial_of_the_other_spouse_word_or_another_name_stands_beside_it(family_vault, item, denial):
    """"No wife" and "my husband is Tom" are both true of one person: both stand, whatever the order."""
    kept = say(family_vault, "a", item, 0)
    said = say(family_vault, "b", denial, 10)
    assert said.outcome == "active" and said.superseded == ()
    assert active(family_vault) == sorted([item, denial]) and family_vault.claim(kept.claim_id).status == Status.ACTIVE
    again = say(family_vault, "c", item, 20)  # and the other order
    assert again.outcome == "active" and denial in active(family_vault)


def test_an_agent_denying_the_spouse_takes_back_its_parked_husband(family_vault):
    """An agent's `not:spouse` replaces its own parked `husband:Tom` (same item), and its later
    `husband:Bob` replaces its parked `not:spouse`: it never holds two challenges of the spouse."""
    family_vault.set_strategy(FAM, "authority")
    say(family_vault, "a", "wife:Anna", 0)
    tom = say(family_vault, "b", "husband:Tom", 10)
    assert tom.outcome == "disputed"
    no = say(family_vault, "b", "not:spouse", 20)
    assert no.outcome == "disputed" and tom.claim_id in no.superseded
    bob = say(family_vault, "b", "husband:Bob", 30)
    assert bob.outcome == "disputed" and no.claim_id in bob.superseded
    parked = [c for c in family_vault.history(FAM) if c.agent == "b" and c.status == Status.DISPUTED]
    assert [c.value for c in parked] == ["husband:Bob"] and len(family_vault.disputes()) == 1
    assert active(family_vault) == ["wife:Anna"]
