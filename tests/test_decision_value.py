"""A write's `Decision` carries the value of the claim it names, so a caller need not read
the claim back: the new claim's value, the stored claim's for a NOOP, the same on a retry
(a receipt, also after a reopen), and in the HTTP answer."""

from __future__ import annotations

import pytest

from vault_ray import Fact, HashingEmbedder, Outcome, Vault


def test_each_outcome_names_its_claims_value(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.set_strategy("user.diet", "authority")
        vault.set_authority("a", "user.diet", 0.9)
        (d,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c1")).decisions
        assert (d.outcome, d.value) == (Outcome.ACTIVE, "vegan") and d.value == vault.claim(d.claim_id).value
        (noop,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan")).decisions
        assert (noop.outcome, noop.claim_id, noop.value) == (Outcome.NOOP, "c1", "vegan")
        (parked,) = vault.agent("b").add_facts(Fact("user.diet", "The user eats fish", "pescatarian")).decisions
        assert (parked.outcome, parked.value) == (Outcome.DISPUTED, "pescatarian")
        (bare,) = vault.agent("a").add_facts(Fact("user.note", "The user likes long walks")).decisions
        assert bare.value == vault.claim(bare.claim_id).value  # None when the claim has no value
        (again,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c1")).decisions
        assert again == d  # a retry answers with the decision taken then, value included
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:  # from the stored receipt
        (again,) = vault.agent("a").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c1")).decisions
        assert again == d


def test_the_http_answer_carries_the_value(make_vault, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    tokens = TokenStore(tmp_path / "tokens.json")
    app = create_app(local_service(make_vault(), tokens))
    with TestClient(app) as client:
        auth = {"Authorization": f"Bearer {tokens.add('planner')[0]}"}
        answer = client.post("/v1/facts", headers=auth, json={"facts": [
            {"entity": "user.diet", "text": "The user is vegan", "value": "vegan"}], "resolve": False})
        assert answer.status_code == 200 and answer.json()["decisions"][0]["value"] == "vegan", answer.text
        schema = client.get("/openapi.json").json()["components"]["schemas"]["DecisionOut"]["properties"]
        assert "value" in schema
