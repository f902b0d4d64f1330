"""In cluster mode as in embedded mode: a dispute's reason follows who stands on each side, a
parked challenger nothing contradicts any more stands, and one batch's claims read in one order
(tests/test_dispute_reason_sides.py, tests/test_disputes_unopposed.py, tests/test_view_order.py)."""

from __future__ import annotations

from vault_ray import Fact

from .test_cluster_outlived import T0, say  # say: one fact at T0 + seconds, resolved


def steps(vault) -> list[object]:
    vault.set_strategy("*", "authority")
    vault.set_authority("scheduler", "*", 0.9)
    vault.set_authority("chat", "*", 0.2)
    vault.set_cardinality("user.pets", "many")
    seen: list[object] = []
    say(vault, "scheduler", "user.timezone", "PST", 0)
    est = say(vault, "chat", "user.timezone", "EST", 60)
    say(vault, "planner", "user.timezone", "EST", 70)
    say(vault, "chat", "user.timezone", "CET", 80)  # chat withdraws: planner holds the challenge
    d = vault.dispute(est.dispute_id)
    seen.append((d.challenger_agent, d.reason))
    say(vault, "scheduler", "user.diet", "vegan", 0)
    veg = say(vault, "bot", "user.diet", "vegetarian", 60)
    say(vault, "scheduler", "user.diet", "not:vegan", 3000)
    closed = vault.dispute(veg.dispute_id)
    seen.append((closed.resolution.decided_by, closed.resolution.note, vault.get("user.diet").values))
    pets = ["fish:Nemo", "dog:Rex", "cat:Tom", "bird:Kiwi"]
    vault.agent("crm").add_facts([Fact("user.pets", f"a {p}", value=p, observed_at=T0) for p in pets])
    seen.append(vault.get("user.pets").values)
    return seen


def test_cluster_mode_restates_reasons_and_orders_views_as_embedded_mode_does(cluster, make_vault):
    got = steps(cluster())
    assert got == steps(make_vault("embedded"))
    assert got[0] == ("planner", "planner (0.50) does not outweigh scheduler (0.90)")
    assert got[1][0] == "rule:incumbents_withdrawn" and set(got[1][2]) == {"vegetarian", "not:vegan"}
    assert got[2] == ("bird:Kiwi", "cat:Tom", "dog:Rex", "fish:Nemo")
