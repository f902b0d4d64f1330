"""Disputes that outlive their reason, in cluster mode (QA8 F3, F4, F9): the shards settle a
dispute whose incumbent's place a clearly newer claim took, keep an authority dispute open with
its reason about the claim now standing, answer a resolution for a replaced incumbent with the
values that can win, and close a widened entity's dispute keeping both, as embedded mode does
(tests/test_disputes_outlived.py, tests/test_widen_disputes.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import DisputeError, Fact, Policy

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def say(vault, agent, entity, value, seconds):
    fact = Fact(entity, f"{entity} is {value}", value=value, observed_at=T0 + timedelta(seconds=seconds))
    return vault.agent(agent).add_facts([fact]).decisions[0]


def steps(vault) -> list[object]:
    vault.set_strategy("user.employer", "authority")
    vault.set_strategy("user.language", "authority")
    vault.set_authority("crm", "*", 0.9)
    vault.set_cardinality("user.language", "one")
    seen: list[object] = []
    say(vault, "scheduler", "user.timezone", "PST", 0)
    est = say(vault, "chat", "user.timezone", "EST", 1)
    cet = say(vault, "crm", "user.timezone", "CET", 72000)
    seen.append((str(est.outcome), cet.dispute_id == est.dispute_id, vault.get("user.timezone").values,
                 vault.dispute(est.dispute_id).resolution.decided_by))
    acme = say(vault, "crm", "user.employer", "Acme", 0)
    globex = say(vault, "bot1", "user.employer", "Globex", 1)
    initech = say(vault, "bot2", "user.employer", "Initech", 2)
    vault.resolve_dispute(globex.dispute_id, winner=globex.claim_id, decided_by="user")
    try:
        vault.resolve_dispute(initech.dispute_id, winner=acme.claim_id, decided_by="user")
        seen.append("resolved")
    except DisputeError as exc:
        seen.append("was since superseded" in str(exc))
    d = vault.dispute(initech.dispute_id)
    seen.append((d.status.value, d.needs_user, d.reason.split(" (dispute")[0]))
    say(vault, "crm", "user.language", "English", 0)
    french = say(vault, "assistant", "user.language", "French", 1)
    vault.set_cardinality("user.language", "many")
    closed = vault.dispute(french.dispute_id)
    seen.append((closed.resolution.decided_by, sorted(vault.get("user.language").values)))
    return seen


def test_cluster_mode_settles_outlived_disputes_as_embedded_mode_does(cluster, make_vault):
    policy = Policy(near_simultaneous_s=2)
    got = steps(cluster(policy=policy))
    assert got == steps(make_vault("embedded", policy=policy))
    assert got == [("disputed", True, ("CET",), "strategy:recency"), True,
                   ("open", True, "'Globex' was chosen by user"), ("rule:cardinality", ["English", "French"])]
