"""QA round 98 (F3, F4) over HTTP, as agents and a person see them there: an agent changing its
mind about the user's wife keeps one dispute open (no 409 for the dispute cap), and a person's
choice, retracted later, leaves a tying challenge open for a person instead of installing it."""

from __future__ import annotations

import pytest

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.fixture
def http(make_vault, tmp_path):
    vault = make_vault()
    tokens = TokenStore(tmp_path / "tokens.json")
    client = TestClient(create_app(local_service(vault, tokens)))
    roles = {"a": "agent", "b": "agent", "ana": "resolver"}
    headers = {name: {"Authorization": f"Bearer {tokens.add(name, role)[0]}"} for name, role in roles.items()}
    yield client, headers, vault
    client.close()


def write(client, headers, entity, value, at):
    answer = client.post("/v1/facts", headers=headers, json={"facts": [
        {"entity": entity, "text": f"{entity}: {value}", "value": value, "observed_at": f"2026-05-01T12:00:{at:02d}Z"}]})
    assert answer.status_code == 200, answer.text
    return answer.json()["decisions"][0]


def test_changes_of_mind_about_a_role_keep_one_dispute(http):
    client, headers, vault = http
    vault.set_strategy("user.family", "authority")
    write(client, headers["a"], "user.family", "wife:Maria", 0)
    for i, name in enumerate(["Anna", "Beth", "Cara", "Dora", "Emma"]):
        decision = write(client, headers["b"], "user.family", f"wife:{name}", 10 + i)
        assert decision["outcome"] == "disputed"
    (open_,) = client.get("/v1/disputes", headers=headers["a"]).json()
    assert open_["challenger"] == decision["claim_id"]
    view = client.get("/v1/entities/user.family", headers=headers["a"]).json()
    values = sorted(c["claim"]["value"] for c in view["candidates"])
    assert values == ["wife:Emma", "wife:Maria"]


def test_a_retracted_choice_leaves_the_challenge_to_a_person(http):
    client, headers, vault = http
    vault.set_strategy("user.timezone", "consensus")
    pst = write(client, headers["a"], "user.timezone", "PST", 0)
    est = write(client, headers["b"], "user.timezone", "EST", 10)
    resolved = client.post(f"/v1/disputes/{est['dispute_id']}/resolve", headers=headers["ana"],
                           json={"winner": pst["claim_id"]})
    assert resolved.status_code == 200, resolved.text
    again = write(client, headers["b"], "user.timezone", "EST", 20)
    dispute = client.get(f"/v1/disputes/{again['dispute_id']}", headers=headers["a"]).json()
    assert dispute["needs_user"] is True
    asked = client.get("/v1/events", headers=headers["ana"], params={"since": "start", "needs_user": "true"}).json()
    assert again["dispute_id"] in {e["dispute_id"] for e in asked["events"]}
    gone = client.post(f"/v1/claims/{pst['claim_id']}/retract", headers=headers["ana"], json={"note": "not PST"})
    assert gone.status_code == 200, gone.text
    view = client.get("/v1/entities/user.timezone", headers=headers["a"]).json()
    assert view["active"] == [] and view["contested"] is True
    assert client.get(f"/v1/disputes/{again['dispute_id']}", headers=headers["a"]).json()["status"] == "open"
