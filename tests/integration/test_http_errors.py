"""Identity and errors over HTTP: who writes is the token's principal, and every error
status the API documents is reached by a real request, answered as problem details
of the error's type, and leaves the store as it was."""

from __future__ import annotations

import uuid

import httpx
import pytest

from vault_ray import (
    ClaimNotFound,
    ClusterError,
    DisputeCapExceeded,
    DisputeError,
    DisputeNotFound,
    Fact,
    Forbidden,
    HashingEmbedder,
    InvalidEntity,
    InvalidFact,
    InvalidInput,
    PayloadTooLarge,
    RateLimit,
    RateLimited,
    UnknownAgent,
    Vault,
    VaultClient,
)
from vault_ray.problems import MEDIA_TYPE, TYPE_PREFIX

from .served import served

BODY_LIMIT = 16 * 1024


@pytest.fixture(scope="module")
def store(serve_port, tmp_path_factory):
    with served(tmp_path_factory.mktemp("errors"), serve_port, max_body_bytes=BODY_LIMIT) as found:
        yield found


@pytest.fixture(scope="module")
def tokens(store):
    return {"a": store.token("agent-a"), "b": store.token("agent-b"), "admin": store.token("ops", admin=True)}


def snapshot(store):
    vault = store.vault
    return (sorted((c.id, str(c.status), c.agent) for c in vault.claims()),
            sorted((d.id, str(d.status)) for d in vault.disputes(None)), len(vault.events()), vault.policy)


def call(store, method, path, token=None, **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, store.url + path, headers={**headers, **kw.pop("headers", {})}, timeout=60, **kw)


def problem(resp, status, error):
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith(MEDIA_TYPE)
    body = resp.json()
    assert body["type"] == TYPE_PREFIX + error.__name__ and body["status"] == status and body["detail"]
    return body


def test_identity_comes_from_the_token_never_from_the_body(store, tokens):
    a = store.client("agent-a")
    assert a.whoami() == {"principal": "agent-a", "role": "agent"}
    before = snapshot(store)
    named = call(store, "POST", "/v1/facts", tokens["a"],
                 json={"agent": "agent-b", "facts": [{"entity": "user.diet", "text": "vegan"}]})
    assert problem(named, 422, InvalidInput)["errors"][0]["loc"] == ["body", "agent"]
    in_fact = call(store, "POST", "/v1/facts", tokens["a"],
                   json={"facts": [{"entity": "user.diet", "text": "vegan", "agent": "agent-b"}]})
    problem(in_fact, 422, InvalidInput)
    assert snapshot(store) == before
    (d,) = a.add_facts([Fact("user.diet", "The user is vegan", "vegan", meta={"agent": "agent-b"})]).decisions
    (t,) = a.add("I'm in PST").decisions
    assert {store.vault.claim(d.claim_id).agent, store.vault.claim(t.claim_id).agent} == {"agent-a"}
    assert [h.claim.agent for h in store.client("agent-b").search("vegan", mine=True)] == []


def test_missing_unknown_and_revoked_tokens_get_401(store, tokens):
    before = snapshot(store)
    body = {"facts": [{"entity": "user.job", "text": "The user is a nurse"}]}
    revoked = store.token("leaver")
    assert call(store, "GET", "/v1/whoami", revoked).status_code == 200
    store.tokens.revoke("leaver")  # the running replicas read the token file again: no restart
    for token, headers in [(None, {}), ("vr_00000000_nope", {}), (revoked, {}),
                           (None, {"Authorization": "Basic YWdlbnQtYTpzZWNyZXQ="}), (tokens["a"] + "x", {})]:
        for method, path in [("POST", "/v1/facts"), ("GET", "/v1/search?q=job"), ("GET", "/v1/disputes")]:
            resp = call(store, method, path, token, headers=headers, json=body if method == "POST" else None)
            problem(resp, 401, UnknownAgent)
            assert resp.headers["www-authenticate"].startswith("Bearer")
    with VaultClient(store.url, revoked) as client, pytest.raises(UnknownAgent) as err:
        client.whoami()
    assert "revoked" in str(err.value)
    assert snapshot(store) == before


