"""The one mapping between the error tree and HTTP problem details, both ways."""

from __future__ import annotations

import json

import pytest

from vault_ray import errors
from vault_ray.problems import (
    MEDIA_TYPE,
    STATUS,
    error_classes,
    from_problem,
    headers_for,
    status_of,
    to_problem,
    type_uri,
)

SAMPLES: dict[str, errors.VaultError] = {
    "VaultError": errors.VaultError("something of ours failed"),
    "InvalidInput": errors.InvalidInput("query must be a non-empty string"),
    "InvalidEntity": errors.InvalidEntity("User Diet!", "fact 0"),
    "InvalidFact": errors.InvalidFact("text must be a non-empty string", index=2, field="text"),
    "InvalidEmbedding": errors.InvalidEmbedding("wrong size", expected_dim=384),
    "InvalidPolicy": errors.InvalidPolicy("bad weight", value=1.5),
    "NothingToReindex": errors.NothingToReindex("the store already uses 'local' (384 dimensions): nothing to reindex"),
    "UnknownAgent": errors.UnknownAgent("a1b2c3d4", "revoked"),
    "PayloadTooLarge": errors.PayloadTooLarge(1024, 4096),
    "Forbidden": errors.Forbidden("agent-a", "agent", "admin"),
    "NotFound": errors.NotFound("no such thing"),
    "ClaimNotFound": errors.ClaimNotFound("c-1"),
    "DisputeNotFound": errors.DisputeNotFound("dsp-0-x"),
    "EntityNotFound": errors.EntityNotFound("user.emial", ["user.email"], action="forget"),
    "DisputeError": errors.DisputeError("already resolved", dispute_id="dsp-1-y"),
    "DisputeCapExceeded": errors.DisputeCapExceeded("agent-b", "user.timezone", 3),
    "PolicyConflict": errors.PolicyConflict(12, 14),
    "RateLimited": errors.RateLimited("agent-a", 2.25),
    "StoreError": errors.StoreError("cannot read the token file"),
    "StoreLocked": errors.StoreLocked("/data/store"),
    "StoreLocked (up)": errors.StoreLocked("/data/store", holder="cluster", address="10.0.0.5:6379"),
    "StoreLocked (up, namespace)": errors.StoreLocked("/data/store", holder="cluster", address="10.0.0.5:6379",
                                                      namespace="v2"),
    "StoreClosed": errors.StoreClosed("this vault is closed"),
    "StoreMismatch": errors.StoreMismatch("16 partitions, not 4", path="/data/store"),
    "StorageFailure": errors.StorageFailure("disk full", partition=3),
    "RestoreUnfinished": errors.RestoreUnfinished("/data/store", "/backups/export", "2026-12-06T02:15:00+00:00",
                                                  target="--store /data/store"),
    "ExportError": errors.ExportError("'/data/export' is not a valid vault-ray export: no manifest.json", path="/data/export"),
    "ReasonerError": errors.ReasonerError("malformed answer twice", answer={"x": [1, 2]}),
    "EmbedderError": errors.EmbedderError("cannot make the OpenAI client: no api_key"),
    "ClusterError": errors.ClusterError("no answer from the cluster within 60s"),
}


def test_every_error_class_has_a_sample_here():
    assert set(error_classes()) == {name.split(" ")[0] for name in SAMPLES}  # a new error class must be placed in the mapping


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_problem_rebuilds_the_same_error(name):
    error = SAMPLES[name]
    body = json.loads(json.dumps(to_problem(error, "/v1/facts")))  # through JSON, as on the wire
    assert body["type"] == type_uri(type(error)) and body["status"] == status_of(error)
    assert body["detail"] == str(error) and body["instance"] == "/v1/facts"
    back = from_problem(body, body["status"])
    assert type(back) is type(error)
    assert str(back) == str(error)
    assert vars(back) == json.loads(json.dumps(vars(error)))  # the fields, as JSON carries them


@pytest.mark.parametrize(
    ("name", "status"),
    [("InvalidEntity", 422), ("InvalidFact", 422), ("InvalidPolicy", 422), ("UnknownAgent", 401),
     ("PayloadTooLarge", 413), ("Forbidden", 403), ("ClaimNotFound", 404), ("DisputeNotFound", 404),
     ("DisputeError", 409), ("DisputeCapExceeded", 409), ("PolicyConflict", 409), ("RestoreUnfinished", 409),
     ("RateLimited", 429), ("StoreLocked", 503), ("StorageFailure", 503), ("ClusterError", 503),
     ("ReasonerError", 503), ("EmbedderError", 503),
     ("VaultError", 500)],
)
def test_statuses(name, status):
    assert status_of(SAMPLES[name]) == status


def test_headers_http_asks_for():
    assert headers_for(errors.RateLimited("a", 2.25)) == {"Retry-After": "3"}
    assert headers_for(errors.RateLimited("a", 0.01)) == {"Retry-After": "1"}  # whole seconds, at least one
    assert headers_for(errors.RateLimited("a", float("inf"))) == {"Retry-After": "86400"}  # a vanishing rate
    assert headers_for(errors.UnknownAgent()).get("WWW-Authenticate", "").startswith("Bearer")
    assert headers_for(errors.ClaimNotFound("x")) == {}


def test_answers_that_are_not_ours_get_the_class_of_their_status():
    assert type(from_problem({"type": "about:blank", "status": 404, "detail": "Not Found"}, 404)) is errors.NotFound
    assert type(from_problem(None, 502)) is errors.ClusterError
    assert type(from_problem({"type": "tag:vault-ray,2026:problem:FromTheFuture"}, 409)) is errors.DisputeError
    assert type(from_problem({}, 400)) is errors.InvalidInput
    assert "HTTP 503" in str(from_problem("<html>busy</html>", 503))  # type: ignore[arg-type]


def test_fields_that_are_not_json_are_sent_as_text():
    body = to_problem(errors.ReasonerError("bad", answer=object()))
    assert isinstance(body["answer"], str) and body["answer"].startswith("<object")
    assert to_problem(errors.InvalidPolicy("x", value=float("nan")))["value"] == "nan"


def test_the_table_is_ordered_most_general_last():
    assert list(STATUS)[-1] is errors.VaultError
    assert MEDIA_TYPE == "application/problem+json"


def test_docs_list_every_problem_type():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "http.md").read_text()
    for name, cls in error_classes().items():
        assert f"| `{name}` | {status_of(cls)} |" in page, name
