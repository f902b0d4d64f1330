"""A dispute a retraction left with one side, as a person meets it (QA round 93: R4, R9):
the inbox card and `vault-ray disputes` say the other side was retracted (no "vs ;"), the
card offers to retract the value left too, and `resolve_dispute` naming a retracted claim
says it was retracted and names the live claim with its value."""

from __future__ import annotations

import pytest
from test_retract_disputes import authority_vault, high_stakes, say

from vault_ray import DisputeError

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


def test_resolving_for_a_retracted_claim_names_the_live_one(make_vault):
    vault = authority_vault(make_vault, a=0.9)
    say(vault, "a", "Paris")
    b = say(vault, "b", "Berlin", seconds=10)
    c = say(vault, "c", "Berlin", seconds=20)
    vault.retract(b.claim_id, decided_by="dana")
    with pytest.raises(DisputeError) as err:
        vault.resolve_dispute(b.dispute_id, winner=b.claim_id, decided_by="dana")
    text = str(err.value)
    assert "was retracted" in text and c.claim_id in text and "not part of" not in text
    vault.resolve_dispute(b.dispute_id, winner=c.claim_id, decided_by="dana")
    assert [x.value for x in vault.get("user.location").active] == ["Berlin"]


def test_resolving_for_a_retracted_value_no_live_claim_says_lists_the_choices(make_vault):
    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana")
    with pytest.raises(DisputeError, match="was retracted.*choose one of: '\\$9000'"):
        vault.resolve_dispute(b.dispute_id, winner=a.claim_id, decided_by="dana")


def test_the_inbox_card_says_the_other_side_was_retracted_and_offers_to_retract_the_rest(make_vault, tmp_path):
    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana", note="not 5000")
    tokens = TokenStore(tmp_path / "tokens.json")
    with TestClient(create_app(local_service(vault, tokens))) as client:
        client.post("/inbox/sign-in", data={"token": tokens.add("dana", "resolver")[0]}, follow_redirects=False)
        card = client.get("/inbox").text.split(f'data-dispute="{b.dispute_id}"')[1].split("</li>")[0]
    flat = " ".join(card.split())
    assert "The other side was retracted:" in flat and "$5000" in flat and "(a) by dana" in flat
    assert "Only one value is left" in flat
    assert f'href="/inbox/claims/{b.claim_id}/retract"' in card
    assert "vs ;" not in card and "challenge repeated" not in card


def test_the_disputes_table_says_the_incumbent_was_retracted(make_vault, tmp_path):
    from typer.testing import CliRunner

    from vault_ray.cli import app

    vault, a, b = high_stakes(make_vault)
    vault.retract(a.claim_id, decided_by="dana")
    vault.close()
    shown = CliRunner().invoke(app, ["disputes", "--store", str(tmp_path / "store"), "--hashing"],
                               env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    flat = " ".join(shown.output.split())
    assert "none standing (retracted: $5000 (a)" in flat and "by dana)" in flat


def test_a_repeated_http_retraction_answers_the_first_ones_disputes(make_vault, tmp_path):
    vault, a, b = high_stakes(make_vault)
    tokens = TokenStore(tmp_path / "tokens.json")
    auth = {"Authorization": f"Bearer {tokens.add('dana', 'resolver')[0]}"}
    with TestClient(create_app(local_service(vault, tokens))) as client:
        first = client.post(f"/v1/claims/{a.claim_id}/retract", headers=auth, json={"note": "no"}).json()
        again = client.post(f"/v1/claims/{a.claim_id}/retract", headers=auth, json={"note": "no"}).json()
    assert first["disputes"] == [b.dispute_id] and not first["already"]
    assert again["already"] and again["disputes"] == first["disputes"]
