"""Shared by the dispute tests: one agent's one-fact write at a fixed time; a person's choice challenged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import Fact

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, value, seconds=0.0, entity="user.location"):
    """`agent` says `entity` is `value`, observed `seconds` after T0 (no resolution); its decision."""
    fact = Fact(entity, f"The user's {entity.split('.')[-1]} is {value}", value=value,
                observed_at=T0 + timedelta(seconds=seconds))
    (decision,) = vault.agent(agent).add_facts(fact, resolve=False).decisions
    return decision


def person_chose_rome(vault):
    """user.location (authority): b says Berlin, a person chose a's lighter Rome over it, and c's Madrid
    challenges that choice (a dispute that waits for a person). (rome, madrid): their decisions."""
    vault.set_strategy("user.location", "authority")
    for agent, w in {"a": 0.5, "b": 0.9, "c": 0.95, "d": 0.99, "e": 0.99}.items():
        vault.set_authority(agent, "user.location", w)
    say(vault, "b", "Berlin")
    rome = say(vault, "a", "Rome", 10)
    vault.resolve_dispute(rome.dispute_id, rome.claim_id, decided_by="user")
    madrid = say(vault, "c", "Madrid", 20)
    assert vault.dispute(madrid.dispute_id).needs_user
    return rome, madrid
