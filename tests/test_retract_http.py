"""`POST /v1/claims/{claim_id}/retract` in-process (an embedded vault behind `create_app`):
a resolver or admin token retracts, an agent token gets 403, an unknown claim 404, bad
input 422 (problem+json); who retracted is the token's principal, never the body."""

from __future__ import annotations

import pytest

from vault_ray import Fact

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.problems import MEDIA_TYPE  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.fixture
def http(make_vault, tmp_path):
    vault = make_vault()
    vault.agent("planner").add_facts(Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1"))
    tokens = TokenStore(tmp_path / "tokens.json")
    client = TestClient(create_app(local_service(vault, tokens)))
    roles = {"planner": "agent", "ana": "resolver", "root": "admin"}
    headers = {name: {"Authorization": f"Bearer {tokens.add(name, role)[0]}"} for name, role in roles.items()}
    yield client, headers, vault
    client.close()


def test_an_agent_token_may_not_retract(http):
    client, headers, vault = http
    answer = client.post("/v1/claims/c-1/retract", headers=headers["planner"], json={"note": "no"})
    assert answer.status_code == 403 and answer.headers["content-type"] == MEDIA_TYPE
    assert answer.json()["type"].endswith(":Forbidden")
    assert vault.claim("c-1").status == "active"


def test_a_resolver_retracts_and_reads_stop_seeing_the_claim(http):
    client, headers, vault = http
    answer = client.post("/v1/claims/c-1/retract", headers=headers["ana"],
                         json={"note": "the user never said it"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["claim"]["status"] == "retracted" and body["decided_by"] == "ana" and body["already"] is False
    assert body["note"] == "the user never said it"
    view = client.get("/v1/entities/user.diet", headers=headers["planner"]).json()
    assert view["active"] == []
    history = client.get("/v1/entities/user.diet/history", headers=headers["planner"]).json()
    assert [c["status"] for c in history] == ["retracted"]
    events = client.get("/v1/events", params={"since": "start", "kinds": "claim_retracted"},
                        headers=headers["planner"]).json()["events"]
    assert [(e["claim_id"], e["decided_by"]) for e in events] == [("c-1", "ana")]
    again = client.post("/v1/claims/c-1/retract", headers=headers["root"], json={})
    assert again.status_code == 200 and again.json()["already"] is True and again.json()["decided_by"] == "ana"


def test_decided_by_comes_from_the_token_never_the_body(http):
    client, headers, _ = http
    answer = client.post("/v1/claims/c-1/retract", headers=headers["ana"], json={"decided_by": "mallory"})
    assert answer.status_code == 422 and answer.headers["content-type"] == MEDIA_TYPE


def test_unknown_claim_and_bad_input(http):
    client, headers, vault = http
    missing = client.post("/v1/claims/nope/retract", headers=headers["ana"], json={})
    assert missing.status_code == 404 and missing.json()["type"].endswith(":ClaimNotFound")
    long = client.post("/v1/claims/c-1/retract", headers=headers["ana"], json={"note": "x" * 5000})
    assert long.status_code == 422 and long.headers["content-type"] == MEDIA_TYPE
    assert client.post("/v1/claims/c-1/retract", headers=headers["ana"], json={"note": 3}).status_code == 422
    assert client.post("/v1/claims/c-1/retract", json={}).status_code == 401
    assert vault.claim("c-1").status == "active"


def test_the_route_is_in_the_openapi_schema(http):
    client, headers, _ = http
    schema = client.get("/openapi.json").json()
    op = schema["paths"]["/v1/claims/{claim_id}/retract"]["post"]
    assert {"200", "403", "404", "422"} <= set(op["responses"])
    assert "retracted" in schema["components"]["schemas"]["Status"]["enum"]


def test_a_resolver_forgets_an_entity_and_a_retry_changes_nothing(http):
    client, headers, vault = http
    vault.set_strategy("user.diet", "authority")
    vault.set_authority("planner", "user.diet", 0.9)
    vault.agent("chat").add_facts(Fact("user.diet", "The user eats no meat", "vegetarian", claim_id="c-2"))
    (dispute,) = vault.disputes()  # c-2 challenges c-1: both live, one of them parked
    vault.agent("planner").add_facts(Fact("user.city", "The user lives in Lisbon", "Lisbon", claim_id="c-3"))
    answer = client.post("/v1/entities/user.diet/forget", headers=headers["ana"], json={"note": "wrong user"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert sorted(r["claim"]["id"] for r in body) == ["c-1", "c-2"]
    assert {(r["claim"]["status"], r["decided_by"], r["note"], r["already"]) for r in body} == {
        ("retracted", "ana", "wrong user", False)}
    assert client.get("/v1/entities/user.diet", headers=headers["planner"]).json()["active"] == []
    assert vault.claim("c-3").status == "active"  # another entity is untouched
    assert vault.disputes() == [] and dispute.id in {d for r in body for d in r["disputes"]}
    events = client.get("/v1/events", params={"since": "start", "kinds": "claim_retracted"},
                        headers=headers["planner"]).json()["events"]
    assert sorted(e["claim_id"] for e in events) == ["c-1", "c-2"]
    again = client.post("/v1/entities/user.diet/forget", headers=headers["root"], json={})
    assert again.status_code == 200 and again.json() == []
    assert len(client.get("/v1/events", params={"since": "start", "kinds": "claim_retracted"},
                          headers=headers["planner"]).json()["events"]) == 2


def test_forget_answers_an_empty_list_for_an_entity_never_written(http):
    client, headers, _ = http
    answer = client.post("/v1/entities/user.pets/forget", headers=headers["ana"], json={})
    assert answer.status_code == 200 and answer.json() == []


def test_forget_refuses_an_agent_a_stranger_and_bad_input_and_changes_nothing(http):
    client, headers, vault = http
    denied = client.post("/v1/entities/user.diet/forget", headers=headers["planner"], json={})
    assert denied.status_code == 403 and denied.json()["type"].endswith(":Forbidden")
    assert client.post("/v1/entities/user.diet/forget", json={}).status_code == 401
    for path, body in [("/v1/entities/User%20Diet/forget", {}), ("/v1/entities/user..diet/forget", {}),
                       ("/v1/entities/user.diet/forget", {"note": "x" * 5000}),
                       ("/v1/entities/user.diet/forget", {"note": 3}),
                       ("/v1/entities/user.diet/forget", {"decided_by": "mallory"})]:
        answer = client.post(path, headers=headers["ana"], json=body)
        assert answer.status_code == 422 and answer.headers["content-type"] == MEDIA_TYPE, (path, body, answer.text)
    bad_key = client.post("/v1/entities/User%20Diet/forget", headers=headers["ana"], json={})
    assert bad_key.json()["type"].endswith(":InvalidEntity")
    assert vault.claim("c-1").status == "active"
    assert [e for e in vault.events(since="start").events if e.kind == "claim_retracted"] == []


def test_the_forget_route_is_in_the_openapi_schema(http):
    """Its answers are documented, the 404 of a typo of a stored key (EntityNotFound) too."""
    client, headers, _ = http
    schema = client.get("/openapi.json").json()
    op = schema["paths"]["/v1/entities/{entity}/forget"]["post"]
    assert {"200", "401", "403", "404", "422", "503"} <= set(op["responses"])
    typo = client.post("/v1/entities/user.diett/forget", headers=headers["ana"], json={})
    assert typo.status_code == 404 and typo.json()["suggestions"] == ["user.diet"], typo.text
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["items"]["$ref"].endswith("/RetractionOut")
    assert op["parameters"][0]["schema"]["pattern"]


def test_a_note_is_optional_and_so_is_the_body(http):
    """`curl -X POST .../retract` with no body retracts with no note (it was a 422 "body: Field required");
    a body that is there is read as before: a wrong one is still refused."""
    client, headers, vault = http
    vault.agent("planner").add_facts(Fact("user.city", "The user lives in Lisbon", "Lisbon", claim_id="c-3"))
    assert client.post("/v1/claims/c-1/retract", headers=headers["ana"], content=b"{").status_code == 422
    retracted = client.post("/v1/claims/c-1/retract", headers=headers["ana"])
    assert retracted.status_code == 200 and (retracted.json()["note"], retracted.json()["decided_by"]) == ("", "ana")
    forgotten = client.post("/v1/entities/user.city/forget", headers=headers["ana"])
    assert forgotten.status_code == 200 and [r["claim"]["id"] for r in forgotten.json()] == ["c-3"]
    assert client.post("/v1/entities/user.city/erase", headers=headers["root"]).status_code == 200
    assert vault.claim("c-3").text == "[erased]"
    schema = client.get("/openapi.json").json()["paths"]
    assert not any(schema[p]["post"]["requestBody"].get("required") for p in (
        "/v1/claims/{claim_id}/retract", "/v1/entities/{entity}/forget", "/v1/entities/{entity}/erase"))
