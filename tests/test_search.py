"""Searches of a host's one vector index: a selective filter is answered exactly (it
never misses a claim a fixed over-fetch would cut), and entity resolution compares
a new label with one representative per entity: its most recent active claim."""

from __future__ import annotations

import numpy as np
import pytest

from vault_ray import Fact, HashingEmbedder, Policy, Vault


@pytest.fixture(params=["flat", "hnsw"])
def index_kind(request):
    return request.param


def test_a_selective_agent_filter_finds_claims_below_the_over_fetch(tmp_path, index_kind):
    emb = HashingEmbedder()
    with Vault.open(tmp_path / "s", embedder=emb, partitions=4, index=index_kind) as vault:
        crowd = [Fact(f"user.crowd{i}", f"the user loves green tea number {i}") for i in range(400)]
        vault.agent("crowd").add_facts(crowd, resolve=False)
        rare = vault.agent("rare").add_facts([Fact("user.rare", "the user once mentioned tea")], resolve=False)
        hits = vault.search("the user loves green tea", k=3, agent="rare")
        assert [h.claim.id for h in hits] == [rare.decisions[0].claim_id]
        hits = vault.search("the user loves green tea", k=3, entity="user.crowd7")
        assert [h.claim.entity for h in hits] == ["user.crowd7"]
        assert len(vault.search("the user loves green tea", k=3, agent="crowd")) == 3


def test_search_spans_every_partition_with_one_index(tmp_path, index_kind):
    emb = HashingEmbedder()
    with Vault.open(tmp_path / "s", embedder=emb, partitions=8, index=index_kind) as vault:
        facts = [Fact(f"user.topic{i}", f"fact number {i} about topic {i}") for i in range(64)]
        vault.agent("a").add_facts(facts, resolve=False)
        for i in (3, 17, 42):
            (hit, *_) = vault.search(f"fact number {i} about topic {i}", k=3)
            assert hit.claim.entity == f"user.topic{i}" and hit.score == pytest.approx(1.0, abs=1e-4)


def test_resolution_compares_with_the_entitys_current_claim(tmp_path):
    emb = HashingEmbedder()
    policy = Policy(align_threshold=0.85, ask_threshold=0.85)  # align or keep: no reasoner question
    with Vault.open(tmp_path / "s", embedder=emb, partitions=4, policy=policy) as vault:
        mem = vault.agent("a")
        mem.add_facts([Fact("user.home_city", "the user lives in the city of lisbon portugal", "lisbon")], resolve=False)
        mem.add_facts([Fact("user.home_city", "the user lives in the city of tokyo japan", "tokyo")], resolve=False)
        # a drifted label with the new value aligns with the entity ...
        (d,) = vault.agent("b").add_facts([Fact("user.residence_town", "the user lives in the city of tokyo japan")]).decisions
        assert (d.entity, d.aligned_from) == ("user.home_city", "user.residence_town")
        # ... and its representative follows the entity's current claim, not the one superseded
        lisbon = Fact("user.residence_area", "the user lives in the city of lisbon portugal")
        (e,) = vault.agent("c").add_facts([lisbon]).decisions
        assert e.entity != "user.home_city"


def test_batched_resolution_matches_one_by_one(tmp_path):
    emb = HashingEmbedder()
    texts = [f"the user enjoys activity number {i} on weekends" for i in range(20)]
    with Vault.open(tmp_path / "s", embedder=emb, partitions=4) as vault:
        vault.agent("a").add_facts([Fact(f"user.activity{i}", t) for i, t in enumerate(texts)], resolve=False)
        batch = vault._backend.nearest_entities(emb.embed(texts), 3)
        single = [vault._backend.nearest_entities(emb.embed([t]), 3)[0] for t in texts]
    assert [[e for _, e in row] for row in batch] == [[e for _, e in row] for row in single]
    assert np.allclose([[s for s, _ in row] for row in batch], [[s for s, _ in row] for row in single], atol=1e-5)
    assert [row[0][1] for row in batch] == [f"user.activity{i}" for i in range(20)]


@pytest.mark.parametrize("index", ["flat", "hnsw"])
def test_resolution_sees_one_row_per_entity_and_search_every_claim_also_after_reopen(tmp_path, index):
    """An entity with many active claims is one candidate for resolution (its latest claim),
    while a search still finds each of its claims; a reopened store answers alike."""
    emb = HashingEmbedder()
    policy = Policy(default_cardinality="many")
    likes = [f"the user likes dish number {i} from the menu" for i in range(40)]
    others = [f"the user owns gadget number {i} at home" for i in range(10)]

    def answers(vault):  # (hashing vectors tie the runners-up: only the leaders are compared)
        near = vault._backend.nearest_entities(emb.embed([likes[5], likes[-1], others[3]]), 5)
        assert all(len({e for _, e in row}) == len(row) == 5 for row in near)  # distinct entities, not claims
        found = [h.claim.text for h in vault.search(likes[5], k=3)]
        return [row[0][1] for row in near], [round(row[0][0], 5) for row in near], found[0]

    with Vault.open(tmp_path / "s", embedder=emb, partitions=4, policy=policy, index=index) as vault:
        mem = vault.agent("a")
        mem.add_facts([Fact("user.likes", t, f"dish {i}") for i, t in enumerate(likes)], resolve=False)
        mem.add_facts([Fact(f"user.gadget{i}", t) for i, t in enumerate(others)], resolve=False)
        assert len(vault.get("user.likes").active) == 40
        before = answers(vault)
    leaders, scores, found = before
    assert leaders[1] == "user.likes" and scores[1] == pytest.approx(1.0)  # the latest claim stands for it
    assert leaders[0] == "user.likes" and scores[0] < 0.99  # an older claim is not compared ...
    assert leaders[2] == "user.gadget3"
    assert found == likes[5]  # ... but a search finds it
    with Vault.open(tmp_path / "s", embedder=emb, policy=policy, index=index) as vault:
        assert answers(vault) == before


