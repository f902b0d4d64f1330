"""The `rule:` and `strategy:` name prefixes belong to the store's own deciders (a resolution
decided by one is no person's, so it does not stick). No agent, token or person may take such
a name, on any surface; the built-in rules keep deciding under them, and a store whose history
holds such a name still reads."""

from __future__ import annotations

import json
from datetime import timedelta

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidInput, Vault
from vault_ray.cli import app
from vault_ray.models import utcnow
from vault_ray.policy import AutoResolveRules

RESERVED = ["rule:dana", "strategy:consensus", "Rule:stale", "STRATEGY:x"]


def disputed(vault: Vault):
    """chat's EST parked against scheduler's PST (authority 0.9 vs 0.2): the open dispute's decision."""
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("scheduler", "user.timezone", 0.9)
    vault.set_authority("chat", "user.timezone", 0.2)
    vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST", "PST")])
    return vault.agent("chat").add_facts([Fact("user.timezone", "The user is in EST", "EST")]).decisions[0]


@pytest.mark.parametrize("name", RESERVED)
def test_the_library_refuses_reserved_agent_and_decider_names_and_changes_nothing(vault, name):
    est = disputed(vault)
    with pytest.raises(InvalidInput, match="reserved for the store's built-in rules"):
        vault.agent(name)
    with pytest.raises(InvalidInput, match="reserved for the store's built-in rules"):
        vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by=name, note="the user told me")
    with pytest.raises(InvalidInput, match="decided_by .* reserved"):
        vault.retract(est.claim_id, decided_by=name)
    with pytest.raises(InvalidInput, match="decided_by .* reserved"):
        vault.forget("user.timezone", decided_by=name)
    assert vault.dispute(est.dispute_id).status == "open"
    assert {c.status for c in vault.history("user.timezone")} == {"active", "disputed"}


def test_a_persons_decision_sticks_and_the_built_in_rules_still_decide(vault):
    est = disputed(vault)
    vault.resolve_dispute(est.dispute_id, est.claim_id, decided_by="dana", note="the user told me")
    again = vault.agent("scheduler").add_facts([Fact("user.timezone", "The user is in PST again", "PST")]).decisions[0]
    assert again.outcome == "disputed"  # a person's decision sticks
    vault.set_strategy("user.diet", "authority")
    vault.set_authority("planner", "user.diet", 0.9)
    vault.agent("planner").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    low = vault.agent("chat").add_facts([Fact("user.diet", "The user eats meat", "omnivore")]).decisions[0]
    vault.set_policy(vault.policy.updated(rules=AutoResolveRules(stale_after_s=1.0)))
    closed = vault.apply_rules(now=utcnow() + timedelta(hours=1))
    assert [(d.id, d.resolution.decided_by) for d in closed if d.id == low.dispute_id] == [(low.dispute_id, "rule:stale")]


@pytest.mark.parametrize("name", ["rule:stale", "strategy:consensus"])
def test_token_add_refuses_a_reserved_name(tmp_path, name):
    done = CliRunner().invoke(app, ["token", "add", name, "--role", "resolver", "--tokens", str(tmp_path / "t.json")])
    assert done.exit_code == 2 and "reserved for the store's built-in rules" in " ".join(done.output.split())
    assert not (tmp_path / "t.json").exists() or "rule" not in (tmp_path / "t.json").read_text()


def test_a_token_issued_under_a_reserved_name_before_is_refused_over_http_and_in_the_inbox(served_app):
    est = disputed(served_app.vault)
    token = served_app.token("dana", "resolver")
    old = served_app.token("olddana", "resolver")  # an older tokens file: rename its agent as it was issued then
    path = served_app.tokens.path
    data = json.loads(path.read_text())
    for record in data["tokens"]:
        if record["agent"] == "olddana":
            record["agent"] = "rule:dana"
    path.write_text(json.dumps(data))
    base, body = served_app.url, {"winner": est.claim_id, "note": "the user told me"}
    refused = httpx.post(f"{base}/v1/disputes/{est.dispute_id}/resolve", json=body, headers={"Authorization": f"Bearer {old}"})
    assert refused.status_code == 401 and "reserved for the store's built-in rules" in refused.json()["detail"]
    page = httpx.post(f"{base}/inbox/sign-in", data={"token": old}, follow_redirects=False)
    assert page.status_code == 401 and "reserved for the store" in page.text and "set-cookie" not in page.headers
    assert served_app.vault.dispute(est.dispute_id).status == "open"  # nothing changed
    done = httpx.post(f"{base}/v1/disputes/{est.dispute_id}/resolve", json=body, headers={"Authorization": f"Bearer {token}"})
    assert done.status_code == 200 and done.json()["resolution"]["decided_by"] == "dana"


def test_a_store_whose_history_holds_a_reserved_agent_name_still_reads(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("old").add_facts([Fact("user.diet", "The user is vegan", "vegan", claim_id="c-1")])
    for part in (tmp_path / "s").rglob("*.duckdb"):  # as a store written before the prefixes were reserved
        with duckdb.connect(str(part)) as con:
            con.execute("UPDATE claims SET agent = 'rule:old'")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert [c.agent for c in vault.get("user.diet").active] == ["rule:old"]
        assert [h.claim.agent for h in vault.search("what does the user eat")] == ["rule:old"]
        assert [c.agent for c in vault.history("user.diet")] == ["rule:old"]
