"""No auto-resolve rule closes a dispute that waits for a person (QA round 95, F10): a person
chose chat's EST, the scheduler re-asserts PST (parked, `needs_user`); with the stale rule on,
`apply_rules` long after leaves it open, the chosen value current and the entity contested.
Only a person's resolution settles it (docs/policies.md, "A person's decision sticks")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from vault_ray import AutoResolveRules, Fact


def say(vault, agent: str, value: str):
    return vault.agent(agent).add_facts([Fact("user.timezone", f"The user is in {value}", value=value)]).decisions[0]


def test_the_stale_rule_leaves_a_needs_user_dispute_with_its_incumbent_open(authority):
    authority.set_policy(authority.policy.updated(rules=AutoResolveRules(stale_after_s=1, reasserted_by=2)))
    say(authority, "scheduler", "PST")
    est = say(authority, "chat", "EST")
    authority.resolve_dispute(est.dispute_id, winner=est.claim_id, decided_by="dana")
    pst = say(authority, "scheduler", "PST")
    d = authority.dispute(pst.dispute_id)
    assert d.needs_user and d.incumbents == (est.claim_id,)

    assert authority.apply_rules(now=datetime.now(UTC) + timedelta(days=30)) == []
    assert authority.dispute(d.id).status == "open" and authority.dispute(d.id).resolution is None
    view = authority.get("user.timezone")
    assert view.contested and [c.value for c in view.active] == ["EST"]
    (hit,) = authority.search("which time zone is the user in", k=1)
    assert hit.contested

    done = authority.resolve_dispute(d.id, winner=pst.claim_id, decided_by="dana")  # a person may pick the agent's value
    assert done.resolution.decided_by == "dana" and [c.value for c in authority.get("user.timezone").active] == ["PST"]
