"""The inbox page and the resolver role, through the app in-process (an embedded vault
behind `create_app`, Starlette's test client): who may open it, what a dispute card
shows, escaping of hostile text, forms that only this page can send, and the
decision landing in the store with the person as `decided_by`. The same page in a
real browser: tests/integration/test_inbox_browser.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from scenarios import T0

from vault_ray import Fact, Policy

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.inbox import COOKIE, csrf_token  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def site(make_vault, tmp_path):
    vault = make_vault(policy=Policy().with_cardinality("user.likes", "many").updated(high_stakes=("user.budget.*",
                                                                                                  "user.likes.*")))
    vault.agent("planner").add("My budget is 5000 dollars", observed_at=T0, session="s-1")
    vault.agent("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1), session="s-2")
    tokens = TokenStore(tmp_path / "tokens.json")
    client = TestClient(create_app(local_service(vault, tokens)))
    yield vault, tokens, client
    client.close()


def _sign_in(client: TestClient, token: str):
    return client.post("/inbox/sign-in", data={"token": token}, follow_redirects=False)


def test_a_resolver_sees_both_values_with_provenance_and_decides(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    token = tokens.add("alice", "resolver")[0]
    signed = _sign_in(client, token)
    assert signed.status_code == 303 and signed.headers["location"] == "/inbox"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/inbox" in cookie
    page = client.get("/inbox")
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    html = page.text
    for text in ("5000 dollars", "9000 dollars", "planner", "chat", "s-1", "s-2", "My budget is 9000 dollars",
                 "needs you", "2026-01-01 01:00 UTC", "dispute opened", dispute.id):
        assert text in html, text
    incumbent = dispute.incumbents[0]
    done = client.post(f"/inbox/disputes/{dispute.id}/resolve", follow_redirects=False, data={
        "choice": f"claim:{incumbent}", "note": "the planner asked me", "csrf": csrf_token(token)})
    assert done.status_code == 303
    resolved = vault.dispute(dispute.id)
    assert resolved.status == "resolved" and resolved.resolution.winner == incumbent
    assert (resolved.resolution.decided_by, resolved.resolution.note) == ("alice", "the planner asked me")
    assert vault.claim(incumbent).status == "active" and vault.claim(dispute.challenger).status == "superseded"
    after = client.get("/inbox").text
    assert dispute.id not in after.split('id="cards"')[1] and "Nothing waits for a decision" in after
    told = client.get(done.headers["location"]).text  # what was decided, read back from the store
    again = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={  # a second click, or a stale page
        "choice": f"claim:{dispute.challenger}", "note": "", "csrf": csrf_token(token)})
    assert again.status_code == 409 and "already resolved (by alice, " in again.text
    assert vault.dispute(dispute.id).resolution.winner == incumbent
    assert f"Resolved {dispute.id} on user.budget: 5000 dollars (planner) is the value. Decided by alice." in told


def test_the_resolved_notice_says_only_what_happened(site):
    """`?done=` is an address anyone can type: no notice of a resolution that did not happen."""
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    _sign_in(client, tokens.add("alice", "resolver")[0])
    for typed in (dispute.id, "dsp-0-nope", "<b>x</b>", ""):
        page = client.get("/inbox", params={"done": typed})
        assert page.status_code == 200 and 'class="notice"' not in page.text, typed


def test_an_agent_token_cannot_open_the_inbox_or_decide(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    agent = tokens.add("chat-bot")[0]
    refused = _sign_in(client, agent)
    assert refused.status_code == 403 and "cannot open the inbox" in refused.text and "set-cookie" not in refused.headers
    bearer = {"Authorization": f"Bearer {agent}"}
    for path in ("/inbox", "/inbox/list", "/inbox/stream"):
        assert client.get(path, headers=bearer).status_code == 403, path
    client.cookies.set(COOKIE, agent)
    assert client.get("/inbox").status_code == 403
    tried = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={
        "choice": f"claim:{dispute.challenger}", "csrf": csrf_token(agent)})
    assert tried.status_code == 403 and vault.dispute(dispute.id).status == "open"
    client.cookies.set(COOKIE, "vr_nope_nope")
    assert client.get("/inbox").status_code == 401


def test_hostile_text_is_shown_as_text(site):
    vault, tokens, client = site
    vault.agent("a").add_facts(Fact("user.budget.trip", HOSTILE, HOSTILE, source=f"I said {HOSTILE}"))
    vault.agent("b").add_facts(Fact("user.budget.trip", "The trip budget is 300", "300"))
    assert _sign_in(client, tokens.add("alice", "resolver")[0]).status_code == 303
    html = client.get("/inbox").text
    assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_form_from_elsewhere_or_without_a_choice_changes_nothing(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    token = tokens.add("alice", "resolver")[0]
    _sign_in(client, token)
    forged = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={"choice": f"claim:{dispute.challenger}"})
    unchosen = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={"csrf": csrf_token(token)})
    assert forged.status_code == unchosen.status_code == 422 and "pick the value" in unchosen.text
    unknown = client.post("/inbox/disputes/dsp-0-nope/resolve", data={"choice": "claim:x", "csrf": csrf_token(token)})
    assert unknown.status_code == 404
    assert vault.dispute(dispute.id).status == "open"


def test_keep_both_is_offered_on_a_many_entity(site):
    vault, tokens, client = site
    vault.agent("a").add_facts(Fact("user.likes", "The user likes jazz", "likes:jazz"))
    vault.agent("b").add_facts(Fact("user.likes", "The user dislikes jazz", "dislikes:jazz"))
    d = next(d for d in vault.disputes() if d.entity == "user.likes")
    token = tokens.add("alice", "admin")[0]
    _sign_in(client, token)
    card = client.get("/inbox").text.split(f'data-dispute="{d.id}"')[1].split("</li>")[0]
    assert 'value="keep_both"' in card
    budget_card = client.get("/inbox").text.split('data-dispute="')[1].split("</li>")[0]
    assert 'value="keep_both"' not in budget_card  # needs_user first: the budget dispute, a 'one' entity
    kept = client.post(f"/inbox/disputes/{d.id}/resolve", data={"choice": "keep_both", "csrf": csrf_token(token)})
    assert vault.dispute(d.id).resolution.keep_both and len(vault.get("user.likes").active) == 2
    assert f"Resolved {d.id} on user.likes: every value kept. Decided by alice." in kept.text


def test_the_resolver_role_settles_disputes_over_the_api_but_changes_no_policy(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    headers = {"Authorization": f"Bearer {tokens.add('alice', 'resolver')[0]}"}
    assert client.get("/v1/whoami", headers=headers).json() == {"principal": "alice", "role": "resolver"}
    refused = client.post("/v1/policy/strategy", headers=headers, json={"pattern": "user.diet", "strategy": "authority"})
    assert refused.status_code == 403 and refused.json()["needed"] == "admin"
    agent = {"Authorization": f"Bearer {tokens.add('bot')[0]}"}
    body = {"winner": dispute.challenger, "note": "moved up"}
    assert client.post(f"/v1/disputes/{dispute.id}/resolve", headers=agent, json=body).status_code == 403
    done = client.post(f"/v1/disputes/{dispute.id}/resolve", headers=headers, json=body)
    assert done.status_code == 200 and done.json()["resolution"]["decided_by"] == "alice"


@pytest.mark.parametrize("token", ["vr_nope_nope", "", "revoked"])
def test_a_wrong_empty_or_revoked_token_is_told_so(site, token):
    vault, tokens, client = site
    if token == "revoked":
        token = tokens.add("gone", "resolver")[0]
        assert _sign_in(client, token).status_code == 303
        tokens.revoke("gone")
        page = client.get("/inbox")
        assert page.status_code == 401 and "not recognised, or it was revoked" in page.text
    refused = _sign_in(client, token)
    assert refused.status_code == 401 and 'id="refused"' in refused.text
    assert "This token is not recognised, or it was revoked" in refused.text and "set-cookie" not in refused.headers


def test_a_note_longer_than_the_api_allows_is_refused_with_a_message_not_cut(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    token = tokens.add("alice", "resolver")[0]
    _sign_in(client, token)
    assert 'maxlength="4096"' in client.get("/inbox").text
    choice = f"claim:{dispute.incumbents[0]}"
    too_long = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={
        "choice": choice, "note": "n" * 4097, "csrf": csrf_token(token)})
    assert too_long.status_code == 422 and "the limit is 4096" in too_long.text and 'role="alert"' in too_long.text
    assert vault.dispute(dispute.id).status == "open"
    done = client.post(f"/inbox/disputes/{dispute.id}/resolve", follow_redirects=False, data={
        "choice": choice, "note": "n" * 4096, "csrf": csrf_token(token)})
    assert done.status_code == 303 and vault.dispute(dispute.id).resolution.note == "n" * 4096


def test_a_refused_note_comes_back_as_typed_with_the_choice_and_the_error(site):
    """Refusing a too-long note must not throw away what the person wrote: the page shows the
    error, and the card holds the note (escaped, whole) and the value they picked."""
    import html
    import re

    vault, tokens, client = site
    (dispute,) = vault.disputes()
    token = tokens.add("alice", "resolver")[0]
    _sign_in(client, token)
    choice = f"claim:{dispute.incumbents[0]}"
    note = "\nCalled the user <b>by phone</b> & they confirmed. " + "n" * 4100
    refused = client.post(f"/inbox/disputes/{dispute.id}/resolve", data={
        "choice": choice, "note": note, "csrf": csrf_token(token)})
    assert refused.status_code == 422 and "the limit is 4096" in refused.text
    area = re.search(r"<textarea[^>]*>(.*?)</textarea>", refused.text, re.S)
    assert area is not None and 'aria-invalid="true"' in area.group(0)
    assert html.unescape(area.group(1)) == "\n" + note  # a parser drops the first newline: the note as typed
    assert re.search(rf'value="{re.escape(choice)}" required checked', refused.text)
    assert vault.dispute(dispute.id).status == "open"
    assert "<textarea" in client.get("/inbox").text and "Called the user" not in client.get("/inbox").text


def test_a_person_retracts_a_plainly_wrong_claim_from_its_card(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    wrong = dispute.challenger
    token = tokens.add("alice", "resolver")[0]
    _sign_in(client, token)
    card = client.get("/inbox").text.split(f'data-dispute="{dispute.id}"')[1].split("</li>")[0]
    assert f'href="/inbox/claims/{wrong}/retract"' in card  # a link per claim: the confirm page
    confirm = client.get(f"/inbox/claims/{wrong}/retract")
    assert confirm.status_code == 200 and "Retract a claim?" in confirm.text and "9000 dollars" in confirm.text
    assert f'action="/inbox/claims/{wrong}/retract"' in confirm.text and csrf_token(token) in confirm.text
    assert vault.claim(wrong).status == "disputed"  # the confirm page changes nothing
    done = client.post(f"/inbox/claims/{wrong}/retract", follow_redirects=False,
                       data={"note": "the user never said 9000", "csrf": csrf_token(token)})
    assert done.status_code == 303 and done.headers["location"] == f"/inbox?retracted={wrong}"
    assert vault.claim(wrong).status == "retracted"
    (event,) = [e for e in vault.events(since="start").events if e.kind == "claim_retracted"]
    assert (event.decided_by, event.note) == ("alice", "the user never said 9000")
    after = client.get(done.headers["location"]).text
    assert f"Retracted claim {wrong}" in after and "9000 dollars" in after.split('role="status"')[1].split("</p>")[0]
    assert dispute.id not in after.split('id="cards"')[1]  # its challenger gone, the dispute closed for the incumbent
    again = client.post(f"/inbox/claims/{wrong}/retract", data={"csrf": csrf_token(token)})
    assert again.status_code == 200 and "retracted already" in again.text
    assert len([e for e in vault.events(since="start").events if e.kind == "claim_retracted"]) == 1


def test_a_retraction_that_is_forged_too_long_unknown_or_by_an_agent_changes_nothing(site):
    vault, tokens, client = site
    (dispute,) = vault.disputes()
    claim = dispute.challenger
    agent = tokens.add("bot")[0]
    client.cookies.set(COOKIE, agent)
    assert client.get(f"/inbox/claims/{claim}/retract").status_code == 403
    assert client.post(f"/inbox/claims/{claim}/retract", data={"csrf": csrf_token(agent)}).status_code == 403
    client.cookies.clear()
    token = tokens.add("alice", "resolver")[0]
    _sign_in(client, token)
    forged = client.post(f"/inbox/claims/{claim}/retract", data={"note": "x"})
    assert forged.status_code == 422 and "not from this page" in forged.text
    note = "<b>long</b> " + "n" * 4100
    too_long = client.post(f"/inbox/claims/{claim}/retract", data={"note": note, "csrf": csrf_token(token)})
    assert too_long.status_code == 422 and "the limit is 4096" in too_long.text
    assert "&lt;b&gt;long&lt;/b&gt;" in too_long.text and "<b>long</b>" not in too_long.text  # kept, escaped
    unknown = client.post("/inbox/claims/nope/retract", data={"csrf": csrf_token(token)})
    assert unknown.status_code == 404 and "nope" in unknown.text
    assert client.get("/inbox/claims/nope/retract").status_code == 404
    assert client.get(f"/inbox?retracted={claim}").text.count("Retracted claim") == 0  # no notice of what did not happen
    assert vault.claim(claim).status == "disputed" and vault.dispute(dispute.id).status == "open"
