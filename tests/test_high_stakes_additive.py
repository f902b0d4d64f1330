"""Adding a high-stakes pattern keeps the others (QA qa8 F1): `add_high_stakes` /
`remove_high_stakes` (POST / DELETE /v1/policy/high-stakes, `vault-ray high-stakes`) change one
pattern; the calls that replace the list whole (`patch_policy({"high_stakes": [...]})`,
`set_high_stakes`, PATCH /v1/policy, PUT /v1/policy/high-stakes) say what they dropped: a
warning in Python, `removed` in the HTTP answer."""

from __future__ import annotations

import logging

import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidPolicy, Policy, Vault, VaultClient
from vault_ray.cli import app
from vault_ray.policy import DEFAULT_HIGH_STAKES


def write(vault, agent, entity, value):
    return vault.agent(agent).add_facts([Fact(entity, f"{entity} is {value}", value=value)]).decisions[0]


def warned(caplog, *words):
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and all(w in r.getMessage() for w in words)]


def test_adding_a_pattern_keeps_the_default_protections(vault, caplog):
    vault.add_high_stakes("user.calendar.*")
    assert vault.policy.high_stakes == (*DEFAULT_HIGH_STAKES, "user.calendar.*") and not warned(caplog)
    for entity, first, second in (("user.calendar.standup", "9am", "10am"), ("user.payment.method", "Visa", "PayPal")):
        write(vault, "crm", entity, first)
        d = write(vault, "assistant", entity, second)  # recency would let it win: it waits for a person
        assert d.outcome == "disputed" and vault.dispute(d.dispute_id).needs_user, entity
        assert vault.get(entity).values == (first, second)


def test_adding_a_pattern_it_has_changes_nothing_and_a_bad_one_is_refused(vault):
    vault.add_high_stakes("user.medication")
    version = vault.policy.version
    assert vault.add_high_stakes("user.medication").version == version  # no second copy, no new version
    for bad in ("User.Calendar", "", "user.*.x", ["user.calendar.*"], None):
        with pytest.raises(InvalidPolicy):
            vault.add_high_stakes(bad)
    assert vault.policy.version == version and vault.policy.high_stakes.count("user.medication") == 1


def test_removing_one_pattern_keeps_the_others(vault):
    vault.remove_high_stakes("user.budget.*")
    assert vault.policy.high_stakes == tuple(p for p in DEFAULT_HIGH_STAKES if p != "user.budget.*")
    write(vault, "crm", "user.budget", "$500")
    assert write(vault, "chat", "user.budget", "$800").outcome == "active"  # recency now decides
    write(vault, "crm", "user.consent.marketing", "given")
    assert write(vault, "chat", "user.consent.marketing", "withdrawn").outcome == "disputed"  # still protected


def test_removing_a_pattern_it_does_not_have_is_refused_naming_the_one_that_covers(vault):
    before = vault.policy
    with pytest.raises(InvalidPolicy, match=r"'user.payment.card' is not a high-stakes pattern.*'user.payment.\*'"):
        vault.remove_high_stakes("user.payment.card")
    with pytest.raises(InvalidPolicy, match="user.calendar"):
        vault.remove_high_stakes("user.calendar.*")
    assert vault.policy == before


def test_a_patch_that_replaces_the_list_warns_of_the_patterns_it_drops(vault, caplog):
    vault.patch_policy({"high_stakes": ["user.calendar.*"]})
    assert vault.policy.high_stakes == ("user.calendar.*",)  # as asked: the list is replaced whole
    (said,) = warned(caplog, "removes 9 settings", "user.payment.*", "user.consent.*", "add_high_stakes")
    caplog.clear()
    vault.patch_policy({"high_stakes": ["user.calendar.*", *DEFAULT_HIGH_STAKES]})  # drops nothing
    vault.patch_policy({"strategies": {"user.diet": "authority"}})
    vault.patch_policy({"strategies": {"user.diet": None}})  # removed on purpose: no warning
    assert not warned(caplog)
    vault.set_high_stakes(["user.payment.*"])
    assert warned(caplog, "user.calendar.*", "user.budget.*") and "user.payment.*," not in warned(caplog)[0]


