"""One view of a dispute across reads (QA round 95, F4): after the chosen claim's agent
updates it, `get().disputes[].incumbents` names the live claim, as `dispute(id)` and
`GET /v1/disputes` do, and the claim in the incumbent's place is the dispute's candidate."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import Fact, VaultClient


def sticky(vault) -> dict[str, str]:
    """A person chose chat's EST over the scheduler's PST; the scheduler says PST again (parked,
    needs_user); then chat updates its own claim to CST. Returns the ids."""
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    vault.set_authority("chat", "user.timezone", 0.2)
    say = lambda agent, text, value: vault.agent(agent).add_facts([Fact("user.timezone", text, value=value)]).decisions[0]  # noqa: E731
    say("scheduler", "The user is in PST", "PST")
    est = say("chat", "The user is in EST", "EST")
    vault.resolve_dispute(est.dispute_id, winner=est.claim_id, decided_by="user", note="moved")
    again = say("scheduler", "The user is in PST again", "PST")
    assert again.dispute_id is not None
    cst = say("chat", "The user is in CST", "CST")
    assert cst.superseded == (est.claim_id,)
    return {"est": est.claim_id, "cst": cst.claim_id, "pst": again.claim_id, "dispute": again.dispute_id}


def test_the_entity_view_names_the_live_incumbent(authority):
    ids = sticky(authority)
    view = authority.get("user.timezone")
    assert view.contested
    (shown,) = view.disputes
    assert shown.incumbents == authority.dispute(ids["dispute"]).incumbents == (ids["cst"],)
    assert {c.claim.id: c.dispute_id for c in view.candidates} == {ids["cst"]: ids["dispute"], ids["pst"]: ids["dispute"]}
    # an as_of read of now builds the same view
    assert authority.get("user.timezone", as_of=authority.claim(ids["cst"]).recorded_at).disputes[0].incumbents == (ids["cst"],)
    # the id a client takes from the entity view resolves the dispute
    authority.resolve_dispute(ids["dispute"], winner=view.disputes[0].incumbents[0], decided_by="user")
    assert [c.value for c in authority.get("user.timezone").active] == ["CST"]


def test_a_past_view_keeps_the_incumbent_of_its_time(authority):
    ids = sticky(authority)
    before = authority.claim(ids["pst"]).recorded_at  # the dispute opened; chat had not updated yet
    (then,) = authority.get("user.timezone", as_of=before).disputes
    assert then.incumbents == (ids["est"],)


def test_over_http_the_entity_and_the_disputes_agree(served_app):
    ids = sticky(served_app.vault)
    headers = {"Authorization": f"Bearer {served_app.token('ana', 'resolver')}"}
    entity = httpx.get(f"{served_app.url}/v1/entities/user.timezone", headers=headers).json()
    listed = httpx.get(f"{served_app.url}/v1/disputes", headers=headers).json()
    rows = listed["disputes"] if isinstance(listed, dict) else listed
    (row,) = [d for d in rows if d["id"] == ids["dispute"]]
    (shown,) = entity["disputes"]
    assert shown["incumbents"] == row["incumbents"] == [ids["cst"]]
    assert {c["claim"]["id"]: c["dispute_id"] for c in entity["candidates"]} == {
        ids["cst"]: ids["dispute"], ids["pst"]: ids["dispute"]}
    with VaultClient(served_app.url, served_app.token("ops", "resolver")) as client:
        assert client.get("user.timezone").disputes[0].incumbents == client.dispute(ids["dispute"]).incumbents


@pytest.fixture
def authority(make_vault):
    return make_vault()
