"""Input that once poisoned a store: a value the claim log could not encode (a lone
surrogate, an int session or note) was acknowledged, then every flush failed, close
failed and the store never opened again. Each is refused now, from the one error tree,
and the store closes and reopens with exactly what it had. And a closed vault refuses
every call instead of opening its files again."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from vault_ray import (
    Fact,
    HashingEmbedder,
    InvalidEmbedding,
    InvalidFact,
    InvalidInput,
    InvalidPolicy,
    Policy,
    StoreClosed,
    StoreError,
    Vault,
    VaultError,
    WriteRequest,
)

LONE = "x\ud800"  # a lone surrogate: a Python string (or a JSON escape) can carry it, UTF-8 cannot


def _dispute(v: Vault):  # type: ignore[no-untyped-def]
    return v.disputes()[0]


POISON = {
    "int session": lambda v: v.agent("c").add("I'm vegan", session=5),
    "session surrogate": lambda v: v.agent("c").add("I'm vegan", session=LONE),
    "session too long": lambda v: v.agent("c").add("I'm vegan", session="s" * 257),
    "int note": lambda v: v.resolve_dispute(_dispute(v).id, winner=_dispute(v).challenger, decided_by="user",
                                            note=5),
    "note surrogate": lambda v: v.resolve_dispute(_dispute(v).id, winner=_dispute(v).challenger,
                                                  decided_by="user", note=LONE),
    "decided_by surrogate": lambda v: v.resolve_dispute(_dispute(v).id, winner=_dispute(v).challenger,
                                                        decided_by=LONE),
    "dispute id None": lambda v: v.resolve_dispute(None, "x", decided_by="user"),
    "text surrogate": lambda v: v.agent("c").add("I'm vegan " + LONE),
    "message surrogate": lambda v: v.agent("c").add([{"role": "user", "content": "I'm vegan " + LONE}]),
    "agent surrogate": lambda v: v.agent(LONE).add("I'm vegan"),
    "key surrogate": lambda v: v._write_one(WriteRequest("c", messages="I'm vegan", key=LONE)),
    "fact text surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan " + LONE)]),
    "value surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", value=LONE)]),
    "claim_id surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", claim_id=LONE)]),
    "source surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", source=LONE)]),
    "empty value": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", value=" ")]),
    "value too long": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", value="v" * 2001)]),
    "meta object": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", meta={"a": object()})]),
    "meta int key": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", meta={1: 2})]),  # type: ignore[dict-item]
    "meta nan": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", meta={"a": math.nan})]),
    "meta surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", meta={"k": ["ok", LONE]})]),
    "meta key surrogate": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", meta={LONE: 1})]),
    "search surrogate": lambda v: v.search("where " + LONE),
    "search agent not a name": lambda v: v.search("where", agent=5),  # type: ignore[arg-type]
    "facts None": lambda v: v.agent("c").add_facts(None),  # type: ignore[arg-type]
    "facts a string": lambda v: v.agent("c").add_facts("I'm vegan"),  # type: ignore[arg-type]
    "vectors not numbers": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan")], vectors="abc"),
    "register None": lambda v: v.register(None),  # type: ignore[arg-type]
    "authority agent surrogate": lambda v: v.set_authority(LONE, "user.timezone", 0.5),
    "high_stakes one string": lambda v: v.set_policy(Policy(high_stakes="user.*")),  # type: ignore[arg-type]
    "claim None": lambda v: v.claim(None),  # type: ignore[arg-type]
    "claim surrogate": lambda v: v.claim(LONE),
    "explain surrogate": lambda v: v.explain(LONE),
    "apply_rules a word": lambda v: v.apply_rules("now"),  # type: ignore[arg-type]
    "observed in the future": lambda v: v.agent("c").add("I'm in CET", observed_at=datetime.now(UTC) + timedelta(days=2)),
    "message NUL": lambda v: v.agent("c").add("I'm in P\x00ST"),
    "message list ESC": lambda v: v.agent("c").add([{"role": "user", "content": "I'm vegan\x1b"}]),
    "fact text NUL": lambda v: v.agent("c").add_facts([Fact("user.x", "te\x00xt")]),
    "value control": lambda v: v.agent("c").add_facts([Fact("user.diet", "vegan", value="veg\x07an")]),
    "session NUL": lambda v: v.agent("c").add("I'm vegan", session="s\x00"),
    "fact observed in 2999": lambda v: v.agent("c").add_facts([Fact("user.timezone", "CET", observed_at=32503680000.0)]),
}


def _state(v: Vault) -> tuple:
    claims = sorted((c.id, c.entity, c.status.value, c.value, c.session) for c in v.claims())
    return claims, [(d.id, d.status.value) for d in v.disputes(None)], v.policy.to_dict(), v.registry.entries


@pytest.mark.parametrize("case", sorted(POISON))
def test_input_the_log_cannot_keep_is_refused_and_the_store_reopens_unchanged(tmp_path, case):
    path, embedder = tmp_path / "s", HashingEmbedder()
    vault = Vault.open(path, embedder=embedder)
    vault.set_strategy("user.timezone", "authority")
    vault.agent("a").add("I'm in PST", session="morning")
    vault.agent("b").add("I'm in EST")  # an open dispute
    before = _state(vault)
    with pytest.raises(VaultError) as err:
        POISON[case](vault)
    assert isinstance(err.value, InvalidInput | InvalidPolicy | InvalidEmbedding | InvalidFact), err.value
    assert _state(vault) == before
    vault.close()
    with Vault.open(path, embedder=embedder) as again:  # the claim log took nothing it cannot read back
        assert _state(again) == before
        assert again.agent("c").add("I'm vegan").decisions


def test_a_closed_vault_refuses_every_call_and_leaves_the_store_free(tmp_path):
    path, embedder = tmp_path / "s", HashingEmbedder()
    vault = Vault.open(path, embedder=embedder)
    memory = vault.agent("a")
    memory.add("I'm in PST")
    vault.close()
    vault.close()  # idempotent
    assert vault.closed
    calls = [lambda: memory.add("I'm in EST"), lambda: vault.get("user.timezone"), lambda: vault.search("timezone"),
             lambda: vault.history("user.timezone"), lambda: vault.disputes(), lambda: vault.set_strategy("user.*", "recency"),
             lambda: vault.agent("b").add_facts([Fact("user.diet", "vegan")], vectors=np.ones((1, 384)))]
    for call in calls:
        with pytest.raises(StoreClosed) as err:
            call()
        assert isinstance(err.value, StoreError) and "closed" in str(err.value)
    with Vault.open(path, embedder=embedder) as again:  # the lock was released, nothing was written after close
        assert again.get("user.timezone").values == ("PST",)
        assert len(again.claims()) == 1


def test_a_little_clock_skew_is_accepted_and_ordered_by_its_time(tmp_path):
    """An agent's clock an hour ahead is still a write (the limit is a day ahead)."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        ahead = datetime.now(UTC) + timedelta(hours=1)
        (d,) = vault.agent("a").add("I'm in CET", observed_at=ahead).decisions
        assert vault.claim(d.claim_id).observed_at == ahead


