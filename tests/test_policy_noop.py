"""A policy change that changes nothing stores nothing: the version stays, no event is logged,
and no empty table appears (`PATCH {"authority": {"bot": {"user.*": null}}}` for an agent with
no table once stored `"bot": {}` as a new version), whichever part it names and whichever surface
makes it (`Vault.patch_policy`, `PATCH /v1/policy`, `VaultClient.patch_policy`, the setters). A
setter given None removes the rule, as a patch's null does (`set_strategy(key, None)` answered
"must be one of [...]")."""

from __future__ import annotations

import pytest

from vault_ray import InvalidPolicy, VaultClient
from vault_ray.policy import DEFAULT_HIGH_STAKES

SET_UP = {"strategies": {"user.diet": "authority"}, "cardinality": {"user.pets": "many"},
          "on_ambiguous": {"user.employer": "judge"}, "authority": {"crm": {"user.*": 0.9}}, "rules": {"reasserted_by": 3}}


@pytest.fixture
def vault(make_vault):
    vault = make_vault()
    vault.patch_policy(SET_UP)
    return vault


NO_CHANGE = [  # a patch whose every part leaves the policy as it is
    {"authority": {"bot": {"user.*": None}}},  # an agent with no table: no empty one
    {"authority": {"bot": {"user.*": None, "user.diet": None}, "planner": {}}},
    {"authority": {"bot": None}},
    {"authority": {"crm": {"user.location": None}}},  # a name the agent's table does not hold
    {"authority": {"crm": {"user.*": 0.9}}},  # the weight it has
    {"authority": {"crm": {}}},
    {"authority": {}},
    {"strategies": {"user.location": None}},
    {"strategies": {"user.diet": "authority"}},
    {"cardinality": {"user.location": None, "user.pets": "many"}},
    {"on_ambiguous": {"user.location": None}},
    {"rules": {"stale_after_s": None}},
    {"rate_limit": None},
    {"default_strategy": None, "max_text": 2000},
    {"high_stakes": list(DEFAULT_HIGH_STAKES)},
    {"high_stakes": list(reversed(DEFAULT_HIGH_STAKES))},  # another order
    {"high_stakes": [*DEFAULT_HIGH_STAKES, DEFAULT_HIGH_STAKES[0]]},  # a pattern twice
    {"high_stakes": None},  # the default it has
    {"strategies": {"user.location": None}, "authority": {"bot": {"user.*": None}},
     "high_stakes": list(reversed(DEFAULT_HIGH_STAKES))},
    {},
]


def unchanged(vault, before, cursor):
    assert vault.policy == before and vault.policy.version == before.version
    assert not vault.events(since=cursor).events
    assert all(vault.policy.authority.values())  # no agent with an empty table


@pytest.mark.parametrize("patch", NO_CHANGE, ids=str)
def test_a_patch_that_changes_nothing_keeps_the_version(vault, patch):
    before, cursor = vault.policy, vault.events(since="now").cursor
    assert vault.patch_policy(patch) == before
    unchanged(vault, before, cursor)


def test_the_setters_and_a_whole_policy_that_change_nothing_keep_the_version(vault):
    before, cursor = vault.policy, vault.events(since="now").cursor
    assert vault.set_high_stakes(reversed(before.high_stakes)) == before  # replaced whole by the same patterns
    assert vault.add_high_stakes(before.high_stakes[-1]) == before
    vault.set_policy(before)
    vault.set_authority("crm", "user.*", 0.9)
    vault.set_strategy("user.diet", "authority")
    vault.set_cardinality("user.pets", "many")
    unchanged(vault, before, cursor)


def test_the_setters_given_none_remove_the_rule_as_a_null_does(vault):
    version = vault.policy.version
    vault.set_strategy("user.diet", None)
    vault.set_cardinality("user.pets", None)
    vault.set_authority("crm", "user.*", None)  # its last weight: no empty table is left
    policy = vault.policy
    assert (policy.strategies, policy.cardinality, policy.authority) == ({}, {}, {})
    assert policy.version == version + 3
    for again in (lambda: vault.set_strategy("user.diet", None), lambda: vault.set_cardinality("user.pets", None),
                  lambda: vault.set_authority("crm", "user.*", None), lambda: vault.set_authority("bot", "user.*", None),
                  lambda: vault.set_strategy("user.*", None)):
        again()  # nothing to remove: nothing changes
    assert vault.policy == policy and vault.policy.version == policy.version
    for bad, said in [(lambda: vault.set_strategy("User Diet!", None), "invalid pattern"),
                      (lambda: vault.set_cardinality("", None), "pattern must be a non-empty string"),
                      (lambda: vault.set_authority("", "user.*", None), "agent must be a non-empty string"),
                      (lambda: vault.set_authority("rule:x", "user.*", None), "reserved"),
                      (lambda: vault.patch_policy({"authority": {"rule:x": {"user.*": None}}}), "reserved"),
                      (lambda: vault.set_strategy("user.diet", "newest"), "must be one of")]:
        with pytest.raises(InvalidPolicy, match=said):
            bad()
    assert vault.policy == policy


def test_over_http_and_the_client_a_patch_that_changes_nothing_keeps_the_version(served_app):
    import httpx

    vault = served_app.vault
    vault.patch_policy(SET_UP)
    before, cursor = vault.policy, vault.events(since="now").cursor
    admin = {"Authorization": f"Bearer {served_app.token('boss', 'admin')}"}
    for patch in NO_CHANGE:
        answer = httpx.patch(f"{served_app.url}/v1/policy", headers=admin, json=patch)
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == before.version and answer.json()["removed"] == [], (patch, answer.text)
        assert "bot" not in answer.json()["authority"] and "planner" not in answer.json()["authority"]
    with VaultClient(served_app.url, served_app.token("ops", "admin")) as client:
        for patch in NO_CHANGE:
            assert client.patch_policy(patch).version == before.version
    unchanged(vault, before, cursor)
    removal = httpx.patch(f"{served_app.url}/v1/policy", headers=admin, json={"authority": {"crm": {"user.*": None}}})
    assert removal.json()["authority"] == {} and removal.json()["version"] == before.version + 1  # a change: stored
    assert removal.json()["removed"] == ["authority[crm][user.*]"], removal.text
