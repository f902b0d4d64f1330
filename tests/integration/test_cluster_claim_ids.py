"""A claim id names one fact across the shards of a cluster too: an id reused for an
entity another shard owns is refused, and a retry whose label an alias now sends to
another shard gets its first decision (the write asks the other shards first)."""

from __future__ import annotations

import pytest

from vault_ray import Fact, InvalidFact, RegistryEntry

pytestmark = pytest.mark.integration


def _on_other_shard(vault, near: str) -> str:
    """An entity whose partition another shard owns than `near`'s."""
    backend = vault._backend
    owner = backend._assignment[backend._by_partition([near]).popitem()[0]]
    return next(e for e in (f"user.topic_{i}" for i in range(200))
                if backend._assignment[next(iter(backend._by_partition([e])))] != owner)


def test_an_id_is_checked_across_shards(cluster):
    vault = cluster(shards=2, partitions=4)
    other = _on_other_shard(vault, "user.diet")
    (first,) = vault.agent("planner").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")).decisions
    # resolve=False: the label stays on its own shard (resolution could align it onto user.diet's)
    with pytest.raises(InvalidFact, match="already used for another fact"):
        vault.agent("planner").add_facts(Fact(other, "The user likes chess", "chess", claim_id="c-1"), resolve=False)
    with pytest.raises(InvalidFact, match="another agent"):
        vault.agent("chat").add_facts(Fact(other, "The user likes chess", "chess", claim_id="c-1"), resolve=False)
    assert [(c.id, c.entity) for c in vault.claims()] == [("c-1", "user.diet")] and vault.claim("c-1").agent == "planner"

    # the label resolved to itself at the first write; an alias registered since sends it to another shard
    target = _on_other_shard(vault, "user.clock_zone")
    fact = Fact("user.clock_zone", "The user is in Berlin time", "Europe/Berlin", claim_id="tz-1")
    (tz,) = vault.agent("scheduler").add_facts(fact, resolve=False).decisions
    vault.register(RegistryEntry(target, "the user's time zone", aliases=["user.clock_zone"]), check_claims=False)
    (again,) = vault.agent("scheduler").add_facts(fact).decisions
    assert again == tz and [c.id for c in vault.claims()].count("tz-1") == 1
    assert first.entity == "user.diet"


def test_a_call_with_a_reused_id_writes_nothing_on_any_shard(cluster):
    """The shard that holds the id refused it, while the call's facts on the other shard
    were applied under the 422 that said nothing was written."""
    vault = cluster(shards=2, partitions=4)
    vault.agent("planner").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="d-1"))
    other = _on_other_shard(vault, "user.diet")
    good = [Fact(other, "The user likes chess", "chess", claim_id="g-1"),
            Fact("user.diet_note", "The user eats out on Fridays", "fridays", claim_id="g-2")]
    for reused in (Fact("user.diet", "The user is vegan", "vegetarian", claim_id="d-1"),
                   Fact("user.diet", "The user is vegan", "vegan", claim_id="d-1")):
        with pytest.raises(InvalidFact, match="already used for another fact|another agent"):
            vault.agent("chat" if reused.value == "vegan" else "planner").add_facts([*good, reused], resolve=False)
        assert [c.id for c in vault.claims()] == ["d-1"]
    assert [e.kind for e in vault.events()].count("claim_added") == 1
