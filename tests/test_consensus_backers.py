"""When a value that consensus once outvoted wins (a growing majority flips it, or a
person resolves the dispute for it), the outvoted claims of that value are active again:
the agents that backed the winner read as backing it, not as overruled (QA round 87)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.models import Status

T0 = datetime.now(UTC) - timedelta(hours=1)


def say(vault: Vault, agent: str, value: str, minute: int) -> str:
    result = vault.agent(agent).add_facts(Fact("user.location", f"lives in {value}", value=value,
                                               observed_at=T0 + timedelta(minutes=minute)))
    return result.decisions[0].claim_id


def statuses(vault: Vault) -> dict[str, tuple[str, str]]:
    """agent -> (value, status) of its newest claim."""
    return {c.agent: (c.value, c.status.value) for c in sorted(vault.history("user.location"), key=lambda c: c.observed_at)}


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.location", "consensus")
        ids = {a: say(vault, a, v, i) for i, (a, v) in enumerate([("a1", "Paris"), ("a2", "Paris"), ("b1", "Berlin")])}
        assert vault.claim(ids["b1"]).status == Status.SUPERSEDED  # outvoted 2 to 1
    return path, ids


def test_a_flip_by_a_growing_majority_brings_the_outvoted_backers_back(store):
    path, ids = store
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        say(vault, "b2", "Berlin", 3)  # 2 to 2: disputed
        say(vault, "b3", "Berlin", 4)  # 3 to 2: Berlin wins
        assert statuses(vault) == {"a1": ("Paris", "superseded"), "a2": ("Paris", "superseded"),
                                   "b1": ("Berlin", "active"), "b2": ("Berlin", "active"), "b3": ("Berlin", "active")}
        assert {c.agent for c in vault.get("user.location").active} == {"b1", "b2", "b3"}
        (hit,) = vault.search("where does the user live", k=5)
        assert {hit.claim.agent, *(c.agent for c in hit.agreeing)} == {"b1", "b2", "b3"}
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # it was committed, not only applied in memory
        assert vault.claim(ids["b1"]).status == Status.ACTIVE and vault.claim(ids["b1"]).superseded_by is None


def test_a_person_resolving_for_the_value_brings_its_outvoted_backers_back(store):
    path, ids = store
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        say(vault, "b2", "Berlin", 3)
        (dispute,) = vault.disputes()
        vault.resolve_dispute(dispute.id, winner=dispute.challenger, decided_by="user")
        assert statuses(vault)["b1"] == ("Berlin", "active")
        assert {c.agent for c in vault.get("user.location").active} == {"b1", "b2"}
        assert "user" in str(vault.explain(ids["b1"]))
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert {c.agent for c in vault.get("user.location").active} == {"b1", "b2"}


def test_resolving_for_the_incumbents_leaves_the_outvoted_challenger_value_superseded(store):
    path, ids = store
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        say(vault, "b2", "Berlin", 3)
        (dispute,) = vault.disputes()
        vault.resolve_dispute(dispute.id, winner=dispute.incumbents[0], decided_by="user")
        assert statuses(vault) == {"a1": ("Paris", "active"), "a2": ("Paris", "active"),
                                   "b1": ("Berlin", "superseded"), "b2": ("Berlin", "superseded")}


def test_an_agent_that_changed_its_mind_is_not_brought_back(store):
    path, ids = store
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        say(vault, "b1", "Paris", 3)  # b1 now says Paris itself: its Berlin claim is its own past
        say(vault, "b2", "Berlin", 4)
        say(vault, "b3", "Berlin", 5)
        say(vault, "b4", "Berlin", 6)
        assert vault.claim(ids["b1"]).status == Status.SUPERSEDED


def test_a_revived_claim_is_no_longer_listed_as_superseded_by_the_value_that_lost(tmp_path):
    """History stays consistent: the claim that once replaced b1's Berlin lost in turn, so
    its `supersedes` no longer names b1's claim, now active again (also after a reopen)."""
    path = tmp_path / "s"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.location", "consensus")
        b1 = say(vault, "b1", "Berlin", 0)
        a1 = say(vault, "a1", "Paris", 1)
        say(vault, "a2", "Paris", 2)  # Paris wins: b1's claim superseded by a1's
        assert vault.claim(b1).superseded_by == a1 and b1 in vault.claim(a1).supersedes
        say(vault, "b2", "Berlin", 3)
        say(vault, "b3", "Berlin", 4)  # Berlin wins again: b1's claim revived
        assert vault.claim(b1).status == Status.ACTIVE and vault.claim(a1).status == Status.SUPERSEDED
        assert b1 not in vault.claim(a1).supersedes
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        history = {c.id: c for c in vault.history("user.location")}
        assert b1 not in history[a1].supersedes and history[b1].superseded_by is None
        assert all(history[s].superseded_by == c.id for c in history.values() for s in c.supersedes)
