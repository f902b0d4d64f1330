"""What docs/policies.md tells a fleet builder about people and agents (QA qa8 F6, F7, F11), held
to it: a supervisor agent's `resolve_dispute` is a person's decision and sticks, its retraction of
the value it rules out settles without sticking; a person's "neither: it's 8am" is their own
claim resolved over every open dispute; agent names are exact."""

from __future__ import annotations

import pytest

from vault_ray import Fact, InvalidInput, Policy


def write(vault, agent, entity, value):
    return vault.agent(agent).add_facts([Fact(entity, f"{entity} is {value}", value=value)]).decisions[0]


@pytest.fixture
def windowed(make_vault):
    """Recency with an hour's window: two writes of a test are near-simultaneous, a dispute."""
    return make_vault(policy=Policy(near_simultaneous_s=3600))


def test_a_supervisor_agents_resolution_sticks_like_a_persons(windowed):
    vault = windowed
    pst = write(vault, "scheduler", "user.timezone", "PST")
    est = write(vault, "chat", "user.timezone", "EST")
    vault.resolve_dispute(est.dispute_id, pst.claim_id, decided_by="supervisor-agent")
    later = write(vault, "calendar-sync", "user.timezone", "CET")
    assert later.outcome == "disputed" and vault.dispute(later.dispute_id).needs_user
    assert "chosen by supervisor-agent" in later.reason
    for reserved in ("rule:supervisor", "strategy:recency", "Rule:x"):
        with pytest.raises(InvalidInput, match="reserved"):
            vault.resolve_dispute(later.dispute_id, pst.claim_id, decided_by=reserved)


@pytest.mark.parametrize("ruled_out", ["challenger", "incumbent"])
def test_a_supervisor_that_retracts_the_value_it_rules_out_leaves_the_entity_to_its_strategy(make_vault, ruled_out):
    vault = make_vault(policy=Policy(default_strategy="authority"))  # equal weights: a dispute
    pst = write(vault, "scheduler", "user.timezone", "PST")
    est = write(vault, "chat", "user.timezone", "EST")
    loser, winner = (est, pst) if ruled_out == "challenger" else (pst, est)
    vault.retract(loser.claim_id, decided_by="supervisor-agent", note="routine")
    settled = vault.dispute(est.dispute_id)
    assert settled.status == "resolved" and settled.resolution.decided_by == f"rule:{ruled_out}_retracted"
    assert vault.get("user.timezone").values == (winner.value,)
    vault.set_authority("calendar-sync", "user.timezone", 0.9)
    later = write(vault, "calendar-sync", "user.timezone", "CET")  # the strategy decides, no person asked
    assert later.outcome == "active" and vault.disputes() == []


STRATEGIES = {
    "authority": lambda v: (v.set_strategy("user.calendar.*", "authority"),
                            v.set_authority("scheduler", "user.calendar.*", 0.9), v.set_authority("assistant", "*", 0.2)),
    "authority, the person weighs most": lambda v: (STRATEGIES["authority"](v), v.set_authority("user", "*", 1.0)),
    "recency in a window": lambda v: v.patch_policy({"near_simultaneous_s": 3600}),
    "consensus": lambda v: v.set_strategy("user.calendar.*", "consensus"),
    "judge": lambda v: v.set_strategy("user.calendar.*", "judge"),
    "high stakes": lambda v: v.add_high_stakes("user.calendar.*"),
}


@pytest.mark.parametrize("setup", sorted(STRATEGIES))
def test_a_persons_neither_answer_is_their_claim_resolved_over_every_open_dispute(make_vault, setup):
    vault = make_vault()
    STRATEGIES[setup](vault)
    entity = "user.calendar.standup"
    write(vault, "scheduler", entity, "9am")
    assert write(vault, "assistant", entity, "10am").dispute_id
    # the recipe of docs/policies.md, "A person who answers 'neither: it's 8am'"
    said = write(vault, "user", entity, "8am")
    if said.dispute_id:
        vault.resolve_dispute(said.dispute_id, said.claim_id, decided_by="user")
    for d in vault.get(entity).disputes:
        vault.resolve_dispute(d.id, said.claim_id, decided_by="user")
    view = vault.get(entity)
    assert view.values == ("8am",) and not view.contested and vault.disputes() == []
    again = write(vault, "scheduler", entity, "9am")  # a person's decision: the agent's write waits for one
    assert again.outcome == "disputed" and vault.dispute(again.dispute_id).needs_user


def test_agent_names_are_exact(make_vault):
    vault = make_vault(policy=Policy(strategies={"user.home_city": "consensus"}, authority={"crm": {"*": 0.9}}))
    write(vault, "session", "user.home_city", "Paris")
    write(vault, "crm", "user.home_city", "Berlin")
    d = write(vault, "CRM", "user.home_city", "Berlin")  # a second agent, a second vote, the default weight
    assert d.outcome == "active" and "from 2 agent(s)" in d.reason
    assert vault.policy.weight("CRM", "user.home_city") == vault.policy.default_weight != vault.policy.weight(
        "crm", "user.home_city")
    with pytest.raises(InvalidInput, match="surrounding spaces"):
        vault.agent("crm ")
