"""The claim log keeps each entity's log, its claims and events (storage/claim_cache.py): a
consensus write counts from it, an `as_of` read replays it, and `history` and `events` answer
from it. Whatever changed the entity since it was kept (a write, a consensus flip, a dispute's
resolution, a retraction, an erasure), every answer is a fresh open's."""

from __future__ import annotations

import gc
import time

from erasing import SECRET, seed
from test_claim_cache import AGENTS, ENTITIES, contest, outvoted_then_back

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.engine.partition import Partition
from vault_ray.storage.claim_cache import ENTITY_ROWS, ClaimCache
from vault_ray.storage.tables import ClaimTables


def kept_entities() -> int:
    return sum(len(p.log.cache._entities) for p in gc.get_objects() if isinstance(p, Partition) and not p.log.closed)


def answers(vault: Vault, entities: list[str], moments: list[float]) -> dict:
    """What a user reads of each entity: its history, its events, and its view at each moment."""
    return {e: ([c for c in vault.history(e)], [(ev.ts, ev.kind, ev.claim_id, ev.status) for ev in vault.events(entity=e)],
                [vault.get(e, as_of=t) for t in moments]) for e in entities}


def test_every_read_of_an_entity_answers_as_a_fresh_open_after_each_kind_of_change(tmp_path):
    path = tmp_path / "store"
    entities = [*ENTITIES, "vote.city", "user.health", "user.city"]
    with Vault.open(path, embedder=HashingEmbedder(), partitions=2) as vault:
        vault.set_strategy("rec.*", "consensus")
        moments = []
        contest(vault, 6)
        moments.append(time.time())
        before = answers(vault, entities, moments)  # read: every entity's log kept
        assert kept_entities() > 0
        contest(vault, 6, start=6)  # consensus counts through the kept logs, and changes them
        outvoted_then_back(vault)
        moments.append(time.time())
        for d in vault.disputes()[:2]:
            vault.resolve_dispute(d.id, d.incumbents[0], decided_by="admin", note="the incumbent")
        seed(vault)
        vault.retract(vault.history("user.city")[0].id, decided_by="admin", note="wrong")
        answers(vault, entities, moments)  # kept again, then erased
        vault.erase("user.health", decided_by="privacy-officer", note="GDPR request")
        moments.append(time.time())
        seen = answers(vault, entities, moments)
        assert seen != before and SECRET not in str(seen["user.health"])
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert answers(vault, entities, moments) == seen


def test_a_consensus_write_counts_from_the_kept_log_without_reading_duckdb(tmp_path, monkeypatch):
    read: list[str] = []
    original = ClaimTables.claims_for_entity

    def claims_for_entity(self, entity):  # type: ignore[no-untyped-def]
        read.append(entity)
        return original(self, entity)

    monkeypatch.setattr(ClaimTables, "claims_for_entity", claims_for_entity)
    with Vault.open(tmp_path / "store", embedder=HashingEmbedder(), partitions=1) as vault:
        vault.set_strategy("vote.*", "consensus")
        for agent, value in zip(AGENTS, ("oslo", "rome", "rome", "oslo"), strict=True):
            vault.history("vote.city")  # read (from DuckDB once after each write): kept
            read.clear()
            vault.agent(agent).add_facts([Fact("vote.city", f"The city is {value}", value)], resolve=False)
            assert read == []  # the write's tally counted from the kept log
            assert [c.value for c in vault.history("vote.city")][-1] == value and read == ["vote.city"]  # changed: read again


def test_a_read_that_raced_a_change_is_not_kept_and_large_logs_are_not_kept():
    cache = ClaimCache()
    held, generation = cache.entity("user.x")  # a read begins ...
    assert held is None
    cache.drop([], entities=["user.x"])  # ... a commit adds to the entity meanwhile ...
    cache.keep_entity("user.x", [], [], generation)  # ... what the read saw is not kept
    assert cache.entity("user.x")[0] is None
    cache.keep_entity("user.y", [], [None] * (ENTITY_ROWS + 1), cache.entity("user.y")[1])  # type: ignore[list-item]
    assert cache.entity("user.y")[0] is None and cache.too_large("user.y")  # its reads ask for the part they need
    cache.clear()
    assert not cache.too_large("user.y")
