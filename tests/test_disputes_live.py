"""A dispute lists only the claims that still stand (QA round 91): an incumbent its agent
has since replaced is not offered as a choice, the inbox offers one choice per value, and
a resolution naming the replaced claim stands for its value when another claim still says it."""

from __future__ import annotations

import pytest

from vault_ray import DisputeError, Fact


def owner(vault, agent, value):
    (d,) = vault.agent(agent).add_facts([Fact("auth.owner", f"owner is {value}", value=value)]).decisions
    return d


@pytest.fixture
def replaced(vault):
    vault.set_strategy("auth.*", "authority")
    vault.set_authority("boss", "auth.*", 0.9)
    boss, helper = owner(vault, "boss", "Bob"), owner(vault, "helper", "Bob")
    rival = owner(vault, "rival", "Ann")
    assert rival.outcome == "disputed"
    owner(vault, "helper", "Cy")  # helper's Bob is superseded by its own new claim
    assert vault.claim(helper.claim_id).status == "superseded"
    return vault, boss, helper, rival


def test_the_dispute_lists_live_claims_only(replaced):
    vault, boss, helper, rival = replaced
    d = vault.dispute(rival.dispute_id)
    assert d.incumbents == (boss.claim_id,)
    assert [x.incumbents for x in vault.disputes() if x.id == rival.dispute_id] == [(boss.claim_id,)]
    for i in (*d.incumbents, d.challenger):
        assert vault.claim(i).status != "superseded"


def test_resolving_by_a_replaced_claim_stands_for_its_value(replaced):
    vault, boss, helper, rival = replaced
    done = vault.resolve_dispute(rival.dispute_id, winner=helper.claim_id, decided_by="user")
    assert done.resolution.winner == boss.claim_id
    assert vault.claim(boss.claim_id).status == "active" and vault.claim(rival.claim_id).status == "superseded"


def test_a_value_nobody_holds_any_more_is_refused_with_the_choices(vault):
    vault.set_strategy("auth.*", "authority")
    vault.set_authority("boss", "auth.*", 0.9)
    helper = owner(vault, "helper", "Bob")
    rival = owner(vault, "rival", "Ann")
    owner(vault, "helper", "Dee")  # helper replaces its Bob: no live claim says Bob any more
    if vault.dispute(rival.dispute_id).status != "open":
        pytest.skip("the dispute settled when its incumbent was withdrawn")
    with pytest.raises(DisputeError, match="choose one of"):
        vault.resolve_dispute(rival.dispute_id, winner=helper.claim_id, decided_by="user")


def test_the_inbox_offers_one_choice_per_value(replaced):
    from vault_ray.actors.serve.inbox import card

    vault, boss, helper, rival = replaced
    owner(vault, "boss2", "Bob")  # a third agent says Bob: support, no new choice
    c = card(vault, vault.dispute(rival.dispute_id))
    values = [o.claim.value for o in c.values]
    assert sorted(values) == ["Ann", "Bob"]
    assert all(v.claim.status != "superseded" for o in c.values for v in o.backers)
