"""What a read returns is a value, not the store's own state: changing a claim's `meta`, the
policy's tables or the registry a vault hands out (or the dict a fact was written with) is
refused or stays the caller's, and every later read and write of the store is as stored."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from vault_ray import EntityRegistry, Fact, Policy, RegistryEntry


def test_a_claims_meta_is_read_only_and_reads_stay_as_stored(make_vault):
    vault = make_vault()
    meta = {"source": "crm", "tags": ["import"], "span": (3, 9)}
    vault.agent("a").add_facts([Fact("user.diet", "User is vegan", value="vegan", meta=meta)])
    meta["tags"].append("later")  # the caller's dict, reused after the write
    meta["source"] = "changed"
    claim = vault.get("user.diet").active[0]
    with pytest.raises(TypeError, match="read-only"):
        claim.meta["tags"].append("mine")
    with pytest.raises(TypeError, match="read-only"):
        claim.meta["note"] = "mine"
    with pytest.raises(TypeError, match="read-only"):
        claim.meta.update(note="mine")
    stored = {"source": "crm", "tags": ["import"], "span": [3, 9]}  # as the claim log keeps it (JSON)
    assert vault.get("user.diet").active[0].meta == stored
    assert vault.search("vegan", k=1)[0].claim.meta == stored
    assert vault.history("user.diet")[0].meta == stored and vault.claim(claim.id).meta == stored
    assert json.loads(json.dumps(claim.meta)) == stored
    mine = copy.deepcopy(claim.meta)  # the way to a copy of one's own
    mine["tags"].append("mine")
    assert mine["tags"] == ["import", "mine"] and vault.get("user.diet").active[0].meta == stored
    again = pickle.loads(pickle.dumps(claim))  # as claims cross to and from Ray actors
    assert again == claim
    with pytest.raises(TypeError):
        again.meta["tags"].append("x")


def test_meta_is_the_same_after_a_reopen(make_vault, tmp_path):
    vault = make_vault("reopen")
    vault.agent("a").add_facts([Fact("user.city", "Lives in Paris", value="Paris", meta={"k": [1, {"n": 2}]})])
    before = vault.get("user.city").active[0]
    vault.close()
    reopened = make_vault("reopen")
    assert reopened.get("user.city").active[0] == before
    assert reopened.get("user.city").active[0].meta == {"k": [1, {"n": 2}]}


def test_the_policy_a_vault_returns_cannot_change_the_stores_policy(make_vault):
    vault = make_vault()
    vault.set_authority("scheduler", "user.timezone", 0.9)
    policy = vault.policy
    with pytest.raises(TypeError, match="read-only"):
        policy.strategies["user.timezone"] = "authority"
    with pytest.raises(TypeError, match="read-only"):
        policy.authority["scheduler"]["user.timezone"] = 0.1
    with pytest.raises(TypeError, match="read-only"):
        policy.authority["chat"] = {"*": 1.0}
    assert vault.policy.strategies == {} and vault.policy.authority == {"scheduler": {"user.timezone": 0.9}}
    vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    later = vault.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", value="EST")]).decisions[0]
    assert later.strategy is None or later.strategy == "recency"  # not the authority the refused change named
    assert vault.get("user.timezone").values == ("EST",)
    edited = policy.to_dict()  # to_dict is the caller's to edit, and reads back as a policy
    edited["strategies"]["user.timezone"] = "authority"
    assert Policy.from_dict(edited).strategies == {"user.timezone": "authority"}
    assert pickle.loads(pickle.dumps(policy)) == policy and Policy.from_dict(policy.to_dict()) == policy


def test_a_policy_given_to_open_is_not_changed_behind_the_stores_back(make_vault):
    given = Policy(strategies={"user.diet": "authority"})
    vault = make_vault(policy=given)
    with pytest.raises(TypeError):
        given.strategies["user.diet"] = "judge"
    assert vault.policy.strategy_for("user.diet") == "authority"


def test_the_registry_a_vault_returns_is_a_copy_and_register_changes_the_store(make_vault):
    mine = EntityRegistry.builtin()
    vault = make_vault(registry=mine)
    mine.add(RegistryEntry("user.locker_code", "the code of the user's gym locker"))  # after the open: not the store's
    assert vault.registry.lookup("user.locker_code") is None
    copied = vault.registry
    copied.add(RegistryEntry("user.locker_code", "the code of the user's gym locker"))
    assert vault.registry.lookup("user.locker_code") is None
    vault.register(RegistryEntry("user.locker_code", "the code of the user's gym locker"))
    assert vault.registry.lookup("user.locker_code") is not None


def test_returned_values_have_a_json_form_that_reads_back(make_vault):
    from vault_ray import Claim, EntityView
    from vault_ray.wire import decode, encode

    vault = make_vault()
    result = vault.agent("a").add_facts([Fact("user.diet", "User is vegan", value="vegan", meta={"tags": ["x"]})])
    assert result[0] == result.decisions[0] and [d.value for d in result] == ["vegan"]
    claim = vault.claim(result[0].claim_id)
    data = json.loads(json.dumps(encode(claim)))
    assert data["status"] == "active" and data["observed_at"].endswith("Z") and "embedding" not in data
    assert decode(Claim, data) == claim
    view = vault.get("user.diet")
    assert decode(EntityView, json.loads(json.dumps(encode(view)))).values == ("vegan",)


def test_a_registry_entry_keeps_its_own_aliases_and_examples(make_vault):
    vault = make_vault()
    aliases, examples = ["user.locker"], ["My locker code is 1234"]
    vault.register(RegistryEntry("user.locker_code", "the gym locker's code", aliases=aliases, examples=examples))
    aliases.append("user.pin")  # the caller's lists, changed after
    examples.clear()
    entry = vault.registry.lookup("user.locker_code")
    assert entry.aliases == ("user.locker",) and entry.examples == ("My locker code is 1234",)
    assert vault.registry.lookup("user.pin") is None
    made = RegistryEntry("user.shoe_size", examples=(x for x in ["I wear size 42"]))  # a generator, read once
    assert made.examples == ("I wear size 42",)
