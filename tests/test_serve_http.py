"""The HTTP app in-process (an embedded vault behind `create_app`, Starlette's test
client): HEAD on the read routes, times out of range in query parameters, and the
position of the bad fact in a write's error."""

from __future__ import annotations

import time

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
    headers = {name: {"Authorization": f"Bearer {tokens.add(name)[0]}"} for name in ("planner", "chat")}
    yield client, headers
    client.close()


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/v1/whoami", "/v1/policy", "/v1/registry",
                                  "/v1/search?q=diet", "/v1/entities/user.diet", "/v1/entities/user.diet/history",
                                  "/v1/claims/c-1", "/v1/disputes", "/v1/events?since=start", "/inbox"])
def test_head_answers_like_get_without_a_body(http, path):
    client, headers = http
    sent = {} if path == "/inbox" else headers["chat"]  # the inbox's sign-in form: no agent token there
    got, head = client.get(path, headers=sent), client.head(path, headers=sent)
    assert got.status_code == head.status_code == 200, (got.status_code, head.status_code)
    assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


@pytest.mark.parametrize("path", ["/healthz", "/v1/whoami", "/v1/policy", "/v1/entities/user.diet", "/v1/claims/c-1",
                                  "/v1/claims/nope", "/v1/nothing", "/inbox"])
def test_head_declares_the_length_get_sends_and_sends_no_body(http, path):
    """RFC 9110 9.3.2 / 8.6: a HEAD answer may carry the Content-Length its GET would have,
    never a body: the same headers as GET (errors too), zero bytes after them."""
    client, headers = http
    sent = {} if path == "/inbox" else headers["chat"]
    got, head = client.get(path, headers=sent), client.head(path, headers=sent)
    assert head.status_code == got.status_code and head.content == b""
    assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))


def test_head_without_a_token_or_on_a_stream(http):
    client, headers = http
    refused = client.head("/v1/whoami")
    assert refused.status_code == 401 and refused.content == b"" and refused.headers["content-type"] == MEDIA_TYPE
    assert client.head("/v1/facts", headers=headers["chat"]).status_code == 405  # a POST route stays one
    refused = client.delete("/v1/policy", headers=headers["chat"])
    assert refused.status_code == 405 and set(refused.headers["allow"].split(", ")) == {"GET", "HEAD", "PUT", "PATCH"}
    started = time.monotonic()
    stream = client.head("/v1/events", headers={**headers["chat"], "Accept": "text/event-stream"})
    assert stream.status_code == 200 and stream.content == b"" and stream.headers["content-type"].startswith(
        "text/event-stream") and time.monotonic() - started < 5


@pytest.mark.parametrize("as_of", ["1e12", "1e300", "-1e11", "1E12", "inf"])
@pytest.mark.parametrize("path", ["/v1/search", "/v1/entities/user.diet"])
def test_an_as_of_out_of_range_gets_the_library_error(http, as_of, path):
    client, headers = http
    query = {"q": "diet"} if path == "/v1/search" else {}
    answer = client.get(path, params={**query, "as_of": as_of}, headers=headers["chat"])
    body = answer.json()
    assert answer.status_code == 422 and answer.headers["content-type"] == MEDIA_TYPE
    assert body["type"].endswith(":InvalidInput"), body
    assert "outside the representable times" in body["detail"] or "finite" in body["detail"]
    assert client.get(path, params={**query, "as_of": "1.7e9"}, headers=headers["chat"]).status_code == 200


def test_a_write_error_names_the_position_of_the_bad_fact(http):
    client, headers = http
    ok = {"entity": "user.pets", "text": "The user has a cat", "value": "cat"}
    theirs = client.post("/v1/facts", headers=headers["chat"], json={"facts": [
        ok, {"entity": "user.diet", "text": "The user eats fish", "value": "fish", "claim_id": "c-1"}]}).json()
    assert (theirs["index"], theirs["field"], theirs["claim_id"]) == (1, "claim_id", "c-1")
    assert theirs["detail"].startswith("fact 1: ")
    entity = client.post("/v1/facts", headers=headers["chat"], json={"facts": [
        ok, {"entity": "User Diet!", "text": "The user eats fish"}]}).json()
    assert entity["type"].endswith(":InvalidEntity") and (entity["index"], entity["entity"]) == (1, "User Diet!")
    assert "index" not in client.get("/v1/entities/User%20Diet!", headers=headers["chat"]).json()


@pytest.mark.parametrize("body", [{"text": "I'm vegan", "messages": [{"role": "user", "content": "I'm vegan"}]}, {}])
def test_messages_with_both_text_and_messages_or_neither_is_request_validation(http, body):
    """QA round 91: docs/http.md says an InvalidInput from request validation carries `errors`."""
    client, headers = http
    answer = client.post("/v1/messages", json=body, headers=headers["chat"])
    problem = answer.json()
    assert answer.status_code == 422 and problem["type"].endswith(":InvalidInput")
    assert "give either messages or text" in problem["detail"]
    assert problem["errors"] and problem["errors"][0]["loc"] == ["body"]
