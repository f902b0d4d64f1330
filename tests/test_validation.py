"""Invariant 6 and the error tree: bad input gets a clear error and changes nothing."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vault_ray import (
    ClaimNotFound,
    DisputeNotFound,
    Fact,
    HashingEmbedder,
    InvalidEmbedding,
    InvalidEntity,
    InvalidFact,
    InvalidInput,
    InvalidPolicy,
    Policy,
    StoreLocked,
    StoreMismatch,
    Vault,
    VaultError,
    WriteRequest,
)


@pytest.mark.parametrize(
    "entity", ["User.Timezone", "user..tz", "user tz", "", ".user", "user.", "a" * 129, "user.tz!", 42]
)
def test_invalid_entity(vault, entity):
    with pytest.raises(InvalidEntity) as err:
        vault.agent("a").add_facts([Fact(entity, "some text")])
    assert err.value.entity == entity and err.value.index == 0
    with pytest.raises(InvalidEntity) as err:
        vault.agent("a").add_facts([Fact("user.ok", "fine"), Fact(entity, "some text")])
    assert err.value.index == 1 and InvalidEntity("x").index is None
    assert vault.claims() == []


@pytest.mark.parametrize(
    ("fact", "field"),
    [
        (Fact("user.diet", ""), "text"),
        (Fact("user.diet", "   "), "text"),
        (Fact("user.diet", "x" * 2001), "text"),
        (Fact("user.diet", "vegan", confidence=-0.1), "confidence"),
        (Fact("user.diet", "vegan", confidence=1.01), "confidence"),
        (Fact("user.diet", "vegan", confidence=math.nan), "confidence"),
        (Fact("user.diet", "vegan", kind="opinion"), "kind"),
        (Fact("user.diet", "vegan", observed_at="yesterday"), "observed_at"),  # type: ignore[arg-type]
        (Fact("user.diet", "vegan", meta=["x"]), "meta"),  # type: ignore[arg-type]
    ],
)
def test_invalid_fact_names_field_and_changes_nothing(vault, fact, field):
    good = Fact("user.name", "The user's name is Ana", "ana")
    with pytest.raises(InvalidFact) as err:
        vault.agent("a").add_facts([good, fact])
    assert err.value.field == field and err.value.index == 1
    assert vault.claims() == []


def test_max_text_comes_from_policy(make_vault):
    vault = make_vault(policy=Policy(max_text=10))
    with pytest.raises(InvalidFact, match="allows 10"):
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan")])


@pytest.mark.parametrize("vectors", [np.zeros((1, 3)), np.full((1, 384), np.nan), np.full((2, 384), 0.1)])
def test_invalid_embeddings(vault, vectors):
    with pytest.raises(InvalidEmbedding) as err:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan")], vectors=vectors)
    assert err.value.expected_dim == 384
    assert vault.claims() == []


@pytest.mark.parametrize("vectors", [np.full((1, 384), 0.1 + 0.5j), np.ones((1, 384), dtype=bool),
                                     [["0.1"] * 384], np.full((1, 384), 1e300)], ids=["complex", "bool", "text", "huge"])
def test_vectors_that_are_not_real_float32_numbers_are_refused_without_a_warning(vault, vectors):
    """Complex rows were stored without their imaginary part (a ComplexWarning), True/False and
    numbers in strings as numbers, and 1e300 warned of an overflow before its error."""
    with pytest.raises(InvalidEmbedding) as err:  # filterwarnings = error: a warning would fail here first
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan")], vectors=vectors)
    assert err.value.expected_dim == 384 and vault.claims() == []


def test_an_all_zero_vector_is_refused(vault):
    """vectors=[[0.0] * 384] was stored, and no search could ever find the fact."""
    facts = [Fact("user.diet", "The user is vegan"), Fact("user.pets", "The user has a cat")]
    with pytest.raises(InvalidEmbedding, match="embedding 1 is all zeros") as err:
        vault.agent("a").add_facts(facts, vectors=[[0.1] * 384, [0.0] * 384])
    assert err.value.expected_dim == 384 and vault.claims() == []
    vault.agent("a").add_facts(facts, vectors=[[0.1] * 384, [0.0] * 383 + [1e-3]])  # any direction is one
    assert len(vault.claims()) == 2


def test_invalid_policy_values():
    with pytest.raises(InvalidPolicy):
        Policy(default_strategy="loudest")
    with pytest.raises(InvalidPolicy):
        Policy(strategies={"User.*": "recency"})
    with pytest.raises(InvalidPolicy):
        Policy().with_authority("a", "user.*", 1.5)
    with pytest.raises(InvalidPolicy):
        Policy(cardinality={"user.likes": "several"})


def test_set_authority_rejects_bad_weight_and_keeps_policy(vault):
    vault.set_authority("a", "user.timezone", 0.7)
    with pytest.raises(InvalidPolicy):
        vault.set_authority("a", "user.timezone", 2)
    with pytest.raises(InvalidPolicy):
        vault.set_strategy("user.timezone", "coin-flip")
    assert vault.policy.weight("a", "user.timezone") == 0.7
    assert vault.policy.strategy_for("user.timezone") == "recency"


def test_not_found_errors(vault):
    with pytest.raises(ClaimNotFound) as err:
        vault.claim("nope")
    assert err.value.claim_id == "nope"
    with pytest.raises(DisputeNotFound):
        vault.resolve_dispute("dsp-0-nope", "x", decided_by="me")
    assert issubclass(ClaimNotFound, LookupError) and issubclass(InvalidInput, ValueError)


def test_bad_search_arguments(vault):
    for kwargs in ({"query": ""}, {"query": "x", "k": 0}, {"query": "x", "entity": "Bad Entity"}):
        with pytest.raises(InvalidInput):
            vault.search(**kwargs)


def test_agent_name_must_be_valid(vault):
    with pytest.raises(InvalidInput):
        vault.agent("")


def test_reopen_with_other_settings_is_refused(tmp_path):
    Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4).close()
    with pytest.raises(StoreMismatch, match="4 partitions"):
        Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=8)
    with pytest.raises(StoreMismatch, match="dimensional"):
        Vault.open(tmp_path / "s", embedder=HashingEmbedder(dim=64))
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:  # partitions come from the store
        assert vault.info().partitions == 4


def test_second_process_gets_store_locked_naming_cluster_mode(tmp_path):
    path = tmp_path / "s"
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add("I'm in PST")
        code = textwrap.dedent(f"""
            from vault_ray import Vault, HashingEmbedder, StoreLocked
            try:
                Vault.open({str(path)!r}, embedder=HashingEmbedder())
            except StoreLocked as exc:
                print("LOCKED", exc)
        """)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.startswith("LOCKED") and "cluster mode" in out
        with pytest.raises(StoreLocked, match="already open in this process"):  # a second open in this process too
            Vault.open(path, embedder=HashingEmbedder())
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # released on close
        assert vault.get("user.timezone").values == ("PST",)


def test_errors_are_one_tree():
    for exc in (InvalidEntity("x"), ClaimNotFound("x"), StoreLocked("/p"), InvalidFact("m")):
        assert isinstance(exc, VaultError)


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([{"content": "I'm in PST"}], "role"),  # no role: once taken for a user turn
        ([{"role": "", "content": "I'm in PST"}], "role"),
        ([{"role": "user", "content": None}], "content"),  # once an AttributeError deep in extraction
        ([{"role": "user", "content": 42}], "content"),
        (["I'm in PST"], "messages"),
        ({"role": "user", "content": "I'm in PST"}, "messages"),  # one message, not a list of them
    ],
)
def test_malformed_messages_are_refused_and_change_nothing(vault, messages, field):
    with pytest.raises(InvalidFact) as err:
        vault.agent("a").add(messages)
    assert err.value.field == field
    assert vault.claims() == []


def test_an_idempotency_key_makes_extracted_writes_apply_once(vault):
    mem = vault.agent("a")
    first = mem.vault.write_batch([WriteRequest("a", messages="I'm in PST", key="k-1")])[0]
    again = mem.vault.write_batch([WriteRequest("a", messages="I'm in PST", key="k-1")])[0]
    assert again == first and len(vault.history("user.timezone")) == 1
    other = mem.vault.write_batch([WriteRequest("b", messages="I'm in PST", key="k-1")])[0]
    assert other.decisions[0].claim_id != first.decisions[0].claim_id  # the key is per agent
    with pytest.raises(InvalidInput):
        vault._write_one(WriteRequest("a", messages="I'm in CET", key=""))


def test_observed_at_outside_the_representable_times(vault):
    with pytest.raises(InvalidFact) as err:
        vault.agent("a").add_facts([Fact("user.diet", "vegan", observed_at=1e300)])
    assert err.value.field == "observed_at"
