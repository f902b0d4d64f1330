"""A policy read or answered over HTTP, edited and sent back: `removed`, which every policy change
answers beside the policy, is read-only and ignored in a `PUT` or `PATCH /v1/policy` body, in
`Vault.patch_policy` and in a policy file, so the round trip works on every surface."""

from __future__ import annotations

import json

import pytest

from vault_ray import InvalidPolicy, Policy
from vault_ray.policy_file import read_policy_file

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.fixture
def admin(make_vault, tmp_path):
    vault = make_vault()
    tokens = TokenStore(tmp_path / "tokens.json")
    client = TestClient(create_app(local_service(vault, tokens)))
    client.headers["Authorization"] = f"Bearer {tokens.add('boss', 'admin')[0]}"
    yield client, vault
    client.close()


def test_an_answer_edited_and_put_back_replaces_the_policy(admin):
    client, vault = admin
    answered = client.patch("/v1/policy", json={"high_stakes": ["user.payment.*"]}).json()
    assert "high_stakes: user.consent.*" in answered["removed"]
    answered["ask_threshold"] = 0.6  # edit one field of the answer, `removed` and `version` kept
    put = client.put("/v1/policy", json=answered)
    assert put.status_code == 200, put.text
    assert put.json()["ask_threshold"] == 0.6 and put.json()["removed"] == []
    assert vault.policy.ask_threshold == 0.6 and vault.policy.high_stakes == ("user.payment.*",)
    assert vault.policy.version == answered["version"] + 1
    again = put.json() | {"align_threshold": 0.9}
    patched = client.patch("/v1/policy", json=again)  # the answer as a merge patch, its version the precondition
    assert patched.status_code == 200 and vault.policy.align_threshold == 0.9, patched.text
    stale = client.put("/v1/policy", json=answered)  # the version it was read at has passed: still a 409
    assert stale.status_code == 409 and stale.json()["type"].endswith(":PolicyConflict")


def test_removed_names_no_setting_to_remove(admin):
    client, vault = admin
    vault.set_strategy("user.diet", "authority")
    before = vault.policy
    answer = client.patch("/v1/policy", json={"removed": ["strategies[user.diet]"]})
    assert answer.status_code == 200 and answer.json()["removed"] == []
    assert vault.policy == before  # nothing changed, not even the version
    refused = client.put("/v1/policy", json={"removed": "strategies[user.diet]"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["loc"] == ["body", "removed"]
    assert vault.policy == before


def test_the_library_and_a_policy_file_leave_removed_out(vault, tmp_path):
    new = vault.patch_policy({"ask_threshold": 0.6, "removed": ["high_stakes: user.payment.*"]})
    assert new.ask_threshold == 0.6 and "user.payment.*" in new.high_stakes
    with pytest.raises(InvalidPolicy) as bad:
        vault.patch_policy({"removed": 5})
    assert bad.value.field == "removed" and vault.policy == new
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps({**new.to_dict(), "align_threshold": 0.9, "removed": []}))
    assert read_policy_file(saved) == Policy.from_dict({**new.to_dict(), "align_threshold": 0.9})
