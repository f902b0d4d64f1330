"""A claim id names one fact. A retry (the same agent sending the same fact again, however
its label resolves this time) gets the decision taken the first time; the same id for a fact
that says something else, for another entity in another partition, or an idempotency key
sent again with another body, is refused and changes nothing, also after a reopen."""

from __future__ import annotations

import pytest

from vault_ray import Fact, HashingEmbedder, InvalidFact, Policy, RateLimit, RateLimited, RegistryEntry, Vault, WriteRequest
from vault_ray.storage.layout import partition_of


def _state(v: Vault) -> tuple:
    claims = sorted((c.id, c.entity, c.status.value, c.text, c.value) for c in v.claims())
    return claims, [(d.id, d.status.value) for d in v.disputes(None)]


def _apart(partitions: int, near: str) -> str:
    """An entity whose partition is not `near`'s."""
    return next(e for e in (f"user.topic_{i}" for i in range(100))
                if partition_of(e, partitions) != partition_of(near, partitions))


def test_an_id_sent_again_with_another_fact_is_refused(tmp_path):
    path = tmp_path / "s"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        mem = vault.agent("planner")
        (first,) = mem.add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")).decisions
        before = _state(vault)
        for other in (Fact("user.diet", "The user eats fish", "pescatarian", claim_id="c-1"),
                      Fact("user.diet", "The user is vegan", "vegetarian", claim_id="c-1"),
                      Fact("user.diet", "The user is vegan", "vegan", kind="episodic", claim_id="c-1")):
            with pytest.raises(InvalidFact, match="already used for another fact") as err:
                mem.add_facts([Fact("user.pets", "The user has a cat", "cat"), other])
            assert (err.value.field, err.value.index, err.value.claim_id) == ("claim_id", 1, "c-1")
            assert str(err.value).startswith("fact 1: ")
        assert _state(vault) == before
        # the same fact again, spaces around its text aside, is a retry
        (again,) = mem.add_facts(Fact("user.diet", " The user is vegan ", "vegan", claim_id="c-1")).decisions
        assert again == first and _state(vault) == before
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # the receipt keeps what the fact said
        with pytest.raises(InvalidFact, match="already used for another fact"):
            vault.agent("planner").add_facts(Fact("user.diet", "The user eats fish", "pescatarian", claim_id="c-1"))
        assert _state(vault) == before


