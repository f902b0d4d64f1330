"""What one surface refuses, the others refuse too, before anything changes: the HTTP
client checks a call as `Vault` does (same class, same field), the server refuses an id
no route could serve again, and the policy refuses rules that could never apply."""

from __future__ import annotations

import pytest

from vault_ray import (
    Fact,
    HashingEmbedder,
    InvalidFact,
    InvalidInput,
    InvalidPolicy,
    Policy,
    RegistryEntry,
    Vault,
    VaultClient,
)

BAD_FACTS = {
    "kind": (Fact("user.diet", "vegan", kind="feeling"), "kind"),
    "meta key": (Fact("user.diet", "vegan", meta={1: "a"}), "meta"),
    "meta value": (Fact("user.diet", "vegan", meta={"a": {1, 2}}), "meta"),
    "claim id with /": (Fact("user.diet", "vegan", claim_id="team/1"), "claim_id"),
    "blank claim id": (Fact("user.diet", "vegan", claim_id="  "), "claim_id"),
    "confidence": (Fact("user.diet", "vegan", confidence=2), "confidence"),
}


@pytest.mark.parametrize("case", sorted(BAD_FACTS))
def test_the_client_and_the_vault_refuse_a_bad_fact_alike(tmp_path, case):
    fact, field = BAD_FACTS[case]
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        with pytest.raises(InvalidFact) as embedded:
            vault.agent("a").add_facts([Fact("user.pets", "a cat"), fact])
        assert vault.claims() == []
    # nothing listens on port 9: nothing is sent
    with VaultClient("http://127.0.0.1:9", "t0ken", retries=0) as client, pytest.raises(InvalidFact) as remote:
        client.add_facts([Fact("user.pets", "a cat"), fact])
    assert (remote.value.field, remote.value.index) == (embedded.value.field, embedded.value.index) == (field, 1)


def test_the_client_refuses_what_the_vault_refuses_before_sending():
    with VaultClient("http://127.0.0.1:9", "t0ken", retries=0) as client:
        with pytest.raises(InvalidInput, match="expected a Policy"):  # a dict would reset every field it leaves out
            client.set_policy({"align_threshold": 0.9})
        with pytest.raises(InvalidPolicy, match="list of patterns"):  # not ['u', 's', 'e', 'r']
            client.set_high_stakes("user")
        with pytest.raises(InvalidInput, match="status"):
            client.disputes("closed")


def test_the_server_refuses_a_claim_id_no_route_could_serve(make_vault, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    vault = make_vault()
    tokens = TokenStore(tmp_path / "tokens.json")
    agent = {"Authorization": f"Bearer {tokens.add('chat')[0]}"}
    with TestClient(create_app(local_service(vault, tokens))) as http:
        for bad in ("team/1", "  ", ".", ".."):
            answer = http.post("/v1/facts", headers=agent,
                               json={"facts": [{"entity": "user.diet", "text": "vegan", "claim_id": bad}]})
            assert answer.status_code == 422 and answer.json()["field"] == "claim_id", answer.text
        sent = {"facts": [{"entity": "user.diet", "text": "The user is vegan", "value": "vegan"}]}
        first = http.post("/v1/facts", json=sent, headers={**agent, "Idempotency-Key": "k-1"})
        again = http.post("/v1/facts", json=sent, headers={**agent, "Idempotency-Key": "k-1"})
        assert first.status_code == again.status_code == 200 and first.json() == again.json()
        other = {"facts": [{"entity": "user.city", "text": "The user lives in Lisbon", "value": "Lisbon"}]}
        reused = http.post("/v1/facts", json=other, headers={**agent, "Idempotency-Key": "k-1"})
        assert reused.status_code == 422 and "already used for another fact" in reused.json()["detail"], reused.text
        assert [c.entity for c in vault.claims()] == ["user.diet"]


def test_a_change_that_changes_nothing_keeps_the_policy_version(make_vault):
    vault = make_vault()
    vault.set_strategy("user.diet", "authority")
    at = vault.policy.version
    vault.set_strategy("user.diet", "authority")
    assert vault.patch_policy({}).version == at
    vault.set_policy(vault.policy)
    assert vault.policy.version == at
    vault.set_policy(vault.policy, if_version=at)  # still at `at`: no conflict for the next writer either
    vault.set_strategy("user.diet", "recency")
    assert vault.policy.version == at + 1


def test_a_rule_on_an_alias_is_refused_and_an_alias_the_policy_names_is_logged(make_vault, caplog):
    vault = make_vault()
    vault.register(RegistryEntry("user.timezone", "the user's time zone", aliases=["user.tz"]))
    before = vault.policy
    for change in (lambda: vault.set_strategy("user.tz", "authority"),
                   lambda: vault.set_authority("scheduler", "user.tz", 0.9),
                   lambda: vault.patch_policy({"cardinality": {"user.tz": "many"}})):
        with pytest.raises(InvalidPolicy, match="alias of 'user.timezone'") as err:
            change()
        assert err.value.value == "user.tz"
    assert vault.policy == before
    vault.set_strategy("user.timezone", "authority")  # the key itself is fine
    vault.set_strategy("user.vehicle", "authority")
    vault.register(RegistryEntry("user.car", "the user's car", aliases=["user.vehicle"]))  # as `normalize` retires a label
    assert "'user.vehicle' is now an alias of 'user.car': the policy's rules on 'user.vehicle' no longer apply" in caplog.text


@pytest.mark.parametrize("name", [" scheduler", "scheduler ", "sched\n"])
def test_an_agent_name_with_surrounding_spaces_is_refused_everywhere(make_vault, name):
    vault = make_vault()
    with pytest.raises(InvalidInput, match="surrounding spaces"):
        vault.agent(name)
    with pytest.raises(InvalidPolicy, match="surrounding spaces"):
        vault.set_authority(name, "user.timezone", 0.9)
    with pytest.raises(InvalidPolicy, match="surrounding spaces"):
        Policy().patched({"authority": {name: {"user.*": 0.5}}})


def test_a_request_refused_before_routing_is_counted_under_its_route(make_vault, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import AppSettings, local_service
    from vault_ray.tokens import TokenStore

    tokens = TokenStore(tmp_path / "tokens.json")
    agent = {"Authorization": f"Bearer {tokens.add('chat')[0]}"}
    service = local_service(make_vault(), tokens, AppSettings(max_body_bytes=1_000))
    with TestClient(create_app(service)) as http:
        assert http.post("/v1/messages", json={"text": "I'm vegan. " * 200}, headers=agent).status_code == 413
        assert http.get("/mcp").status_code == 405
        assert http.get("/no/such/path").status_code == 404
        counted = http.get("/metrics").text
    assert 'route="/v1/messages",status="413"' in counted and 'route="/mcp",status="405"' in counted
    assert 'route="unmatched",status="404"' in counted  # a random path adds no series of its own
