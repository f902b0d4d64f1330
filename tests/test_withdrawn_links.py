"""An agent whose parked (disputed) value it changes to another parked value: the withdrawn claim
and the new one name each other (superseded_by / supersedes), as history and explain show them.
Found by the random-writes invariant test (tests/test_invariants.py, invariant 2)."""

from __future__ import annotations

from vault_ray import Fact, HashingEmbedder, Policy, Status, Vault


def test_a_parked_change_of_mind_names_the_withdrawn_claim(tmp_path):
    policy = Policy(default_strategy="authority", authority={"a": {"user.*": 0.9}, "b": {"user.*": 0.2}})
    with Vault.open(tmp_path, embedder=HashingEmbedder(64), policy=policy) as vault:
        vault.agent("a").add_facts(Fact("user.timezone", "The user is in CST", value="CST"), resolve=False)
        (est,) = vault.agent("b").add_facts(Fact("user.timezone", "The user is in EST", value="EST"),
                                            resolve=False).decisions
        (pst,) = vault.agent("b").add_facts(Fact("user.timezone", "The user is in PST", value="PST"),
                                            resolve=False).decisions
        assert est.outcome == pst.outcome == "disputed"
        assert est.claim_id in pst.superseded
        claims = {c.id: c for c in vault.history("user.timezone")}
        assert claims[est.claim_id].status == Status.SUPERSEDED
        assert claims[est.claim_id].superseded_by == pst.claim_id
        assert est.claim_id in claims[pst.claim_id].supersedes
        assert [c.value for c in vault.get("user.timezone").active] == ["CST"]
    with Vault.open(tmp_path, embedder=HashingEmbedder(64)) as vault:  # as stored
        assert est.claim_id in vault.claim(pst.claim_id).supersedes
