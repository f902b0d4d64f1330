"""Shared by the dispute tests: one agent's one-fact write at a fixed time."""

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
