"""An entity key or policy pattern with a trailing newline is no key (QA: `"user.zzz\\n"` was stored as
an entity of its own, `GET /v1/entities/user.timezone%0A` answered an empty view, and `"user.qq\\n"`
went into the policy's strategies, authority and the registry: the key check's `$` matched before a
final newline). Refused everywhere with the key error, nothing changed; OpenAPI's pattern (an
ECMA `$`) already said so. A store or an export that kept such a key opens without it, with a warning."""

from __future__ import annotations

import hashlib
import json
import logging

import httpx
import pytest

from vault_ray import Fact, InvalidEntity, InvalidPolicy, RegistryEntry, Vault
from vault_ray.embedders import HashingEmbedder

KEYS = ["user.city\n", "user\n", "user.home_town\n"]


@pytest.mark.parametrize("key", KEYS)
def test_the_library_refuses_a_key_ending_in_a_newline(make_vault, key):
    vault = make_vault()
    vault.agent("planner").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    before = (vault.claims(), vault.policy, vault.registry.to_list())
    with pytest.raises(InvalidEntity):
        vault.agent("chat").add_facts([Fact(key, "Lives in Paris", value="Paris")])
    with pytest.raises(InvalidEntity):
        vault.get(key)
    with pytest.raises(InvalidPolicy):
        vault.set_strategy(key, "authority")
    with pytest.raises(InvalidPolicy):
        vault.set_authority("chat", key, 0.4)
    with pytest.raises((InvalidEntity, InvalidPolicy)):
        vault.register(RegistryEntry(key, "where the user lives"))
    assert (vault.claims(), vault.policy, vault.registry.to_list()) == before


def test_the_http_service_refuses_it_and_changes_nothing(served_app):
    vault = served_app.vault
    vault.agent("planner").add_facts([Fact("user.timezone", "The user is in PST", value="PST")])
    agent = {"Authorization": f"Bearer {served_app.token('chat')}"}
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    person = {"Authorization": f"Bearer {served_app.token('ana', 'resolver')}"}
    before = (vault.claims(), vault.policy, vault.registry.to_list(), len(vault.events()))
    with httpx.Client(base_url=served_app.url) as http:
        answers = {
            "write": http.post("/v1/facts", headers=agent, json={"facts": [
                {"entity": "user.zzz\n", "text": "x", "value": "y"}]}),
            "view": http.get("/v1/entities/user.timezone%0A", headers=agent),
            "history": http.get("/v1/entities/user.timezone%0A/history", headers=agent),
            "search": http.get("/v1/search", params={"q": "time zone", "entity": "user.timezone\n"}, headers=agent),
            "forget": http.post("/v1/entities/user.timezone%0A/forget", headers=person, json={}),
            "strategy": http.post("/v1/policy/strategy", headers=admin, json={"pattern": "user.qq\n",
                                                                                "strategy": "judge"}),
            "authority": http.post("/v1/policy/authority", headers=admin, json={
                "agent": "chat", "pattern": "user.qq\n", "weight": 0.5}),
            "patch": http.patch("/v1/policy", headers=admin, json={"strategies": {"user.qq\n": "judge"}}),
            "registry": http.put("/v1/registry/user.qq%0A", headers=admin, json={"description": "x"}),
        }
    assert {name: a.status_code for name, a in answers.items()} == dict.fromkeys(answers, 422)
    assert all(a.headers["content-type"].startswith("application/problem+json") for a in answers.values())
    assert answers["write"].json()["type"].endswith(":InvalidEntity")
    assert answers["view"].json()["entity"] == "user.timezone\n"
    assert answers["strategy"].json()["type"].endswith(":InvalidPolicy")
    assert (vault.claims(), vault.policy, vault.registry.to_list(), len(vault.events())) == before


