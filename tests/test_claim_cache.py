"""The claim log keeps the stored claims it read by id (storage/claim_cache.py): a read by id
answers as the log's files do, whatever changed the claim since (a write, a dispute's
resolution, a retraction, an erasure), and a fresh open of the store answers the same."""

from __future__ import annotations

import gc
import itertools
from dataclasses import replace
from datetime import UTC, datetime

from erasing import SECRET, seed

from vault_ray import Fact, HashingEmbedder, Vault
from vault_ray.engine.erase import ERASED
from vault_ray.engine.partition import Partition
from vault_ray.models import Claim, Kind, Status
from vault_ray.storage.claim_cache import ClaimCache

AGENTS = ("a1", "a2", "a3", "a4")
ENTITIES = [f"rec.e{i}" for i in range(4)] + [f"auth.e{i}" for i in range(4)]


def contest(vault: Vault, rounds: int, start: int = 0) -> list[str]:
    """Four agents write values at odds to the same eight entities (authority on auth.*,
    recency elsewhere), a fact per call; the claim ids written."""
    ids = []
    for i, agent in itertools.product(range(start, start + rounds), AGENTS):
        entity = ENTITIES[(i * 3 + AGENTS.index(agent)) % len(ENTITIES)]
        (d,) = vault.agent(agent).add_facts([Fact(entity, f"{entity} is {agent}_{i}", f"{agent}_{i}",
                                                  claim_id=f"{agent}-{i:03d}")], resolve=False).decisions
        ids.append(d.claim_id)
    return ids


def outvoted_then_back(vault: Vault) -> list[str]:
    """Under consensus a claim outvoted (superseded, and read: kept) becomes active again once its
    value wins the tally; the claim ids written."""
    vault.set_strategy("vote.*", "consensus")
    said = [("a1", "oslo"), ("a2", "rome"), ("a3", "rome"), ("a4", "oslo"), ("b1", "oslo"), ("b2", "oslo")]
    ids = []
    for agent, value in said:
        (d,) = vault.agent(agent).add_facts([Fact("vote.city", f"The city is {value}", value)], resolve=False).decisions
        ids.append(d.claim_id)
        by_id(vault, ids)
    states = {c.id: c.status for c in vault.history("vote.city")}
    assert states[ids[0]] == Status.ACTIVE, states  # outvoted by rome, then back once oslo won
    return ids


def cached(vault: Vault) -> int:
    """How many claims the open partitions' logs keep (the test can see the cache is used)."""
    return sum(len(p.log.cache) for p in gc.get_objects() if isinstance(p, Partition) and not p.log.closed)


def by_id(vault: Vault, ids: list[str]) -> dict[str, Claim]:
    return {cid: vault.claim(cid) for cid in ids}


def test_reads_by_id_answer_as_a_fresh_open_after_contested_writes_resolutions_and_retractions(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(), partitions=2) as vault:
        vault.set_strategy("auth.*", "authority")
        for agent, weight in zip(AGENTS, (0.2, 0.4, 0.6, 0.8), strict=True):
            vault.set_authority(agent, "auth.*", weight)
        ids = contest(vault, 12)
        first = by_id(vault, ids)  # every claim read once: the superseded ones are kept
        assert cached(vault) > 0 and any(c.status == Status.SUPERSEDED for c in first.values())
        ids += contest(vault, 12, start=12)  # chains grow through the kept claims
        for d in vault.disputes()[:3]:
            vault.resolve_dispute(d.id, d.incumbents[0], decided_by="admin", note="the incumbent")
        ids += outvoted_then_back(vault)
        gone = next(c for c in vault.claims() if c.status == Status.ACTIVE)
        vault.retract(gone.id, decided_by="admin", note="wrong")
        seen = by_id(vault, ids)
        assert seen[gone.id].status == Status.RETRACTED
        changed = [cid for cid in first if first[cid] != seen[cid]]
        assert changed  # the later writes changed claims read before: each read shows the change
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert cached(vault) == 0
        assert by_id(vault, ids) == seen


def test_an_erased_claim_read_by_id_shows_the_erasure_not_what_was_kept(tmp_path):
    with Vault.open(tmp_path / "store", embedder=HashingEmbedder(), partitions=2) as vault:
        written = seed(vault)
        ids = [c.id for c in vault.history("user.health")]
        assert any(SECRET in vault.claim(cid).text for cid in ids)  # read (and kept) before the erasure
        vault.erase("user.health", decided_by="privacy-officer", note="GDPR request")
        for cid in ids:
            claim = vault.claim(cid)
            assert claim.text == ERASED and claim.value is None and claim.status == Status.RETRACTED
        assert SECRET not in str(by_id(vault, [written["city"].claim_id, written["diet"].claim_id]))


def bare(cid: str) -> Claim:
    now = datetime.now(UTC)
    return Claim(id=cid, entity="user.x", text=cid, value=cid, kind=Kind.SEMANTIC, agent="a", session=None,
                 observed_at=now, recorded_at=now, status=Status.SUPERSEDED)


def test_the_cache_keeps_at_most_its_size_the_newest_first():
    cache = ClaimCache(size=3)
    for cid in ("c1", "c2", "c3", "c4"):
        cache.keep({cid: bare(cid)}, cache.split([])[2])
    held, missing, _ = cache.split(["c1", "c2", "c3", "c4"])
    assert sorted(held) == ["c2", "c3", "c4"] and missing == ["c1"]
    cache.drop(["c3"], then={f"n{i}": bare(f"n{i}") for i in range(5)})  # more than it holds: the last ones
    assert sorted(cache.split([f"n{i}" for i in range(5)])[0]) == ["n2", "n3", "n4"] and len(cache) == 3


def test_a_read_that_raced_a_change_is_not_kept():
    cache = ClaimCache()
    _, _, generation = cache.split(["c1"])  # a read begins ...
    cache.drop(["c1"], then={"c1": bare("c1")})  # ... a commit changes c1 meanwhile ...
    stale = replace(bare("c1"), text="before the change")
    cache.keep({"c1": stale}, generation)  # ... the read's older copy is not kept
    assert cache.split(["c1"])[0]["c1"].text == "c1"
    cache.clear()
    assert cache.split(["c1"]) == ({}, ["c1"], generation + 2)
