"""The seed scenarios as functions of an open vault, shared by the embedded tests
and the cluster-mode tests (tests/integration)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import Fact, ScriptedReasoner, Vault

T0 = datetime(2026, 1, 1, tzinfo=UTC)

DRIFTED = Fact(entity="user.wrong_label", text="The user is in EST", value="EST")


def drifting_reasoner() -> ScriptedReasoner:
    """agent-b's extractor labels its EST fact `user.wrong_label` (label drift)."""
    return ScriptedReasoner(extract={"I'm in EST": [DRIFTED]})


def authority_dispute(vault: Vault) -> dict:
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("agent-a", "user.timezone", 0.9)
    vault.set_authority("agent-b", "user.timezone", 0.2)
    a = vault.agent("agent-a").add("I'm in PST").decisions
    b = vault.agent("agent-b").add("I'm in EST").decisions
    return {
        "a": a,
        "b": b,
        "disputes": vault.disputes(),
        "hits": vault.search("what timezone is the user in?", k=3),
        "view": vault.get("user.timezone"),
    }


def recency_supersede(vault: Vault) -> dict:
    a = vault.agent("agent-a").add("I love Italian food").decisions
    b = vault.agent("agent-b").add("I hate Italian food, I only eat Japanese").decisions
    return {"a": a, "b": b, "history": vault.history("user.food_preferences"), "disputes": vault.disputes()}


def check_authority_dispute(out: dict) -> None:
    (a,) = out["a"]
    (b,) = out["b"]
    assert a.entity == "user.timezone" and a.outcome == "active"
    assert b.entity == "user.timezone"
    assert b.outcome == "disputed"
    assert len(out["disputes"]) == 1
    dispute = out["disputes"][0]
    assert dispute.challenger == b.claim_id and dispute.incumbents == (a.claim_id,)
    assert b.dispute_id == dispute.id
    top = out["hits"][0]
    assert top.claim.id == a.claim_id and "PST" in top.claim.text
    assert top.contested is True
    assert [alt.id for alt in top.alternatives] == [b.claim_id]
    view = out["view"]
    assert view.contested
    assert sorted(c.claim.value for c in view.candidates) == ["EST", "PST"]
    assert [c.id for c in view.active] == [a.claim_id]


def check_recency_supersede(out: dict) -> None:
    (a,) = out["a"]
    assert a.outcome == "active"
    assert out["b"] and all(d.outcome == "active" for d in out["b"])
    by_id = {c.id: c for c in out["history"]}
    loves = by_id[a.claim_id]
    assert loves.status == "superseded"
    hates = next(d for d in out["b"] if a.claim_id in d.superseded)
    assert loves.superseded_by == hates.claim_id
    assert by_id[hates.claim_id].status == "active" and by_id[hates.claim_id].agent == "agent-b"
    assert out["disputes"] == []


def late_arrival(vault: Vault) -> dict:
    """A claim observed before the active incumbent is stored already superseded."""
    new = vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan", observed_at=T0)]).decisions[0]
    late = vault.agent("b").add_facts(
        [Fact("user.diet", "The user is vegetarian", "vegetarian", observed_at=T0 - timedelta(hours=1))]
    ).decisions[0]
    assert late.outcome == "superseded"
    assert [c.id for c in vault.get("user.diet").active] == [new.claim_id]
    stored = {c.id: c for c in vault.history("user.diet")}
    assert stored[late.claim_id].superseded_by == new.claim_id
    assert stored[new.claim_id].status == "active"
    assert stored[new.claim_id].supersedes == (late.claim_id,)  # the two claims name each other
    return {"new": new, "late": late, "history": vault.history("user.diet")}
