"""The OpenAPI schema is the contract: schemathesis generates requests for every
route of the live app (valid tokens; data that fits the schema and data that does
not), bounded in examples and time, and checks that no answer is a 5xx, that
every answer conforms to the schema (status, content type, body, headers), that
data the schema refuses is refused, and that data it takes is not refused as
invalid (but for the reasons no schema can say: `http_schema_checks`)."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from http_schema_checks import valid_data_accepted  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.core.parameters import ParameterLocation  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from vault_ray import Fact  # noqa: E402

from .served import served  # noqa: E402

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance, negative_data_rejection, valid_data_accepted]
# per route and mode: tests/test_http_schema_accepts.py fuzzes the same app in-process (20 each); this checks it
# through Serve, where a case costs an HTTP round trip through the proxy (12 each took about 44 s of the CI run)
EXAMPLES = 6


@pytest.fixture(scope="module")
def api(serve_port, tmp_path_factory):
    with served(tmp_path_factory.mktemp("schema"), serve_port) as store:
        admin = store.client("ops", admin=True)
        admin.set_strategy("user.timezone", "authority")
        admin.set_authority("agent-a", "user.timezone", 0.9)
        store.client("agent-a").add("I'm in PST")
        store.client("agent-b").add_facts([Fact("user.timezone", "The user is in EST", "EST")])  # a dispute to find
        yield store


@pytest.fixture(scope="module")
def api_schema(api):
    return schemathesis.openapi.from_url(api.url + "/openapi.json")


@pytest.fixture(scope="module")
def admin_token(api):
    return api.token("schema-admin", admin=True)


def test_the_schema_documents_every_route(api_schema):
    paths = api_schema.raw_schema["paths"]
    assert set(paths) == {
        "/v1/messages", "/v1/facts", "/v1/search", "/v1/entities/{entity}", "/v1/entities/{entity}/history",
        "/v1/entities/{entity}/forget", "/v1/entities/{entity}/erase",
        "/v1/claims/{claim_id}", "/v1/claims/{claim_id}/explain", "/v1/claims/{claim_id}/retract", "/v1/disputes",
        "/v1/disputes/{dispute_id}",
        "/v1/disputes/{dispute_id}/resolve", "/v1/policy", "/v1/policy/authority", "/v1/policy/strategy",
        "/v1/policy/cardinality", "/v1/policy/high-stakes", "/v1/policy/high-stakes/{pattern}", "/v1/policy/rules",
        "/v1/registry", "/v1/registry/{key}",
        "/v1/rules/apply", "/v1/whoami", "/v1/events", "/healthz", "/readyz", "/metrics"}
    for path, operations in paths.items():
        for method, operation in operations.items():
            if path.startswith("/v1/"):  # every API route says how it fails: problem details
                assert {"401", "422", "503"} <= set(operation["responses"]), (method, path)
                assert operation["security"] == [{"HTTPBearer": []}], (method, path)


def test_every_route_answers_as_documented(api, api_schema, admin_token):
    """Each operation, with data that fits the schema and data that does not. (Driven
    through hypothesis directly: schemathesis' pytest plugin does not run on this pytest.)"""
    headers = {"Authorization": f"Bearer {admin_token}"}
    failures: dict[str, BaseException] = {}  # schemathesis reports failures as (Base)ExceptionGroups
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 25
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                      suppress_health_check=list(HealthCheck))
            def answers_as_documented(case):
                # a case whose headers are the invalid part goes as generated: our token would repair it
                unauthenticated = case.meta is not None and case.meta.is_negative_at(ParameterLocation.HEADER)
                case.call_and_validate(base_url=api.url, headers=None if unauthenticated else headers, checks=CHECKS,
                                       timeout=60)

            try:
                answers_as_documented()
            except Unsatisfiable:  # nothing to make invalid (a route without parameters)
                continue
            except (Exception, BaseExceptionGroup) as exc:  # every route is tried; all failures are reported
                failures[f"{operation.label} ({mode.value})"] = exc
    assert not failures, "\n\n".join(f"{label}: {exc}" for label, exc in failures.items())