def test_over_http_post_adds_delete_removes_and_replacing_calls_answer_what_they_removed(served_app, caplog):
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    url = f"{served_app.url}/v1/policy"
    added = httpx.post(f"{url}/high-stakes", json={"pattern": "user.calendar.*"}, headers=admin)
    assert added.status_code == 200 and added.json()["removed"] == []
    assert added.json()["high_stakes"] == [*DEFAULT_HIGH_STAKES, "user.calendar.*"]
    gone = httpx.delete(f"{url}/high-stakes/user.budget.*", headers=admin)
    assert gone.status_code == 200 and gone.json()["removed"] == ["high_stakes: user.budget.*"]
    version = served_app.vault.policy.version
    missing = httpx.delete(f"{url}/high-stakes/user.budget.*", headers=admin)
    assert missing.status_code == 422 and "not a high-stakes pattern" in missing.json()["detail"]
    assert served_app.vault.policy.version == version
    patched = httpx.patch(url, json={"high_stakes": ["user.calendar.*"], "strategies": {"user.diet": "judge"}},
                          headers=admin)
    assert patched.status_code == 200 and "high_stakes: user.payment.*" in patched.json()["removed"]
    assert len(patched.json()["removed"]) == len(DEFAULT_HIGH_STAKES) - 1
    put = httpx.put(f"{url}/high-stakes", json={"patterns": ["user.payment.*"]}, headers=admin)
    assert put.json()["removed"] == ["high_stakes: user.calendar.*"] and put.json()["high_stakes"] == ["user.payment.*"]
    whole = httpx.put(url, json={"high_stakes": ["user.payment.*"]}, headers=admin)  # strategies reset: named
    assert whole.json()["removed"] == ["strategies[user.diet]"]
    with VaultClient(served_app.url, served_app.token("ops2", "admin")) as client:
        assert client.add_high_stakes("user.consent.*").high_stakes == ("user.payment.*", "user.consent.*")
        assert client.remove_high_stakes("user.payment.*").high_stakes == ("user.consent.*",)
        with pytest.raises(InvalidPolicy, match="not a high-stakes pattern"):
            client.remove_high_stakes("user.payment.*")
        assert not warned(caplog)
        client.patch_policy({"high_stakes": ["user.medication"]})
        assert warned(caplog, "user.consent.*", "add_high_stakes")
    assert served_app.vault.policy.high_stakes == ("user.medication",)


def test_the_cli_adds_and_removes_one_pattern(tmp_path):
    store = str(tmp_path / "store")
    Vault.open(store, embedder=HashingEmbedder(), policy=Policy()).close()
    done = CliRunner().invoke(app, ["high-stakes", "user.calendar.*", "--store", store, "--hashing"],
                              env={"COLUMNS": "200"})
    assert done.exit_code == 0 and "user.calendar.*" in done.output and "user.payment.*" in done.output
    done = CliRunner().invoke(app, ["high-stakes", "user.payment.*", "--remove", "--store", store, "--hashing"])
    assert done.exit_code == 0
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.high_stakes == (*(p for p in DEFAULT_HIGH_STAKES if p != "user.payment.*"), "user.calendar.*")
    done = CliRunner().invoke(app, ["high-stakes", "user.payment.*", "--remove", "--store", store, "--hashing"])
    assert done.exit_code != 0 and "not a high-stakes pattern" in done.output


def test_only_an_admin_token_changes_a_pattern(served_app):
    before = served_app.vault.policy
    for role in ("agent", "resolver"):
        headers = {"Authorization": f"Bearer {served_app.token(f'x-{role}', role)}"}
        url = f"{served_app.url}/v1/policy/high-stakes"
        assert httpx.post(url, json={"pattern": "user.calendar.*"}, headers=headers).status_code == 403
        assert httpx.delete(f"{url}/user.payment.*", headers=headers).status_code == 403
    assert served_app.vault.policy == before


@pytest.mark.parametrize("bad", [None, 5, "", "User.Calendar", "user/calendar", ["user.calendar.*"]])
def test_the_client_refuses_a_bad_pattern_as_the_vault_does_before_sending(vault, bad):
    with VaultClient("http://127.0.0.1:9", "t0ken", retries=0) as client:  # nothing listens: nothing is sent
        for call in (client.add_high_stakes, client.remove_high_stakes, vault.add_high_stakes, vault.remove_high_stakes):
            with pytest.raises(InvalidPolicy):
                call(bad)
