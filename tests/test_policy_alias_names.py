"""A registered alias (`user.city` of `user.location`) where the policy needs an entity's key:
a rule set on it was refused, but a null for it in a patch (meant to remove the key's rule)
answered 200 and removed nothing. Every per-entity part refuses it alike, naming the key,
through `Vault`, `PATCH /v1/policy`, `DELETE /v1/policy/high-stakes/...` and `VaultClient`."""

from __future__ import annotations

import pytest

from vault_ray import InvalidPolicy, RegistryEntry, VaultClient

REMOVALS = [  # (patch, the alias, its key): each per-entity table, builtin aliases of other kinds
    ({"strategies": {"user.city": None}}, "user.city", "user.location"),
    ({"strategies": {"user.tz": None, "user.diet": "judge"}}, "user.tz", "user.timezone"),
    ({"cardinality": {"user.hobbies": None}}, "user.hobbies", "user.likes"),
    ({"on_ambiguous": {"user.company": None}}, "user.company", "user.employer"),
    ({"authority": {"planner": {"user.home": None}}}, "user.home", "user.location"),
    ({"authority": {"nobody": {"user.allergy": None}}}, "user.allergy", "user.allergies"),
]


@pytest.fixture
def vault(make_vault):
    vault = make_vault()
    vault.patch_policy({"strategies": {"user.location": "authority", "user.diet": "consensus"},
                        "cardinality": {"user.likes": "many"}, "on_ambiguous": {"user.employer": "judge"},
                        "authority": {"planner": {"user.location": 0.9}}})
    return vault


@pytest.mark.parametrize(("patch", "alias", "key"), REMOVALS)
def test_a_patch_that_removes_an_alias_is_refused_naming_its_key(vault, patch, alias, key):
    before = vault.policy
    with pytest.raises(InvalidPolicy, match=f"'{alias}' is an alias of '{key}'.*no rule on the alias to remove; "
                                            f"name '{key}'") as err:
        vault.patch_policy(patch)
    assert err.value.value == alias and vault.policy == before
    with pytest.raises(InvalidPolicy, match=f"alias of '{key}'"):  # as edit_policy applies a patch
        from vault_ray.engine.policy_edits import patched

        vault.edit_policy(lambda current: patched(current, patch, vault.registry))
    assert vault.policy == before


@pytest.mark.parametrize("setter", [
    lambda v: v.set_strategy("user.city", None), lambda v: v.set_cardinality("user.hobbies", None),
    lambda v: v.set_authority("planner", "user.home", None), lambda v: v.remove_high_stakes("user.tz"),
    lambda v: v.set_strategy("user.city", "judge"), lambda v: v.set_cardinality("user.hobbies", "one"),
    lambda v: v.set_authority("planner", "user.home", 0.2), lambda v: v.add_high_stakes("user.tz"),
])
def test_every_setter_refuses_an_alias_before_reading_its_value(vault, setter):
    """set_strategy(alias, None) said "must be one of [...], got None": not that the name is wrong."""
    before = vault.policy
    with pytest.raises(InvalidPolicy, match=r"is an alias of 'user\.\w+': writes to it are stored there") as err:
        setter(vault)
    assert err.value.value in {"user.city", "user.hobbies", "user.home", "user.tz"} and vault.policy == before


def test_the_keys_and_a_rule_kept_on_a_later_alias_are_still_removed_by_name(vault):
    vault.set_strategy("user.vehicle", "authority")
    vault.add_high_stakes("user.wallet")
    vault.add_high_stakes("user.purse")
    vault.register(RegistryEntry("user.car", "the user's car", aliases=("user.vehicle",)))  # as normalize retires it
    vault.register(RegistryEntry("user.wallet", "the user's wallet", aliases=("user.purse",)))
    new = vault.patch_policy({"strategies": {"user.vehicle": None, "user.location": None},
                              "authority": {"planner": {"user.location": None}}})
    assert new.strategies == {"user.diet": "consensus"} and not new.authority.get("planner")
    assert "user.purse" not in vault.remove_high_stakes("user.purse").high_stakes
    assert vault.patch_policy({"strategies": {"user.never_set": None}}).strategies == new.strategies  # no alias: as before
    vault.set_strategy("user.diet", None)  # a key: None removes its rule, as a patch's null does
    assert vault.policy.strategies == {}


def test_over_http_a_null_for_an_alias_is_a_422_naming_its_key_and_the_key_removes(served_app):
    vault = served_app.vault
    vault.patch_policy({"strategies": {"user.location": "authority"}, "authority": {"planner": {"user.location": 0.9}}})
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    import httpx

    url = f"{served_app.url}/v1/policy"
    before = vault.policy
    for body in ({"strategies": {"user.city": None}}, {"cardinality": {"user.home": None}},
                 {"on_ambiguous": {"user.tz": None}}, {"authority": {"planner": {"user.city": None}}},
                 {"strategies": {"user.city": None}, "version": before.version}):
        refused = httpx.patch(url, json=body, headers=admin)
        assert refused.status_code == 422 and refused.json()["type"].endswith("InvalidPolicy"), refused.text
        detail = refused.json()["detail"]
        assert "is an alias of 'user." in detail and "no rule on the alias to remove" in detail, detail
    gone = httpx.delete(f"{url}/high-stakes/user.city", headers=admin)
    assert gone.status_code == 422 and "'user.city' is an alias of 'user.location'" in gone.json()["detail"]
    set_on_alias = httpx.post(f"{url}/strategy", json={"pattern": "user.city", "strategy": "judge"}, headers=admin)
    assert set_on_alias.status_code == 422 and "name 'user.location'" in set_on_alias.json()["detail"]
    assert vault.policy == before  # nothing changed
    with VaultClient(served_app.url, served_app.token("ops2", "admin")) as client:
        with pytest.raises(InvalidPolicy, match="'user.city' is an alias of 'user.location'"):
            client.patch_policy({"strategies": {"user.city": None}})
        with pytest.raises(InvalidPolicy, match="'user.home' is an alias of 'user.location'"):
            client.remove_high_stakes("user.home")
    assert vault.policy == before
    done = httpx.patch(url, json={"strategies": {"user.location": None}}, headers=admin)
    assert done.status_code == 200 and done.json()["removed"] == ["strategies[user.location]"]
    assert vault.policy.strategies == {}
