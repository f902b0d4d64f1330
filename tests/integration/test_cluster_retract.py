"""Retraction in cluster mode (`Vault.connect` over shard actors) and over HTTP (the Serve app
and `VaultClient`): the same answers as embedded mode; a shard restart keeps the retraction
(the shard rebuilds from its log); an agent token may not retract, a resolver may."""

from __future__ import annotations

import pytest
import ray

from vault_ray import ClaimNotFound, Fact, Forbidden, HashingEmbedder, Status, Vault

from .served import served


def say(vault, agent, value, entity="user.timezone"):
    (d,) = vault.agent(agent).add_facts(Fact(entity, f"The user is in {value}", value), resolve=False).decisions
    return d


def test_retract_and_forget_in_cluster_mode(cluster):
    vault = cluster(shards=2, partitions=4)
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    inc = say(vault, "scheduler", "PST")
    ch = say(vault, "chat", "EST")
    assert ch.outcome == "disputed"
    r = vault.retract(ch.claim_id, decided_by="ana", note="wrong user")
    assert r.claim.status == Status.RETRACTED and r.disputes == (ch.dispute_id,) and not r.already
    assert vault.dispute(ch.dispute_id).status == "resolved"
    assert [c.id for c in vault.get("user.timezone").active] == [inc.claim_id]
    assert all(h.claim.id != ch.claim_id for h in vault.search("time zone EST", k=10))
    assert vault.retract(ch.claim_id, decided_by="bob").already  # a retry answers the first retraction
    with pytest.raises(ClaimNotFound):
        vault.retract("nope", decided_by="ana")
    namespace = vault.info().namespace
    for i in range(2):  # a restarted shard rebuilds from its log: the retraction stays
        ray.kill(ray.get_actor(f"vault-shard-{i}", namespace=namespace), no_restart=False)
    with Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder()) as again:
        assert again.claim(ch.claim_id).status == Status.RETRACTED
        assert [c.id for c in again.get("user.timezone").active] == [inc.claim_id]
        done = again.forget("user.timezone", decided_by="ana")
        assert [x.claim.id for x in done] == [inc.claim_id]
        assert again.get("user.timezone").active == ()
        assert all(again.check().values())


def test_retract_and_forget_over_http(tmp_path, serve_port):
    """One served store for both (a Serve app takes 7-14 s to start here): the forget comes
    after the retraction, on claims written after it."""
    with served(tmp_path / "http", serve_port) as store:
        agent = store.client("planner")
        (d,) = agent.add_facts(Fact("user.diet", "The user is vegan", "vegan")).decisions
        with pytest.raises(Forbidden):
            agent.retract(d.claim_id, note="no")
        person = store.client("ana", role="resolver")
        r = person.retract(d.claim_id, note="the user never said it")
        assert r.claim.status == Status.RETRACTED and r.decided_by == "ana" and r.note == "the user never said it"
        assert agent.get("user.diet").active == ()
        assert [c.status for c in agent.history("user.diet")] == [Status.RETRACTED]
        assert person.retract(d.claim_id).already
        with pytest.raises(ClaimNotFound):
            person.retract("nope")

        # forget: every active claim of the entity, by a resolver; the other entity keeps its claim
        agent.add_facts([Fact("user.diet", "The user is vegan", "vegan"),
                         Fact("user.pets", "The user has a cat", "cat")])
        with pytest.raises(Forbidden):
            agent.forget("user.diet")
        (r,) = person.forget("user.diet", note="about someone else")
        assert (r.claim.status, r.claim.value, r.decided_by, r.note) == (Status.RETRACTED, "vegan", "ana",
                                                                         "about someone else")
        assert agent.get("user.diet").active == () and len(agent.get("user.pets").active) == 1
        assert person.forget("user.diet") == [] and person.forget("user.nothing") == []
