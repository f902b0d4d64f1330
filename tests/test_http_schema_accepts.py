"""`/openapi.json` says what the server takes: schemathesis generates requests that fit the
schema for every route of the app (in-process, an embedded store behind `create_app`,
an admin token), bounded in examples, and checks that none is refused as invalid (422)
but for the reasons no schema can say (`http_schema_checks.BEYOND_THE_SCHEMA`), that no
answer is a 5xx and that every answer conforms to the schema. The live service runs the
same checks, with data that does not fit too (tests/integration/test_http_schema.py)."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from http_schema_checks import valid_data_accepted  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance  # noqa: E402

from vault_ray import Fact  # noqa: E402
from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402

EXAMPLES = 20
CHECKS = [not_a_server_error, valid_data_accepted, content_type_conformance, response_schema_conformance]


@pytest.fixture
def app(make_vault, tmp_path):
    vault = make_vault()
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("agent-a", "user.timezone", 0.9)
    vault.agent("agent-a").add("I'm in PST")
    vault.agent("agent-b").add_facts([Fact("user.timezone", "The user is in EST", "EST")])  # a dispute to find
    tokens = TokenStore(tmp_path / "tokens.json")
    return create_app(local_service(vault, tokens)), tokens.add("schema-admin", "admin")[0]


def test_every_request_the_schema_takes_is_taken(app):
    asgi, token = app
    schema = schemathesis.openapi.from_asgi("/openapi.json", asgi)
    headers = {"Authorization": f"Bearer {token}"}
    failures: dict[str, BaseException] = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def taken(case):
            case.call_and_validate(headers=headers, checks=CHECKS)

        try:
            taken()
        except (Exception, BaseExceptionGroup) as exc:  # every route is tried; all failures are reported
            failures[operation.label] = exc
    assert not failures, "\n\n".join(f"{label}: {exc}" for label, exc in failures.items())


def test_the_rules_of_the_core_are_in_the_schema(app):
    """What the QA pass found refused though the schema took it: each is in the schema now."""
    import re

    asgi, _ = app
    spec = schemathesis.openapi.from_asgi("/openapi.json", asgi).raw_schema
    bodies = spec["components"]["schemas"]
    session = bodies["FactsIn"]["properties"]["session"]
    assert session["minLength"] == 1 and not re.search(session["pattern"], " \t") and re.search(session["pattern"], "s1")
    assert bodies["ResolveIn"]["properties"]["winner"]["minLength"] == 1
    assert bodies["StrategyIn"]["properties"]["pattern"]["minLength"] == 1
    assert bodies["RulesIn"]["properties"]["stale_after_s"]["exclusiveMinimum"] == 0
    assert bodies["RateLimitBody"]["properties"]["rate"]["exclusiveMinimum"] == 0
    assert bodies["RateLimitBody"]["properties"]["burst"]["minimum"] == 1
    assert bodies["RegistryEntryIn"]["properties"]["examples"]["items"]["minLength"] == 1
    note = bodies["RetractIn"]["properties"]["note"]["pattern"]
    assert re.search(note, "") and re.search(note, "tab\tand\nlines") and not re.search(note, "a\x05b")
    params = {p["name"]: p for p in spec["paths"]["/v1/claims/{claim_id}"]["get"]["parameters"]}
    assert not re.search(params["claim_id"]["schema"]["pattern"], "a\x05b")
    params = {p["name"]: p for p in spec["paths"]["/v1/events"]["get"]["parameters"]}
    cursor = params["since"]["schema"]["pattern"]
    assert all(re.search(cursor, c) for c in ("start", "now", "v1", "v1.0-12.3-5")) and not re.search(cursor, "0000")


def test_meta_rules_are_in_the_schema_and_what_it_takes_is_stored(app):
    """`meta` (any JSON object): its keys and strings at every level without DEL or C1 control
    characters, its depth as `x-maxDepth`; what the schema takes is stored as sent."""
    import re

    from fastapi.testclient import TestClient

    asgi, token = app
    client = TestClient(asgi)
    bodies = client.get("/openapi.json").json()["components"]["schemas"]
    meta = bodies["FactIn"]["properties"]["meta"]
    assert meta["x-maxDepth"] == 32 and not re.search(meta["propertyNames"]["pattern"], "k\x7f")
    strings = [s for s in bodies["MetaValue"]["anyOf"] if s.get("type") == "string"]
    assert len(strings) == 1 and not re.search(strings[0]["pattern"], "a\x96b") and re.search(strings[0]["pattern"], "tab\t")
    nested = [s for s in bodies["MetaValue"]["anyOf"] if s.get("type") == "object"]
    assert nested[0]["additionalProperties"] == {"$ref": "#/components/schemas/MetaValue"}
    sent = {"k\x05": ["é", 1, 2.5, True, None, {"deep": [[{"x": "tab\there"}]]}]}
    headers = {"Authorization": f"Bearer {token}"}
    taken = client.post("/v1/facts", headers=headers, json={"facts": [{"entity": "user.pet", "text": "A cat", "meta": sent}]})
    assert taken.status_code == 200, taken.text
    (decision,) = taken.json()["decisions"]
    assert client.get(f"/v1/claims/{decision['claim_id']}", headers=headers).json()["meta"] == sent
    for bad in ({"k": "a\x96b"}, {"k\x7f": 1}, {"k": [{"deeper": "\x85"}]}):  # what the schema refuses, refused
        refused = client.post("/v1/facts", headers=headers, json={"facts": [{"entity": "user.pet", "text": "A dog",
                                                                             "meta": bad}]})
        assert refused.status_code == 422 and refused.json()["field"] == "meta", refused.text