def test_an_id_reused_for_an_entity_of_another_partition_is_refused(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        other = _apart(vault.info().partitions, "user.diet")
        mem = vault.agent("planner")
        mem.add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1"))
        before = _state(vault)
        with pytest.raises(InvalidFact, match="already used for another fact"):
            mem.add_facts(Fact(other, "The user likes chess", "chess", claim_id="c-1"))
        with pytest.raises(InvalidFact, match="another agent") as err:
            vault.agent("chat").add_facts([Fact("user.pets", "The user has a cat", "cat"),
                                           Fact(other, "The user likes chess", "chess", claim_id="c-1")])
        assert (err.value.index, err.value.field, err.value.claim_id) == (1, "claim_id", "c-1")
        assert _state(vault) == before
        assert [c.id for c in vault.claims()].count("c-1") == 1


def test_a_retry_whose_label_now_resolves_elsewhere_applies_once(tmp_path):
    """The label was its own entity at the first write; an alias registered since sends the
    retry to another entity (another partition): it still gets the first decision."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        target = _apart(vault.info().partitions, "user.clock_zone")
        fact = Fact("user.clock_zone", "The user is in Berlin time", "Europe/Berlin", claim_id="tz-1")
        (first,) = vault.agent("scheduler").add_facts(fact, resolve=False).decisions
        vault.register(RegistryEntry(target, "the user's time zone", aliases=["user.clock_zone"]), check_claims=False)
        before = _state(vault)
        (again,) = vault.agent("scheduler").add_facts(fact).decisions
        assert again == first and first.entity == "user.clock_zone"
        assert _state(vault) == before


def test_an_idempotency_key_sent_again_with_another_body_is_refused(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        def send(**kw: object) -> object:
            (result,) = vault.write_batch([WriteRequest("chat", key="turn-7", **kw)])
            return result

        first = send(messages="I'm vegan and I live in Lisbon")
        assert len(first.decisions) == 2
        before = _state(vault)
        assert send(messages="I'm vegan and I live in Lisbon").decisions == first.decisions
        refused = send(messages="I'm vegetarian and I live in Porto")
        assert isinstance(refused, InvalidFact) and "already used for another fact" in str(refused)
        # said of the key the caller sent, not of an id it never chose ("leave the id out" would not help)
        assert "idempotency key 'turn-7'" in str(refused) and "new key" in str(refused) and refused.field == "claim_id"
        assert _state(vault) == before
        # the key sent again with a body of more (or fewer) facts is no retry either, the same fact first or not
        for body in ([Fact("user.diet", "The user is vegan", "vegan"), Fact("user.city", "The user lives in Lisbon", "Lisbon"),
                      Fact("user.pets", "The user has a cat", "cat")], [Fact("user.diet", "The user is vegan", "vegan")]):
            refused = send(facts=body)
            assert isinstance(refused, InvalidFact) and "already used for another fact" in str(refused)
        assert _state(vault) == before
        given = vault.agent("chat").add_facts(Fact("user.pets", "The user has a cat", "cat", claim_id="mine-1"))
        with pytest.raises(InvalidFact, match="claim id 'mine-1' was already used.*leave the id out"):
            vault.agent("chat").add_facts(Fact("user.pets", "The user has a dog", "dog", claim_id="mine-1"))
        assert given.decisions[0].claim_id == "mine-1"  # an id the caller chose keeps its own message


def test_one_id_in_two_requests_of_one_batch_is_taken_once(tmp_path):
    """Requests batched together (`@serve.batch` batches concurrent HTTP writes) with one id
    for entities of two partitions: the second is refused, or answered as a retry."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        other = _apart(vault.info().partitions, "user.diet")
        vegan = Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")
        results = vault.write_batch([WriteRequest("planner", facts=[vegan]),
                                     WriteRequest("planner", facts=[Fact(other, "The user likes chess", "chess",
                                                                         claim_id="c-1")]),
                                     WriteRequest("chat", facts=[Fact(other, "The user is vegan", "vegan", claim_id="c-1")]),
                                     WriteRequest("planner", facts=[vegan])])
        assert isinstance(results[1], InvalidFact) and "already used for another fact" in str(results[1])
        assert isinstance(results[2], InvalidFact) and "another agent" in str(results[2])
        assert results[3].decisions == results[0].decisions  # the same fact again: a retry
        assert [(c.id, c.entity) for c in vault.claims()] == [("c-1", "user.diet")]


def test_a_retry_spends_no_rate_budget_a_new_fact_or_a_refused_reuse_does(tmp_path):
    """A retry after a timeout (the same idempotency key or claim ids, the same body) is answered
    from the receipts and writes nothing: it costs nothing, so it never pushes an agent over its limit."""
    limit = Policy(rate_limit=RateLimit(rate=0.001, burst=3))
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), policy=limit) as vault:
        turn = WriteRequest("chat", facts=[Fact("user.diet", "The user is vegan", "vegan"),
                                           Fact("user.city", "The user lives in Lisbon", "Lisbon")], key="turn-7")
        (first,) = vault.write_batch([turn])  # 2 of 3 tokens
        for _ in range(5):
            assert vault.write_batch([turn]) == [first]
        before = _state(vault)
        # another agent's id is no retry of this agent's write: refused, and what it took is given back, no more
        (cat,) = vault.write_batch([WriteRequest("chat", facts=[Fact("user.pets", "The user has a cat", "cat",
                                                                        claim_id="c-9")])])
        (other,) = vault.write_batch([WriteRequest("planner", facts=[Fact("user.pets", "The user has a cat", "cat",
                                                                          claim_id="c-9")])])
        assert isinstance(other, InvalidFact) and "another agent" in str(other)
        # a retried fact beside a new one: only the new one costs (chat's last token gone to c-9 above)
        mem = vault.agent("chat")
        with pytest.raises(RateLimited):
            mem.add_facts([Fact("user.pets", "The user has a cat", "cat", claim_id="c-9"),
                           Fact("user.job", "The user is a nurse", "nurse")])
        assert mem.add_facts(Fact("user.pets", "The user has a cat", "cat", claim_id="c-9")).decisions == cat.decisions
        assert {c.id for c in vault.claims()} == {*(c[0] for c in before[0]), "c-9"}
        planner = vault.agent("planner")
        planner.add_facts([Fact("user.job", "The user is a nurse", "nurse"), Fact("user.age", "The user is 40", "40")])
        planner.add_facts(Fact("user.music", "The user likes jazz", "jazz"))  # the refused reuse spent none of 3
        with pytest.raises(RateLimited):
            planner.add_facts(Fact("user.sport", "The user plays tennis", "tennis"))
