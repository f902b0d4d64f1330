"""A policy (or registry) given when a cluster starts on a store that has claims (`vault-ray up --store
PATH --policy FILE`, `connect(store=..., policy=...)`) is a change of the store's, checked as `set_cardinality`
checks one: narrowing an entity from `many` to `one` while its values are at odds is refused with the same
message, nothing changed and no actor left running; a narrowing over values that agree goes through.
A registry given on join is checked the same way."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from vault_ray import Fact, HashingEmbedder, InvalidPolicy, Policy, RegistryEntry, Vault, write_policy_file

VAULT_RAY = str(Path(sys.executable).with_name("vault-ray"))
MANY = Policy().with_cardinality("user.pets", "many").with_cardinality("user.sports", "many")


def seeded_store(path: Path, policy: Policy = MANY) -> tuple[dict, list[tuple[str, str]], str]:
    """user.pets holds two values at odds as one ('many' now), user.sports two that agree: the store's
    policy, its claims, and the refusal `set_cardinality` gives for user.pets (to compare)."""
    with Vault.open(path, embedder=HashingEmbedder(), policy=policy, partitions=4) as vault:
        vault.agent("a").add_facts([Fact("user.pets", "The user has a dog", value="dog:Rex"),
                                    Fact("user.sports", "The user plays tennis", value="tennis")])
        vault.agent("b").add_facts([Fact("user.pets", "The user has a cat", value="cat:Tom"),
                                    Fact("user.sports", "The user plays tennis", value="tennis")])
        with pytest.raises(InvalidPolicy) as refused:
            vault.set_cardinality("user.pets", "one")
        return vault.policy.to_dict(), sorted((c.id, str(c.status)) for c in vault.claims()), str(refused.value)


def as_it_was(path: Path, policy: dict, claims: list[tuple[str, str]]) -> None:
    with Vault.open(path, embedder=HashingEmbedder()) as vault:  # no actor holds the store any more
        assert vault.policy.to_dict() == policy
        assert sorted((c.id, str(c.status)) for c in vault.claims()) == claims
        assert set(vault.get("user.pets").values) == {"dog:Rex", "cat:Tom"}


def test_a_policy_given_at_start_that_narrows_values_at_odds_is_refused(cluster, tmp_path):
    policy, claims, message = seeded_store(tmp_path / "store")
    for narrowing in (MANY.with_cardinality("user.pets", "one"), Policy().with_cardinality("user.*", "one")):
        with pytest.raises(InvalidPolicy) as refused:
            cluster("store", policy=narrowing)
        assert "user.pets holds 'dog:Rex', 'cat:Tom'" in str(refused.value) and "Nothing was changed" in str(refused.value)
        as_it_was(tmp_path / "store", policy, claims)
    with pytest.raises(InvalidPolicy) as refused:
        cluster("store", policy=MANY.with_cardinality("user.pets", "one"))
    assert str(refused.value) == message  # word for word as set_cardinality's
    vault = cluster("store", policy=MANY.with_cardinality("user.sports", "one"))  # values that agree: accepted
    assert vault.policy.cardinality_for("user.sports", "many") == "one"
    assert set(vault.get("user.sports").values) == {"tennis"} and set(vault.get("user.pets").values) == {"dog:Rex", "cat:Tom"}


def test_a_registry_given_on_join_that_narrows_values_at_odds_is_refused(cluster, tmp_path):
    seeded_store(tmp_path / "store", Policy())  # user.pets is 'many' by the built-in registry
    namespace = f"test-{uuid.uuid4().hex[:10]}"
    vault = cluster("store", namespace=namespace)
    registry = vault.registry
    narrowed = type(registry)(dict(registry.entries))
    narrowed.add(RegistryEntry("user.pets", cardinality="one"))
    with pytest.raises(InvalidPolicy, match="user.pets holds"):
        cluster("store", namespace=namespace, registry=narrowed)
    assert vault.registry.cardinality("user.pets") == registry.cardinality("user.pets")
    assert set(vault.get("user.pets").values) == {"dog:Rex", "cat:Tom"}


def test_vault_ray_up_refuses_the_policy_file(gcs_address, tmp_path):
    policy, claims, message = seeded_store(tmp_path / "store")
    file = write_policy_file(tmp_path / "policy.json", MANY.with_cardinality("user.pets", "one"))
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    up = subprocess.run([VAULT_RAY, "up", "--store", str(tmp_path / "store"), "--address", gcs_address, "--namespace",
                         f"up-{uuid.uuid4().hex[:8]}", "--hashing", "--policy", str(file)],
                        capture_output=True, text=True, timeout=300, env=env)
    assert up.returncode == 2, up.stdout + up.stderr
    said = " ".join(up.stderr.split())
    assert "user.pets holds 'dog:Rex', 'cat:Tom'" in said and "Nothing was changed" in said
    assert "vault-ray is up" not in up.stdout
    as_it_was(tmp_path / "store", policy, claims)
