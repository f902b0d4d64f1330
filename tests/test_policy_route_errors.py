"""A body the policy and registry routes refuse is an `InvalidPolicy` (422), the class `Vault`'s setters
raise for the same mistake, so code written against `Vault` catches it from `VaultClient` too (it was a
plain `InvalidInput` over HTTP); other routes keep `InvalidInput`. The client's own settings (token,
timeout, retries) and counts (`k`, `limit`) are `InvalidInput` before anything is sent."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import InvalidFact, InvalidInput, InvalidPolicy, RegistryEntry, VaultClient
from vault_ray.problems import TYPE_PREFIX

CALLS = {  # the same mistake made through the library and through the client
    "strategy": lambda m: m.set_strategy("user.diet", "bogus"),
    "weight as text": lambda m: m.set_authority("chat", "user.diet", "0.5"),
    "unknown field": lambda m: m.patch_policy({"nope": 1}),
    "cardinality": lambda m: m.set_cardinality("user.diet", "three"),
    "registry cardinality": lambda m: m.register(RegistryEntry("user.diet", cardinality="three")),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_the_client_raises_what_the_vault_raises(served_app, case):
    vault = served_app.vault
    before = (vault.policy, vault.registry.to_list())
    with pytest.raises(InvalidPolicy):
        CALLS[case](vault)
    with VaultClient(served_app.url, served_app.token("ops", "admin"), retries=0) as client, \
            pytest.raises(InvalidPolicy):
        CALLS[case](client)
    assert (vault.policy, vault.registry.to_list()) == before


def test_the_problem_names_the_field_and_keeps_the_validation_errors(served_app):
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    agent = {"Authorization": f"Bearer {served_app.token('chat')}"}
    with httpx.Client(base_url=served_app.url) as http:
        rules = http.put("/v1/policy", headers=admin, json={"rules": {"reasserted_by": "two"}}).json()
        entry = http.put("/v1/registry/user.pet_name", headers=admin, json={"examples": "Rex"}).json()
        fact = http.post("/v1/facts", headers=agent, json={"facts": [{"entity": "user.diet", "text": 5}]}).json()
        denied = http.post("/v1/policy/strategy", headers=agent, json={"pattern": "user.diet", "strategy": "x"})
    assert rules["type"] == TYPE_PREFIX + "InvalidPolicy" and rules["status"] == 422
    assert rules["field"] == "rules.reasserted_by" and rules["errors"][0]["loc"] == ["body", "rules", "reasserted_by"]
    assert entry["type"] == TYPE_PREFIX + "InvalidPolicy" and entry["field"] == "examples"
    assert fact["type"] == TYPE_PREFIX + "InvalidInput" and "field" not in fact  # a write's body: as before
    assert denied.status_code == 403  # who asks still comes first


@pytest.mark.parametrize(("kw", "said"), [
    ({"token": None}, "token must be a non-empty string"), ({"token": "vr_a\nb"}, "printable ASCII"),
    ({"timeout": "30"}, "timeout must be a number"), ({"timeout": 0}, "timeout must be a number"),
    ({"retries": -1}, "retries must be a whole number"), ({"retries": 1.5}, "retries must be a whole number"),
])
def test_the_clients_settings_are_checked_before_anything_is_sent(kw, said):
    settings = {"token": "vr_x_y", **kw}
    with pytest.raises(InvalidInput, match=said) as refused:
        VaultClient("http://127.0.0.1:9", settings.pop("token"), **settings)  # nothing listens on port 9
    assert not isinstance(refused.value, InvalidFact)  # a token is no fact (it was an InvalidFact)


def test_set_rules_takes_rules():
    with VaultClient("http://127.0.0.1:9", "vr_x_y", retries=0) as client, pytest.raises(InvalidPolicy, match="takes"):
        client.set_rules(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("call", "said"), [
    (lambda m: m.search("diet", k="5"), "k must be a positive integer, got '5'"),
    (lambda m: m.search("diet", k=True), "k must be a positive integer, got True"),
    (lambda m: m.events(since="start", limit=0), "limit must be an integer from 1 to 5000, got 0"),
    (lambda m: m.events(since="start", limit="2"), "limit must be an integer from 1 to 5000, got '2'"),
])
def test_a_count_is_refused_by_the_client_as_the_vault_refuses_it(make_vault, call, said):
    """`k="5"` was sent and taken by the server (a query is text), where `Vault.search` refuses it."""
    with pytest.raises(InvalidInput) as embedded:
        call(make_vault())
    with VaultClient("http://127.0.0.1:9", "vr_x_y", retries=0) as client, pytest.raises(InvalidInput) as remote:
        call(client)  # nothing listens on port 9: refused before sending
    assert str(embedded.value) == str(remote.value) == said
