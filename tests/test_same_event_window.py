"""The same-event window is a policy setting (`Policy.same_event_window_s`, one hour by
default): the same words, the same value, by the same agent within it are one event (a
NOOP); further apart, another event. Search folds records of one event by the same rule.
A window that is not a positive number of seconds is refused and changes nothing."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidInput, InvalidPolicy, Kind, Policy, Vault
from vault_ray.cli import app
from vault_ray.models import Op

T0 = datetime.now(UTC) - timedelta(days=3)


def gym(minutes: float, agent_text: str = "Went to the gym") -> Fact:
    return Fact("user.workout", agent_text, value="gym", kind=Kind.EPISODIC, observed_at=T0 + timedelta(minutes=minutes))


def ops(vault: Vault, agent: str, *minutes: float) -> list[Op]:
    return [vault.agent(agent).add_facts([gym(m)]).decisions[0].op for m in minutes]


def test_the_default_window_is_one_hour(make_vault):
    vault = make_vault()
    assert Policy().same_event_window_s == 3600 == vault.policy.same_event_window_s
    assert ops(vault, "a", 0, 45, 125) == [Op.ADD, Op.NOOP, Op.ADD]  # 45 min: a retry; 2 h later: another visit


def test_a_narrower_window_keeps_a_repeat_half_an_hour_later(make_vault):
    vault = make_vault(policy=Policy(same_event_window_s=600))
    assert ops(vault, "a", 0, 5, 30) == [Op.ADD, Op.NOOP, Op.ADD]
    assert len(vault.get("user.workout").events) == 2


def test_a_wider_window_set_later_is_honoured_by_writes_and_search(make_vault):
    vault = make_vault()
    assert ops(vault, "a", 0, 180) == [Op.ADD, Op.ADD]  # three hours apart: two events by default
    assert len(vault.search("went to the gym", k=5)) == 2
    vault.patch_policy({"same_event_window_s": 6 * 3600})
    assert vault.policy.same_event_window_s == 21600
    assert ops(vault, "a", 200) == [Op.NOOP]  # within six hours of a record
    (hit,) = vault.search("went to the gym", k=5)  # the two records are one event now
    assert len(hit.agreeing) == 1
    ops(vault, "b", 240)  # another agent's record of it: its own provenance, listed as agreeing
    (hit,) = vault.search("went to the gym", k=5)
    assert {hit.claim.agent, *(c.agent for c in hit.agreeing)} == {"a", "b"}


@pytest.mark.parametrize("bad", [0, -60, math.inf, math.nan, "1h", True, None, timedelta(hours=1)])
def test_a_window_that_is_no_positive_number_of_seconds_is_refused(make_vault, bad):
    with pytest.raises(InvalidPolicy) as refused:
        Policy(same_event_window_s=bad)
    assert isinstance(refused.value, InvalidInput) and refused.value.field == "same_event_window_s"
    assert "same_event_window_s must be a positive number" in str(refused.value)
    vault = make_vault()
    before = vault.policy
    with pytest.raises(InvalidPolicy):
        vault.patch_policy({"same_event_window_s": bad} if bad is not None else {"same_event_window_s": -1})
    assert vault.policy == before


def test_the_window_survives_a_reopen_and_is_shown_by_policy_show(tmp_path):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder(), policy=Policy(same_event_window_s=90)) as vault:
        assert ops(vault, "a", 0, 1, 3) == [Op.ADD, Op.NOOP, Op.ADD]
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.same_event_window_s == 90
    shown = CliRunner().invoke(app, ["policy", "show", "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["policy"]["same_event_window_s"] == 90


def test_over_http_the_window_is_read_patched_and_checked(served_app):
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    assert httpx.get(served_app.url + "/v1/policy", headers=admin).json()["same_event_window_s"] == 3600
    refused = httpx.patch(served_app.url + "/v1/policy", json={"same_event_window_s": 0}, headers=admin)
    assert refused.status_code == 422 and refused.json()["field"] == "same_event_window_s", refused.text
    patched = httpx.patch(served_app.url + "/v1/policy", json={"same_event_window_s": 120}, headers=admin)
    assert patched.status_code == 200, patched.text
    assert httpx.get(served_app.url + "/v1/policy", headers=admin).json()["same_event_window_s"] == 120
    schema = httpx.get(served_app.url + "/openapi.json").json()["components"]["schemas"]
    assert "same_event_window_s" in schema["PolicyOut"]["properties"]


@pytest.mark.parametrize("huge", [366 * 86400 + 1, 1e14, 1e308])
def test_a_window_beyond_366_days_is_refused_naming_the_cap(served_app, huge):
    with pytest.raises(InvalidPolicy) as refused:
        Policy(same_event_window_s=huge)
    assert refused.value.field == "same_event_window_s" and "at most 31622400 seconds (366 days)" in str(refused.value)
    vault = served_app.vault
    vault.agent("a").add_facts([gym(0)])
    with pytest.raises(InvalidPolicy):
        vault.patch_policy({"same_event_window_s": huge})
    assert vault.policy.same_event_window_s == 3600
    assert vault.search("gym") and ops(vault, "a", 30) == [Op.NOOP]
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    patched = httpx.patch(served_app.url + "/v1/policy", json={"same_event_window_s": huge}, headers=admin)
    assert patched.status_code == 422 and patched.json()["field"] == "same_event_window_s", patched.text
    assert httpx.get(served_app.url + "/v1/search", params={"q": "gym"}, headers=admin).status_code == 200


def test_a_year_is_accepted_and_folds_records_months_apart(make_vault):
    vault = make_vault(policy=Policy(same_event_window_s=366 * 86400))
    assert ops(vault, "a", -60 * 24 * 200, 0) == [Op.ADD, Op.NOOP]


def test_a_store_saved_with_a_huge_window_still_opens_and_works(tmp_path, caplog):
    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([gym(0)])
    control = next(store.rglob("control.json"))
    data = json.loads(control.read_text())
    data["policy"]["same_event_window_s"] = 1e14  # saved by a version that did not check the cap
    control.write_text(json.dumps(data))
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.same_event_window_s == 366 * 86400
        assert "same_event_window_s" in caplog.text and "366 days" in caplog.text
        assert [hit.claim.value for hit in vault.search("gym")] == ["gym"]
        assert ops(vault, "a", 90) == [Op.NOOP]  # still one event within the (capped) window
        vault.patch_policy({"same_event_window_s": 600})
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert vault.policy.same_event_window_s == 600
