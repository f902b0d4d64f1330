"""Joining and creating: a second client joins the same actors, settings that do
not match the store are refused, and one store is served either by one embedded
process or by one cluster, never both."""

from __future__ import annotations

import uuid

import pytest

from vault_ray import ClusterError, Fact, HashingEmbedder, Policy, StoreLocked, StoreMismatch, Vault


def test_a_second_client_joins_the_same_store(cluster, tmp_path):
    first = cluster(shards=2, partitions=4)
    namespace = first.info().namespace
    first.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    with Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder()) as second:
        assert [c.value for c in second.get("user.diet").active] == ["vegan"]
        second.set_strategy("user.diet", "authority")
    assert first.policy.strategy_for("user.diet") == "authority"
    # a policy given on join is a change of the cluster's: numbered after it, checked (no rule on an alias)
    version = first.policy.version
    from vault_ray import InvalidPolicy, PolicyConflict
    from vault_ray.actors import connect
    joined = connect("auto", namespace=namespace, embedder=HashingEmbedder(), policy=Policy(align_threshold=0.9))
    assert joined.policy.version == first.policy.version == version + 1 and first.policy.align_threshold == 0.9
    with pytest.raises(PolicyConflict):
        first.patch_policy({"max_text": 100}, version=version)
    with pytest.raises(InvalidPolicy, match="alias"):
        connect("auto", namespace=namespace, embedder=HashingEmbedder(), policy=Policy(strategies={"user.tz": "authority"}))
    assert first.policy.version == version + 1
    with pytest.raises(ClusterError, match="already serves"):
        Vault.connect("auto", namespace=namespace, store=tmp_path / "elsewhere", embedder=HashingEmbedder())
    with pytest.raises(StoreMismatch, match="embedder"):
        Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder(dim=64))
    with pytest.raises(StoreMismatch, match="partitions"):
        Vault.connect("auto", namespace=namespace, partitions=8, embedder=HashingEmbedder())
    with pytest.raises(ClusterError, match="vault-ray up"):
        Vault.connect("auto", namespace=f"nothing-{uuid.uuid4().hex[:6]}", embedder=HashingEmbedder())


def test_embedded_mode_and_a_cluster_exclude_each_other(cluster, tmp_path):
    store, namespace = tmp_path / "shared", f"lock-{uuid.uuid4().hex[:8]}"
    with Vault.open(store, embedder=HashingEmbedder(), policy=Policy(default_strategy="authority")) as embedded:
        embedded.agent("a").add_facts([Fact("user.job", "The user is a nurse", "nurse")])
        with pytest.raises(StoreLocked, match="cluster mode"):
            cluster("shared", partitions=None, namespace=namespace)
    vault = cluster("shared", partitions=None, namespace=namespace)  # the failed attempt left no actor behind
    assert [c.value for c in vault.get("user.job").active] == ["nurse"]
    assert vault.policy.default_strategy == "authority"  # the store's policy, from control.json
    with pytest.raises(StoreLocked):
        Vault.open(store, embedder=HashingEmbedder())


def test_policy_changes_from_two_clients_at_once_all_land(cluster):
    """The control actor stores a change only against the version it was made on, so two
    processes' clients changing the policy at once never undo each other's changes."""
    import threading

    from vault_ray import PolicyConflict

    first = cluster(shards=1, partitions=2)
    with Vault.connect("auto", namespace=first.info().namespace, embedder=HashingEmbedder()) as second:
        def change(vault: Vault, name: str) -> None:
            for i in range(12):
                if i % 2:
                    vault.set_authority(name, f"user.t{i}", 0.3)
                else:
                    vault.patch_policy({"strategies": {f"user.{name}{i}": "consensus"}})

        threads = [threading.Thread(target=change, args=(v, n)) for v, n in ((first, "a"), (second, "b"), (first, "c"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        policy = second.policy
        assert len(policy.strategies) == 18 and sum(len(t) for t in policy.authority.values()) == 18
        with pytest.raises(PolicyConflict):
            second.patch_policy({"max_text": 10}, version=policy.version - 1)
        assert first.policy == policy