def _with_newline_keys(policy: dict, registry: list) -> tuple[dict, list]:
    """What the check before this fix let a store keep: a rule, a weight and a high-stakes pattern on
    `user.qq\\n`, a registry entry `user.rr\\n` and an alias `user.ss\\n`."""
    policy = {**policy, "strategies": {**policy["strategies"], "user.qq\n": "judge"},
              "authority": {**policy["authority"], "chat": {**policy["authority"].get("chat", {}), "user.qq\n": 0.4}},
              "high_stakes": [*policy["high_stakes"], "user.qq\n"]}
    registry = [*registry, {"key": "user.rr\n", "description": "x", "cardinality": "many", "aliases": [], "examples": []}]
    registry = [{**e, "aliases": [*e["aliases"], "user.ss\n"]} if e["key"] == "user.location" else e for e in registry]
    return policy, registry


def test_a_store_that_kept_such_keys_opens_without_them(make_vault, tmp_path, caplog):
    vault = make_vault()
    vault.set_strategy("user.diet", "authority")
    vault.set_authority("chat", "user.diet", 0.7)
    vault.agent("chat").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    kept = vault.policy
    vault.close()
    control = tmp_path / "store" / "control.json"
    data = json.loads(control.read_text())
    data["policy"], data["registry"] = _with_newline_keys(data["policy"], data["registry"])
    control.write_text(json.dumps(data))

    with caplog.at_level(logging.WARNING), Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as again:
        assert again.policy == kept  # the rest of the policy as it was
        keys = {e["key"] for e in again.registry.to_list()}
        assert "user.rr\n" not in keys and "user.location" in keys
        assert "user.ss\n" not in again.registry.lookup("user.location").aliases
        assert again.get("user.diet").values == ("vegan",)
        again.agent("planner").add_facts([Fact("user.city", "Lives in Paris", value="Paris")])  # it writes
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "end in a newline" in said and "'user.qq\\n'" in said and "'user.rr\\n'" in said


def test_an_export_that_kept_such_keys_imports_without_them(make_vault, tmp_path, caplog):
    vault = make_vault()
    vault.set_strategy("user.diet", "authority")
    vault.agent("chat").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    vault.export(tmp_path / "out")
    kept = vault.policy
    out = tmp_path / "out"
    policy, registry = _with_newline_keys(json.loads((out / "policy.json").read_text()),
                                          json.loads((out / "registry.json").read_text()))
    manifest = json.loads((out / "manifest.json").read_text())
    for name, body in (("policy.json", policy), ("registry.json", registry)):
        raw = json.dumps(body).encode()
        (out / name).write_bytes(raw)
        entry = next(f for f in manifest["files"] if f["path"] == name)
        entry.update(bytes=len(raw), sha256=hashlib.sha256(raw).hexdigest())
    (out / "manifest.json").write_text(json.dumps(manifest))

    restored = make_vault("restored")
    with caplog.at_level(logging.WARNING):
        restored.import_from(out)
    assert restored.policy.strategies == kept.strategies and "user.qq\n" not in restored.policy.high_stakes
    assert "user.rr\n" not in {e["key"] for e in restored.registry.to_list()}
    assert restored.get("user.diet").values == ("vegan",)
    assert "end in a newline" in " ".join(r.getMessage() for r in caplog.records)


def test_claims_an_older_version_stored_under_such_a_key_still_read(make_vault, tmp_path, monkeypatch):
    """Written as the check before this fix let them be (its regex put back for the writes): after a
    reopen, search, get and history reach them, forget takes them back; a new write there is refused."""
    import re

    from vault_ray import models

    vault = make_vault()
    with monkeypatch.context() as older:
        older.setattr(models, "ENTITY_RE", re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*$"))
        vault.agent("chat").add_facts([Fact("user.zzz\n", "The user likes jazz", value="jazz")])
        vault.agent("planner").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
    vault.close()

    with Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as again:
        assert {h.claim.entity for h in again.search("The user likes jazz", k=5)} == {"user.zzz\n", "user.diet"}
        assert again.get("user.zzz\n").values == ("jazz",) and len(again.history("user.zzz\n")) == 1
        with pytest.raises(InvalidEntity):
            again.agent("chat").add_facts([Fact("user.zzz\n", "The user likes blues", value="blues")])
        with pytest.raises(InvalidEntity):
            again.get("user.yyy\n")  # a key ending in a newline that the store does not hold
        assert [r.claim.value for r in again.forget("user.zzz\n", decided_by="ana")] == ["jazz"]
        assert again.get("user.zzz\n").values == () and again.get("user.diet").values == ("vegan",)
