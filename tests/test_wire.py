"""The JSON form of the models: what the server sends, the client rebuilds as the same values."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from scenarios import authority_dispute, drifting_reasoner

from vault_ray import (
    AddResult,
    AutoResolveRules,
    Claim,
    Dispute,
    EntityView,
    Explanation,
    Hit,
    InvalidInput,
    Policy,
    RateLimit,
    RegistryEntry,
)
from vault_ray.wire import decode, encode


def through_json(tp, value):
    data = json.loads(json.dumps(encode(value)))
    return decode(tp, data), data


def test_every_answer_of_a_real_store_comes_back_equal(make_vault):
    vault = make_vault(reasoner=drifting_reasoner())
    out = authority_dispute(vault)
    (dispute,) = out["disputes"]
    resolved = vault.resolve_dispute(dispute.id, dispute.challenger, decided_by="ops", note="moved east")
    answers = [
        (AddResult, AddResult(tuple(out["b"]))),
        (list[Hit], out["hits"]),
        (EntityView, out["view"]),
        (Dispute, resolved),
        (list[Claim], vault.history("user.timezone")),
        (Explanation, vault.explain(dispute.incumbents[0])),
        (Policy, vault.policy),
    ]
    for tp, value in answers:
        back, data = through_json(tp, value)
        assert back == value, tp
    explained, _ = through_json(Explanation, vault.explain(dispute.incumbents[0]))
    assert any(step.cause is not None for step in explained.steps)  # nested steps come back too
    assert explained.text() == vault.explain(dispute.incumbents[0]).text()


def test_times_are_utc_iso_and_vectors_stay_home(make_vault):
    vault = make_vault()
    vault.agent("a").add("I'm in PST")
    (claim,) = vault.history("user.timezone")
    data = encode(claim)
    assert "embedding" not in data
    assert datetime.fromisoformat(data["observed_at"]).tzinfo is not None
    assert decode(Claim, data).observed_at == claim.observed_at


def test_policy_with_rules_and_rate_limit():
    policy = Policy(rules=AutoResolveRules(reasserted_by=3, stale_after_s=60.0), rate_limit=RateLimit(2.0, 5),
                    high_stakes=("user.payment.*",), authority={"a": {"user.*": 0.7}})
    assert through_json(Policy, policy)[0] == policy
    assert through_json(list[RegistryEntry], [RegistryEntry("user.tz", "time zone", "one", ("user.t",))])[0] == [
        RegistryEntry("user.tz", "time zone", "one", ("user.t",))]


def test_unknown_keys_are_ignored_and_bad_data_is_invalid_input():
    data = encode(Dispute("d", "user.x", "c", ("i",), "r", "open", False, 1, datetime(2026, 1, 1, tzinfo=UTC)))
    assert decode(Dispute, {**data, "added_in_a_later_version": 1}).id == "d"
    with pytest.raises(InvalidInput):
        decode(Dispute, {**data, "opened_at": 17})
    with pytest.raises(InvalidInput):
        decode(list[Hit], {"not": "a list"})