ADMIN_ROUTES = [
    ("POST", "/v1/disputes/dsp-0-x/resolve", {"winner": "c"}),
    ("PUT", "/v1/policy", {}),
    ("POST", "/v1/policy/authority", {"agent": "agent-a", "pattern": "user.*", "weight": 1.0}),
    ("POST", "/v1/policy/strategy", {"pattern": "user.*", "strategy": "authority"}),
    ("POST", "/v1/policy/cardinality", {"pattern": "user.*", "cardinality": "many"}),
    ("PUT", "/v1/policy/high-stakes", {"patterns": []}),
    ("POST", "/v1/policy/high-stakes", {"pattern": "user.calendar.*"}),
    ("DELETE", "/v1/policy/high-stakes/user.payment.*", None),
    ("PUT", "/v1/policy/rules", {"reasserted_by": 2}),
    ("PUT", "/v1/registry/user.shoe_size", {"description": "shoe size"}),
    ("POST", "/v1/rules/apply", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ROUTES, ids=[p for _, p, _ in ADMIN_ROUTES])
def test_an_agent_token_on_an_admin_route_gets_403(store, tokens, method, path, body):
    before = snapshot(store)
    found = problem(call(store, method, path, tokens["b"], json=body), 403, Forbidden)
    needed = "resolver" if path.endswith("/resolve") else "admin"  # settling a dispute takes a resolver
    assert (found["principal"], found["role"], found["needed"]) == ("agent-b", "agent", needed)
    if needed == "admin":  # and a resolver changes no policy
        found = problem(call(store, method, path, store.token("dana", role="resolver"), json=body), 403, Forbidden)
        assert (found["role"], found["needed"]) == ("resolver", "admin")
    assert snapshot(store) == before


def test_not_found_conflicts_and_invalid_input_change_nothing(store, tokens):
    a, b, admin = store.client("agent-a"), store.client("agent-b"), store.client("ops", admin=True)
    admin.set_strategy("user.location", "authority")
    admin.set_authority("agent-a", "user.location", 0.9)
    a.add("I live in Berlin")
    (challenge,) = b.add("I live in Paris").decisions
    before = snapshot(store)
    with pytest.raises(ClaimNotFound) as err:
        a.claim("no-such-claim")
    assert err.value.claim_id == "no-such-claim"
    problem(call(store, "GET", "/v1/claims/nope/explain", tokens["a"]), 404, ClaimNotFound)
    with pytest.raises(DisputeNotFound):
        a.dispute("dsp-0-nothing")
    with pytest.raises(DisputeError):  # a winner outside the dispute
        admin.resolve_dispute(challenge.dispute_id, "not-a-member")
    problem(call(store, "POST", f"/v1/disputes/{challenge.dispute_id}/resolve", tokens["admin"],
                 json={"winner": "not-a-member"}), 409, DisputeError)
    invalid = [
        (lambda: a.add_facts([Fact("User Diet!", "bad key")]), InvalidEntity),
        (lambda: a.add_facts([Fact("user.diet", "   ")]), InvalidFact),
        (lambda: a.add_facts([Fact("user.diet", "x" * 2001)]), InvalidFact),
        (lambda: a.add_facts([Fact("user.diet", "vegan", confidence=1.5)]), InvalidFact),
        (lambda: a.add_facts([]), InvalidFact),
        (lambda: a.search("  "), InvalidInput),
        (lambda: a.get("Not An Entity!"), InvalidEntity),
    ]
    for attempt, error in invalid:
        with pytest.raises(error):
            attempt()
    raw_invalid = [
        ("POST", "/v1/messages", {"messages": [{"content": "I'm in EST"}]}),  # no role
        ("POST", "/v1/messages", {"messages": [{"role": "user", "content": None}]}),
        ("POST", "/v1/messages", {"messages": [], "text": "both"}),
        ("POST", "/v1/facts", {"facts": [{"entity": "user.diet", "text": "v", "confidence": "high"}]}),
        ("GET", "/v1/search?q=x&k=0", None), ("GET", "/v1/search?q=x&k=101", None),
        ("GET", "/v1/disputes?status=pending", None), ("GET", "/v1/entities/Bad Entity", None),
        ("GET", "/v1/search?q=x&as_of=yesterday", None),
        # a one-value parameter given twice, and a search naming itself and another agent
        ("GET", "/v1/search?q=x&k=5&k=6", None), ("GET", "/v1/disputes?status=open&status=all", None),
        ("GET", "/v1/search?q=x&mine=true&agent=agent-b", None),
    ]
    for method, path, body in raw_invalid:
        problem(call(store, method, path, tokens["a"], json=body), 422, InvalidInput if "Bad" not in path
                else InvalidEntity)
    not_json = call(store, "POST", "/v1/facts", tokens["a"], content=b"{not json",
                    headers={"Content-Type": "application/json"})
    problem(not_json, 422, InvalidInput)
    assert call(store, "GET", "/v1/search?q=x&as_of=1700000000000", tokens["a"]).status_code == 422  # seconds: year 55,840
    untyped = call(store, "POST", "/v1/facts", tokens["a"], content=b'{"facts": []}', headers={"Content-Type": "text/plain"})
    assert "Content-Type: application/json" in problem(untyped, 422, InvalidInput)["detail"]
    assert call(store, "GET", "/v1/events?kinds=claim_added&kinds=dispute_opened&limit=1", tokens["a"]).status_code == 200
    assert snapshot(store) == before
    answer = store.vault.dispute(challenge.dispute_id)
    assert answer.status == "open"  # the 409s resolved nothing


def test_the_dispute_cap_is_409_and_the_rate_limit_429(store, tokens):
    admin, c = store.client("ops", admin=True), store.client("agent-c")
    admin.set_strategy("user.allergies", "authority")  # many-valued: one agent may challenge two of its values
    admin.set_authority("agent-a", "user.allergies", 0.9)
    policy = admin.policy()
    admin.set_policy(policy.updated(max_open_disputes=1))
    store.client("agent-a").add_facts([Fact("user.allergies", f"not allergic to {x}", f"not:{x}") for x in ("nuts", "fish")])
    (parked,) = c.add_facts([Fact("user.allergies", "allergic to nuts", "nuts")]).decisions
    assert parked.outcome == "disputed"
    before = snapshot(store)
    with pytest.raises(DisputeCapExceeded) as err:
        c.add_facts([Fact("user.allergies", "allergic to fish", "fish")])
    assert (err.value.agent, err.value.entity, err.value.cap) == ("agent-c", "user.allergies", 1)
    assert snapshot(store) == before

    admin.set_policy(admin.policy().updated(rate_limit=RateLimit(rate=0.01, burst=1), max_open_disputes=3))
    token_d = store.token("agent-d")
    d = VaultClient(store.url, token_d)
    cat = {"json": {"facts": [{"entity": "user.pets", "text": "The user has a cat", "value": "cat"}]},
           "headers": {"Idempotency-Key": "pets-1"}}
    first = call(store, "POST", "/v1/facts", token_d, **cat)  # the burst
    before = snapshot(store)
    again = call(store, "POST", "/v1/facts", token_d, **cat)  # a retry (after a timeout) writes nothing: it spends nothing
    assert again.status_code == 200 and again.json() == first.json()
    resp = call(store, "POST", "/v1/facts", token_d,
                json={"facts": [{"entity": "user.pets", "text": "The user has a dog", "value": "dog"}]})
    body = problem(resp, 429, RateLimited)
    assert body["agent"] == "agent-d" and body["retry_after"] > 0
    assert int(resp.headers["retry-after"]) >= 1
    with pytest.raises(RateLimited):
        d.add_facts([Fact("user.pets", "The user has a dog", "dog")])
    assert snapshot(store) == before
    admin.set_policy(admin.policy().updated(rate_limit=None))
    d.close()


def test_a_body_over_the_limit_gets_413(store, tokens):
    before = snapshot(store)
    facts = [{"entity": "user.note", "text": "n" * 1000, "claim_id": uuid.uuid4().hex} for _ in range(20)]
    big = call(store, "POST", "/v1/facts", tokens["a"], json={"facts": facts})
    found = problem(big, 413, PayloadTooLarge)
    assert found["limit"] == BODY_LIMIT and found["size"] > BODY_LIMIT

    def chunks():  # no Content-Length: the body is counted as it streams in
        for _ in range(40):
            yield b" " * 1024

    streamed = call(store, "POST", "/v1/facts", tokens["a"], content=chunks(),
                    headers={"Content-Type": "application/json"})
    problem(streamed, 413, PayloadTooLarge)
    with pytest.raises(PayloadTooLarge):
        store.client("agent-a").add_facts([Fact("user.note", "n" * 1000) for _ in range(20)])
    assert snapshot(store) == before


def test_unknown_routes_and_methods_are_problem_details_too(store, tokens):
    for method, path, status in [("GET", "/v1/nothing", 404), ("DELETE", "/v1/policy", 405)]:
        resp = call(store, method, path, tokens["a"])
        assert resp.status_code == status and resp.headers["content-type"].startswith(MEDIA_TYPE)
        assert resp.json()["type"] == "about:blank"
        if status == 405:  # every method the path takes, not the first route's
            assert set(resp.headers["allow"].split(", ")) == {"GET", "HEAD", "PUT", "PATCH"}
    for path in ("/healthz", "/readyz", "/v1/whoami", "/v1/policy"):  # HEAD: GET's answer, no body (through Serve)
        got, head = call(store, "GET", path, tokens["a"]), call(store, "HEAD", path, tokens["a"])
        assert head.status_code == got.status_code == 200 and head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path


def test_store_trouble_is_503(serve_port, tmp_path):
    from vault_ray.actors import shutdown

    with served(tmp_path, serve_port) as store:
        a = store.client("agent-a", retries=0)
        a.add_facts([Fact("user.diet", "The user is vegan", "vegan")])
        before = snapshot(store)
        assert httpx.get(store.url + "/readyz").status_code == 200
        shutdown(namespace=store.vault.info().namespace)  # the store's actors stop; the replica stays
        with pytest.raises(ClusterError):
            a.add_facts([Fact("user.diet", "The user is vegetarian", "vegetarian")])
        for path in ("/v1/disputes", "/readyz"):
            resp = call(store, "GET", path, store.token("agent-a"))
            problem(resp, 503, ClusterError)
        with Vault.open(store.vault.info().store, embedder=HashingEmbedder()) as vault:  # the store is free again
            assert sorted((c.id, str(c.status), c.agent) for c in vault.claims()) == before[0]
