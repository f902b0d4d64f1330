"""`Vault`, the public face (vault.py): several agents' writes in one batch, batch reads,
the change log, health and what a vault is connected to. (The write path's decisions
are in test_partition.py, strategies in test_strategies.py, disputes in test_disputes.py.)"""

from __future__ import annotations

import pytest

from vault_ray import (
    AddResult,
    ClusterError,
    DisputeCapExceeded,
    Fact,
    HashingEmbedder,
    InvalidFact,
    InvalidInput,
    Policy,
    Vault,
    WriteRequest,
)


def test_write_batch_gives_each_request_its_own_result_or_error(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", max_open_disputes=1))
    vault.agent("a").add_facts([Fact("user.allergies", f"The user is not allergic to {x}", f"not:{x}") for x in ("nuts", "fish")])
    vault.agent("b").add_facts(Fact("user.allergies", "The user is allergic to nuts", "nuts"))  # b's one open dispute
    results = vault.write_batch([
        WriteRequest("c", messages="I'm in PST", session="s1"),
        WriteRequest("b", facts=[Fact("user.allergies", "The user is allergic to fish", "fish")]),  # over b's cap
        WriteRequest("d", facts=[Fact("user.pets", "   ")]),  # invalid
        WriteRequest("e", messages="nothing to see here"),  # no fact: an empty result
        WriteRequest("", facts=[Fact("user.x", "x")]),  # no agent
    ])
    assert isinstance(results[0], AddResult) and results[0].decisions[0].entity == "user.timezone"
    assert isinstance(results[1], DisputeCapExceeded)
    assert isinstance(results[2], InvalidFact) and isinstance(results[4], InvalidInput)
    assert results[3] == AddResult(())
    assert [c.session for c in vault.history("user.timezone")] == ["s1"]
    # the refused write left nothing
    assert [c.value for c in vault.history("user.allergies")] == ["not:nuts", "not:fish", "nuts"]


def test_write_batch_decides_as_the_same_writes_one_by_one(make_vault):
    facts = [("a", "vegan"), ("b", "keto"), ("a", "vegan"), ("c", "paleo"), ("b", "vegan")]
    requests = [WriteRequest(agent, facts=[Fact("user.diet", f"The user is {v}", v, claim_id=f"c{i}")])
                for i, (agent, v) in enumerate(facts)]
    policy = Policy(default_strategy="consensus", consensus_margin=0.4)
    batched, single = make_vault("b", policy=policy), make_vault("s", policy=policy)
    together = batched.write_batch(requests)
    alone = [single.write_batch([r])[0] for r in requests]
    assert [[(d.claim_id, d.op, d.outcome) for d in r] for r in together] == \
        [[(d.claim_id, d.op, d.outcome) for d in r] for r in alone]
    state = sorted((c.id, c.status, c.superseded_by) for c in batched.claims())
    assert state == sorted((c.id, c.status, c.superseded_by) for c in single.claims())


def test_write_batch_takes_only_requests(vault):
    with pytest.raises(InvalidInput, match="WriteRequest"):
        vault.write_batch([{"agent": "a"}])
    (empty,) = vault.write_batch([WriteRequest("a")])
    assert isinstance(empty, InvalidInput) and "facts or messages" in str(empty)


def test_get_many_answers_like_get(vault):
    vault.agent("a").add("I'm in PST")
    vault.agent("b").add("I'm in EST")
    views = vault.get_many(["user.timezone", "user.unknown"])
    assert views["user.timezone"] == vault.get("user.timezone")
    assert views["user.unknown"].active == () and not views["user.unknown"].contested
    with pytest.raises(InvalidInput):
        vault.get_many("user.timezone")


def test_events_claims_check_and_info(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=3) as vault:
        a = vault.agent("a").add("I'm vegetarian").decisions[0]
        vault.agent("b").add("I'm vegan")
        kinds = [(e.kind, e.agent) for e in vault.events(entity="user.diet")]
        assert kinds[:2] == [("claim_added", "a"), ("claim_added", "b")] and ("status_changed", "b") in kinds
        assert {e.claim_id for e in vault.events(claim_id=a.claim_id)} >= {a.claim_id}
        assert sorted(str(c.status) for c in vault.claims()) == ["active", "superseded"]
        assert vault.check() == {0: True, 1: True, 2: True}
        info = vault.info()
        assert (info.mode, info.partitions, info.dim, info.embedder, info.namespace) == \
            ("embedded", 3, 384, "hashing-384", None)
        assert info.store == str(tmp_path / "s")


def test_connect_without_a_cluster_says_how_to_start_one(tmp_path):
    with pytest.raises(ClusterError, match="cannot reach|vault-ray up"):
        Vault.connect("127.0.0.1:1", embedder=HashingEmbedder())
