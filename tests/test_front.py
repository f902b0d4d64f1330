"""The front stage of the write path (engine/front.py): validation, one embedding per
fact, entity resolution (registered and known labels never move; new ones align by
the bands), grouping by partition."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from vault_ray import (
    EntityRegistry,
    Fact,
    HashingEmbedder,
    InvalidEmbedding,
    InvalidFact,
    Policy,
    RegistryEntry,
    ScriptedReasoner,
)
from vault_ray.backends import EmbeddedBackend
from vault_ray.engine import front
from vault_ray.storage.layout import partition_of

EMB = HashingEmbedder(dim=64)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def backend(tmp_path):
    found = EmbeddedBackend(tmp_path / "s", partitions=4, dim=EMB.dim, embedder_name=EMB.name,
                            reasoner=ScriptedReasoner(), policy=None, registry=EntityRegistry())
    yield found
    found.close()


def write(backend, *facts: Fact) -> None:
    vecs = EMB.embed([f.text for f in facts])
    al = [front.Alignment(f.entity, None) for f in facts]
    groups = front.build_items(facts, vecs, al, agent="a", session=None, policy=Policy(),
                               registry=EntityRegistry(), now=NOW, partitions=4)
    backend.write_many([{p: [i for _, i in items] for p, items in groups.items()}], NOW)


def resolve(backend, facts, reasoner=None, registry=None, policy=None):
    return front.resolve_entities(facts, EMB.embed([f.text for f in facts]), backend=backend,
                                  reasoner=reasoner or ScriptedReasoner(), policy=policy or Policy(),
                                  registry=registry or EntityRegistry(), embedder=EMB)


def test_validate_batch_names_the_bad_fact():
    with pytest.raises(InvalidFact, match="fact 1"):
        front.validate_batch([Fact("user.a", "ok"), Fact("user.b", "  ")], Policy())
    with pytest.raises(InvalidFact, match="no facts"):
        front.validate_batch([], Policy())


def test_embed_batch_embeds_once_or_checks_given_vectors():
    facts = [Fact("user.a", "one"), Fact("user.b", "two")]
    assert front.embed_batch(facts, EMB, None).shape == (2, 64)
    given = np.ones((2, 64)) * 3
    assert np.allclose(np.linalg.norm(front.embed_batch(facts, EMB, given), axis=1), 1.0)  # normalized
    with pytest.raises(InvalidEmbedding):
        front.embed_batch(facts, EMB, np.ones((2, 32)))


def test_a_new_label_close_to_an_incumbent_takes_its_entity(backend):
    write(backend, Fact("user.timezone", "The user is in PST time zone", "PST"))
    (al,) = resolve(backend, [Fact("user.tz_guess", "The user is in PST time zone", "PST")])
    assert (al.entity, al.aligned_from) == ("user.timezone", "user.tz_guess") and al.similarity > 0.85


def test_known_and_registered_labels_never_move(backend):
    write(backend, Fact("user.timezone", "The user is in PST time zone", "PST"),
          Fact("user.tz_other", "something unrelated", "x"))
    registry = EntityRegistry({"user.zone": RegistryEntry("user.zone", "a zone")})
    reasoner = ScriptedReasoner(disambiguate=lambda *a: "user.timezone")
    out = resolve(backend, [Fact("user.tz_other", "The user is in PST time zone", "PST"),
                            Fact("user.zone", "The user is in PST time zone", "PST")], reasoner, registry)
    assert [(a.entity, a.aligned_from) for a in out] == [("user.tz_other", None), ("user.zone", None)]
    assert reasoner.calls["disambiguate"] == 0


def test_an_alias_maps_to_its_key(backend):
    registry = EntityRegistry({"user.timezone": RegistryEntry("user.timezone", "zone", aliases=("user.tz",))})
    (al,) = resolve(backend, [Fact("user.tz", "The user is in PST", "PST")], registry=registry)
    assert (al.entity, al.aligned_from) == ("user.timezone", "user.tz")


def test_the_ask_band_goes_to_the_reasoner(backend):
    write(backend, Fact("user.diet", "the user eats no meat at all and no fish", "vegetarian"))
    reasoner = ScriptedReasoner(disambiguate=lambda fact, candidates, registry: candidates[0])
    policy = Policy(align_threshold=0.99, ask_threshold=0.3)
    (al,) = resolve(backend, [Fact("user.food_rule", "the user eats no meat at all", "vegetarian")], reasoner,
                    policy=policy)
    assert reasoner.calls["disambiguate"] == 1 and al.asked and al.entity == "user.diet"


def test_a_label_under_a_known_entity_is_a_part_of_it_and_stays(backend):
    write(backend, Fact("user.budget", "My budget is 300 dollars", "300"))
    registry = EntityRegistry({"user.budget": RegistryEntry("user.budget", "the user's budget")})
    grab = ScriptedReasoner(disambiguate=lambda fact, candidates, registry: candidates[0] if candidates else None)
    (al,) = resolve(backend, [Fact("user.budget.trip", "My budget is 300 dollars", "300")], grab, registry)
    assert (al.entity, al.aligned_from) == ("user.budget.trip", None)
    (other,) = resolve(backend, [Fact("user.spending_cap", "My budget is 300 dollars", "300")], grab, registry)
    assert other.entity == "user.budget"  # not an ancestor: the same words still align


def test_another_subjects_entity_is_never_a_candidate(backend):
    """`alice.employer` is not `user.employer`, however alike the statements: aligning it
    there superseded the user's employer with Alice's. The same subject still aligns."""
    write(backend, Fact("user.employer", "works at Google", "Google"))
    registry = EntityRegistry({"user.employer": RegistryEntry("user.employer", "the user's employer")})
    grab = ScriptedReasoner(disambiguate=lambda fact, candidates, registry: candidates[0] if candidates else None)
    out = resolve(backend, [Fact("alice.employer", "works at Google", "Google"),
                            Fact("team.employer", "works at Google", "Google"),
                            Fact("user.job_company", "works at Google", "Google")], grab, registry)
    assert [(a.entity, a.aligned_from) for a in out] == [
        ("alice.employer", None), ("team.employer", None), ("user.employer", "user.job_company")]


def test_a_nearest_entity_with_an_unrelated_statement_is_no_candidate(backend):
    write(backend, Fact("user.diet", "the user eats no meat at all and no fish", "vegetarian"))
    seen = []
    reasoner = ScriptedReasoner(disambiguate=lambda fact, candidates, registry: seen.append(list(candidates)))
    (far,) = resolve(backend, [Fact("user.car_colour", "red paint on a small hatchback", "red")], reasoner)
    (near,) = resolve(backend, [Fact("user.food_rule", "the user eats no meat at all", "vegetarian")], reasoner,
                      policy=Policy(align_threshold=0.99, ask_threshold=0.95))
    assert far.entity == "user.car_colour" and not far.asked  # nothing near: no question asked
    assert near.asked and seen == [["user.diet"]]  # below the ask band, above the floor: still a candidate


def test_build_items_groups_by_partition_keeping_positions():
    facts = [Fact(f"user.k{i}", f"text {i}", f"v{i}") for i in range(12)]
    al = [front.Alignment(f.entity, None) for f in facts]
    groups = front.build_items(facts, EMB.embed([f.text for f in facts]), al, agent="a", session="s",
                               policy=Policy(), registry=EntityRegistry(), now=NOW, partitions=4)
    assert sorted(pos for items in groups.values() for pos, _ in items) == list(range(12))
    for p, items in groups.items():
        assert all(partition_of(item.entity, 4) == p and item.session == "s" for _, item in items)


def test_build_items_gives_each_fact_without_an_id_a_fresh_uuid4_and_keeps_given_ids():
    import uuid

    facts = [Fact(f"user.k{i}", f"text {i}", claim_id="given-id-7" if i == 7 else None) for i in range(300)]
    al = [front.Alignment(f.entity, None) for f in facts]
    groups = front.build_items(facts, EMB.embed([f.text for f in facts]), al, agent="a", session=None,
                               policy=Policy(), registry=EntityRegistry(), now=NOW, partitions=4)
    ids = {pos: item.id for items in groups.values() for pos, item in items}
    assert ids[7] == "given-id-7"
    fresh = [ids[p] for p in range(300) if p != 7]
    assert len(set(fresh)) == 299
    for i in fresh:
        parsed = uuid.UUID(hex=i)
        assert parsed.hex == i and parsed.version == 4 and parsed.variant == uuid.RFC_4122