def test_a_search_asking_for_most_of_a_small_hnsw_store_misses_no_active_claim(tmp_path):
    """HNSW links are pruned: in a small graph full of tombstones some rows are reachable by
    no beam, and unfiltered searches missed active claims that `k` asked for (a QA run with 6
    writer threads: 29 of 31). A small graph, or one most of which is asked for, is scored whole."""
    emb = HashingEmbedder()
    with Vault.open(tmp_path / "s", embedder=emb, partitions=4, index="hnsw") as vault:
        for round_ in range(6):  # each round supersedes the last: five of six rows become tombstones
            vault.agent("a").add_facts([Fact(f"user.color{i}", f"the user's color {i} is shade {round_}", f"shade {round_}")
                                        for i in range(60)], resolve=False)
        active = {c.id for c in vault.claims() if c.status == "active"}
        assert len(active) == 60
        assert {h.claim.id for h in vault.search("the user's color", k=1000)} == active
        assert {h.claim.id for h in vault.search("the user's color", k=20)} <= active


def test_agreeing_claims_of_other_agents_are_one_hit(tmp_path):
    """Four agents saying the user lives in NYC filled four of five results: now one hit,
    the others listed as `agreeing`, and the k hits are k different facts."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        for agent, text in [("a", "NYC"), ("b", "New York City"), ("c", "New York"), ("d", "nyc")]:
            vault.agent(agent).add_facts([Fact("user.location", f"The user lives in {text}", value=text)])
        vault.agent("a").add_facts([Fact("user.home_town", "The user grew up in Boston", value="Boston"),
                                    Fact("user.work_city", "The user works in Jersey City", value="Jersey City"),
                                    Fact("user.dream_city", "The user wants to live in Lisbon", value="Lisbon")])
        hits = vault.search("where does the user live", k=4)
        assert len(hits) == 4 and len({(h.claim.entity, h.claim.value) for h in hits}) == 4
        (nyc,) = [h for h in hits if h.claim.entity == "user.location"]
        assert sorted(c.agent for c in (nyc.claim, *nyc.agreeing)) == ["a", "b", "c", "d"]
        assert not nyc.contested and nyc.alternatives == ()
        # a contested entity: a claim of the hit's value agrees, only other values compete
        vault.set_strategy("user.diet", "authority")
        vault.set_authority("a", "user.diet", 0.9)
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
        vault.agent("b").add_facts([Fact("user.diet", "The user is keto", value="keto")])
        vault.agent("c").add_facts([Fact("user.diet", "The user eats vegan", value="vegan")])
        vault.agent("d").add_facts([Fact("user.diet", "The user is on keto", value="keto")])  # keto twice: one alternative
        (diet,) = [h for h in vault.search("what does the user eat", k=5) if h.claim.entity == "user.diet"]
        assert diet.contested and [c.value for c in diet.alternatives] == ["keto"]
        assert [c.value for c in diet.agreeing] == ["vegan"]


def test_many_agreeing_agents_do_not_crowd_out_the_other_hits(tmp_path):
    """The index is asked for 4k candidates: twelve agents saying one value left one hit of k=3."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        for n in range(12):
            vault.agent(f"agent{n}").add_facts([Fact("user.location", "The user lives in New York", value="New York")])
        vault.agent("a").add_facts([Fact("user.home_town", "The user grew up in Boston", value="Boston"),
                                    Fact("user.work_city", "The user works in Jersey City", value="Jersey City")])
        hits = vault.search("the user lives in new york", k=3)
        assert len(hits) == 3 and len(hits[0].agreeing) == 11


def test_a_search_by_agent_finds_its_claim_parked_in_a_dispute(tmp_path, index_kind):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), index=index_kind) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("sched", "user.timezone", 0.9)
        vault.set_authority("chat", "user.timezone", 0.9)
        vault.agent("sched").add_facts(Fact("user.timezone", "The user is in PST", value="PST"))
        parked = vault.agent("chat").add_facts(Fact("user.timezone", "The user is in EST", value="EST")).decisions[0]
        assert parked.outcome.value == "disputed"
        (hit,) = vault.agent("chat").search("what time zone is the user in", mine=True)
        assert hit.claim.id == parked.claim_id and hit.claim.embedding is None
        assert hit.contested and [c.value for c in hit.alternatives] == ["PST"]
        (hit,) = vault.search("what time zone is the user in", agent="chat", entity="user.timezone")
        assert hit.claim.id == parked.claim_id
        assert vault.search("what time zone is the user in", agent="chat", entity="user.diet") == []
        vault.resolve_dispute(parked.dispute_id, winner=hit.alternatives[0].id, decided_by="user")
        assert vault.agent("chat").search("what time zone is the user in", mine=True) == []