def test_a_claim_id_names_one_fact(tmp_path):
    """The same id twice in one call, or another agent's id, is refused and changes
    nothing; the same agent sending its fact again is a retry and gets the first decision."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        with pytest.raises(InvalidFact, match="facts 0 and 1") as err:
            vault.agent("a").add_facts([Fact("user.diet", "vegan", claim_id="c-1"),
                                        Fact("user.pets", "a cat", claim_id="c-1")])
        assert err.value.field == "claim_id" and vault.claims() == []
        (first,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")).decisions
        before = _state(vault)
        with pytest.raises(InvalidFact, match="another agent"):
            vault.agent("b").add_facts(Fact("user.diet", "The user eats meat", "omnivore", claim_id="c-1"))
        with pytest.raises(InvalidFact, match="another agent"):  # in a batch with a good fact: the call changes nothing
            vault.agent("b").add_facts([Fact("user.pets", "The user has a cat", "cat"),
                                        Fact("user.diet", "The user eats meat", "omnivore", claim_id="c-1")])
        assert _state(vault) == before
        (again,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")).decisions
        assert again == first and _state(vault) == before


@pytest.mark.parametrize("settings", [{"partitions": 0}, {"partitions": -3}, {"partitions": True}, {"index": "bogus"}])
def test_a_store_refused_at_creation_leaves_no_directory(tmp_path, settings):
    path = tmp_path / "new" / "store"
    with pytest.raises(InvalidInput):
        Vault.open(path, embedder=HashingEmbedder(), **settings)
    assert not path.exists() and not path.parent.exists()  # nor the parent it made
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # the path is free for a good store
        assert vault.info().partitions == 16
    with pytest.raises(VaultError):  # an existing store refused another setting keeps its files
        Vault.open(path, embedder=HashingEmbedder(), **settings)
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        assert vault.info().partitions == 16


@pytest.mark.parametrize("write", [lambda m: m.add("I'm in P\x00ST"), lambda m: m.add_facts([Fact("user.x", "te\x00xt")]),
                                   lambda m: m.add_facts([Fact("user.x", "text", value="P\x1fST")]),
                                   lambda m: m.add_facts([Fact("user.x", "te\x7fxt")]), lambda m: m.add("I'm in P\x85ST")])
def test_a_control_character_is_refused_as_an_invalid_fact(tmp_path, write):
    """A NUL was stored ("te\x00xt"), or read as another character ("P\x00ST" gave user.location 'P.ST')."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        with pytest.raises(InvalidFact, match="control character"):
            write(vault.agent("a"))
        assert vault.claims() == []
        vault.agent("a").add_facts([Fact("user.notes", "line one\n\tline two\r\n")])  # tab and line breaks are text
        assert len(vault.claims()) == 1


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x80", "\x85", "\x9f"])
def test_texts_and_agent_names_refuse_the_same_control_characters(char):
    """One rule (vault_ray/texts.py): DEL and C1 are refused in texts as in agent names;
    names alone also refuse tab and newline (a name is one line)."""
    from vault_ray.texts import check_agent, check_string

    for check in (lambda v: check_string(v, "text", limit=100), check_agent):
        with pytest.raises(InvalidInput, match="control character"):
            check(f"a{char}b")
    with pytest.raises(InvalidInput, match=f"U\\+{ord(char):04X}.*only tab, newline and carriage return may be stored"):
        check_string(f"a{char}b", "text", limit=100)  # the one found, named as a code point
    assert check_string("a\tb\nc", "text", limit=100) == "a\tb\nc"
    with pytest.raises(InvalidInput, match="control character"):
        check_agent("a\tb")
