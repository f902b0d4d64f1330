"""An agent that changes its mind and is outvoted no longer backs the value it took back
(QA round 95, F11): under consensus its REPLACE is stored superseded by the majority, and
its own old claim is superseded by that REPLACE, as under authority (where it is parked).
Reads, provenance and the tally then agree: the agent counts for its new value only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import Fact
from vault_ray.models import Outcome, Status

T0 = datetime.now(UTC) - timedelta(hours=1)


def say(vault, agent: str, value: str, minute: int):
    fact = Fact("user.office", f"The office is in {value}", value=value, observed_at=T0 + timedelta(minutes=minute))
    return vault.agent(agent).add_facts([fact]).decisions[0]


def test_an_outvoted_change_of_mind_withdraws_the_agents_old_claim(make_vault):
    vault = make_vault()
    vault.set_strategy("user.office", "consensus")
    old = {a: say(vault, a, "Berlin", i).claim_id for i, a in enumerate("abc")}
    rome = say(vault, "c", "Rome", 5)
    assert rome.outcome == Outcome.SUPERSEDED and "majority for 'berlin'" in rome.reason
    assert rome.superseded == (old["c"],)  # the write says what it took back

    view = vault.get("user.office")
    assert sorted((c.agent, c.value) for c in view.active) == [("a", "Berlin"), ("b", "Berlin")]
    assert not view.contested
    (hit,) = vault.search("where is the office", k=3)
    assert {hit.claim.agent, *(c.agent for c in hit.agreeing)} == {"a", "b"}

    mine = {c.value: c for c in vault.history("user.office") if c.agent == "c"}
    assert mine["Berlin"].status == Status.SUPERSEDED and mine["Berlin"].superseded_by == rome.claim_id
    assert mine["Rome"].status == Status.SUPERSEDED and mine["Rome"].superseded_by in {old["a"], old["b"]}
    assert "retracted by its agent" in str(vault.explain(old["c"]))


def test_the_agent_counts_for_its_new_value_when_others_join_it(make_vault):
    vault = make_vault()
    vault.set_strategy("user.office", "consensus")
    for i, a in enumerate("abc"):
        say(vault, a, "Berlin", i)
    say(vault, "c", "Rome", 5)        # Berlin 2 (a, b) : Rome 1 (c)
    say(vault, "d", "Rome", 6)        # 2 : 2 -> disputed
    win = say(vault, "e", "Rome", 7)  # Rome 3 (c, d, e) : Berlin 2: Rome wins, c's Rome is active again
    assert win.outcome == Outcome.ACTIVE, win.reason
    view = vault.get("user.office")
    assert sorted(c.agent for c in view.active) == ["c", "d", "e"] and {c.value for c in view.active} == {"Rome"}
    assert [c.status for c in vault.history("user.office") if c.agent == "c" and c.value == "Berlin"] == [Status.SUPERSEDED]
