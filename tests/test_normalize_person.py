"""A merge never undoes what a person decided nor what waits for one (evals/merge_disputes.py,
docs/jobs.md "Disputes and a person's decisions"), and never lowers protection (high stakes).
Applying plans on embedded stores: no Ray."""

from __future__ import annotations

from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scenarios import T0

from vault_ray import Fact, HashingEmbedder, InvalidInput, Vault
from vault_ray.evals.normalize import apply_plan
from vault_ray.evals.plan_report import PLAN_SCHEMA
from vault_ray.registry import RegistryEntry


def write_plan(path, merges: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    rows = [{"plan": "p1", "action": "merge", "approved": True, "from_label": a, "to_label": b, "score": 0.8,
             "decided_by": "similarity", "evidence": "test"} for a, b in merges]
    pq.write_table(pa.Table.from_pylist(rows, schema=PLAN_SCHEMA), path)
    return path


def say(vault: Vault, agent: str, label: str, value: str, minutes: float):  # type: ignore[no-untyped-def]
    fact = Fact(label, f"The user lives in {value}", value, observed_at=T0 + timedelta(minutes=minutes))
    return vault.agent(agent).add_facts([fact], resolve=False).decisions[0]


def person_chose_oslo(vault: Vault, *, berlin_waits: bool) -> None:
    """On user.home_city (authority) a person chose a2's Oslo over a1's Madrid; with `berlin_waits`,
    a3's later Berlin stands against that choice, waiting for a person."""
    vault.set_strategy("user.home_city", "authority")
    for agent, weight in (("a1", 0.6), ("a2", 0.1), ("a3", 0.4)):
        vault.set_authority(agent, "user.home_city", weight)
    say(vault, "a1", "user.home_city", "Madrid", 1)
    oslo = say(vault, "a2", "user.home_city", "Oslo", 2)
    vault.resolve_dispute(oslo.dispute_id, winner=oslo.claim_id, decided_by="dana", note="the user said Oslo")
    if berlin_waits:
        assert say(vault, "a3", "user.home_city", "Berlin", 3).outcome == "disputed"


def test_a_label_whose_dispute_waits_for_a_person_is_held_until_a_person_resolves_it(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.home_city", "user.location"), ("user.residence", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        say(vault, "a4", "user.location", "Lisbon", 0)
        say(vault, "a5", "user.residence", "Lisbon", 0.5)
        person_chose_oslo(vault, berlin_waits=True)
        (waiting,) = vault.disputes()
    result = apply_plan(plan, store=tmp_path / "s")
    assert list(result.held) == ["user.home_city"] and waiting.id in result.held["user.home_city"]
    assert (result.merges, result.rekeyed) == (1, 1)  # the other label of the plan merged
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        old = vault.get("user.home_city")
        assert [c.value for c in old.active] == ["Oslo"] and old.contested
        assert vault.dispute(waiting.id).status == "open"
        assert vault.registry.canonical("user.home_city") == "user.home_city"  # no alias: writes stay there
        assert vault.registry.canonical("user.residence") == "user.location"
        vault.resolve_dispute(waiting.id, winner=waiting.incumbents[0], decided_by="dana", note="still Oslo")
    again = apply_plan(plan, store=tmp_path / "s")
    assert (again.held, again.carried, again.rekeyed) == ({}, 2, 1)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        view = vault.get("user.location")
        assert [c.value for c in view.active] == ["Oslo"] and not view.contested  # newer than Lisbon: for the choice
        carried = [d for d in vault.disputes("resolved") if d.entity == "user.location"]
        assert {d.resolution.decided_by for d in carried} == {"dana"}
        assert view.active[0].id in {d.resolution.winner for d in carried}
        assert all("carried over from dispute" in d.resolution.note for d in carried)
        # the choice sticks on the target: a newer agent value (by the old label or the new) waits
        for agent, label, value in (("a3", "user.home_city", "Rome"), ("a9", "user.location", "Vienna")):
            decision = say(vault, agent, label, value, 30)
            assert (decision.entity, decision.outcome) == ("user.location", "disputed")
            assert "chosen by dana" in decision.reason
        assert [c.value for c in vault.get("user.location").active] == ["Oslo"]
        assert all(d.needs_user for d in vault.disputes())


@pytest.mark.parametrize("strategy", ["recency", "consensus", "authority"])
def test_a_chosen_value_meeting_a_stronger_target_value_waits_for_a_person(tmp_path, strategy):
    plan = write_plan(tmp_path / "plan.parquet", [("user.home_city", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        person_chose_oslo(vault, berlin_waits=False)
        vault.set_strategy("user.location", strategy)
        vault.set_authority("t1", "user.location", 0.9)
        for i, agent in enumerate(("t1", "t2", "t3")):  # newer, more of them, heavier
            say(vault, agent, "user.location", "Lisbon", 60 + i)
    result = apply_plan(plan, store=tmp_path / "s")
    assert (result.carried, result.held, result.errors) == (1, {}, {})
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        view = vault.get("user.location")
        assert view.contested and "Oslo" in view.values
        (dispute,) = vault.disputes()
        assert dispute.needs_user and dispute.entity == "user.location" and "chosen by dana" in dispute.reason
        assert vault.claim(dispute.challenger).value == "Oslo"


def test_two_labels_with_contradicting_choices_merged_into_one_wait_for_a_person(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.home_city", "user.location"), ("user.residence", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        person_chose_oslo(vault, berlin_waits=False)
        vault.set_strategy("user.residence", "authority")
        vault.set_authority("r1", "user.residence", 0.9)
        say(vault, "r1", "user.residence", "Bergen", 4)
        bergen = say(vault, "r2", "user.residence", "Trondheim", 5)
        vault.resolve_dispute(bergen.dispute_id, winner=bergen.claim_id, decided_by="erin")
    result = apply_plan(plan, store=tmp_path / "s")
    assert (result.carried, result.held) == (2, {})
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        (dispute,) = vault.disputes()  # neither person's choice settles the other's by recency
        assert dispute.needs_user and dispute.entity == "user.location"
        values = {vault.claim(i).value for i in (dispute.challenger, *dispute.incumbents)}
        assert values == {"Oslo", "Trondheim"}


def test_the_plan_says_which_disputes_and_decisions_a_merge_touches(tmp_path):
    from vault_ray.evals.merge_disputes import touched  # noqa: PLC0415

    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        person_chose_oslo(vault, berlin_waits=True)
        active = {c.id for c in vault.get("user.home_city").active}
        found = touched("user.home_city", "user.location", vault.disputes("all"), active)
    effects = sorted(row["effect"].split(":")[0] for row in found)
    assert effects == ["carried", "held"]
    assert {row["decided_by"] for row in found if row["status"] == "resolved"} == {"dana"}


def budget(vault: Vault) -> str:
    """Three agents on user.travel_spend; a needs-user budget dispute on user.budget.travel."""
    for i, agent in enumerate(("t1", "t2", "t3")):
        vault.agent(agent).add_facts([Fact("user.travel_spend", "The travel budget is $2000", "$2000",
                                           observed_at=T0 + timedelta(seconds=i))], resolve=False)
    vault.agent("a1").add_facts([Fact("user.budget.travel", "The travel budget is $2000", "$2000",
                                      observed_at=T0 + timedelta(minutes=1))], resolve=False)
    d = vault.agent("a2").add_facts([Fact("user.budget.travel", "The travel budget is $9000", "$9000",
                                          observed_at=T0 + timedelta(minutes=2))], resolve=False).decisions[0]
    assert d.outcome == "disputed" and vault.dispute(d.dispute_id).needs_user
    return d.dispute_id


def test_a_merge_of_a_high_stakes_label_into_one_that_is_not_is_refused(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.budget.travel", "user.travel_spend")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        budget(vault)
        before = (len(vault.claims()), len(vault.events()), vault.registry.to_list())
    with pytest.raises(InvalidInput, match="'user.budget.travel' into 'user.travel_spend'.*high stakes"):
        apply_plan(plan, store=tmp_path / "s")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert (len(vault.claims()), len(vault.events()), vault.registry.to_list()) == before


def test_the_other_way_round_keeps_the_budget_dispute_waiting_and_protects_new_writes(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.travel_spend", "user.budget.travel")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        dispute = budget(vault)
    assert apply_plan(plan, store=tmp_path / "s").rekeyed == 3
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        view = vault.get("user.budget.travel")
        assert vault.dispute(dispute).status == "open" and {c.value for c in view.active} == {"$2000"}
        late = vault.agent("t4").add_facts([Fact("user.travel_spend", "The travel budget is $50", "$50")],
                                           resolve=False).decisions[0]
        assert (late.entity, late.outcome, late.strategy) == ("user.budget.travel", "disputed", "high_stakes")


@pytest.mark.parametrize("key,alias", [("user.spend_plan", "user.budget.party"), ("user.pay_with", "user.payment.card")])
def test_a_registry_alias_from_a_high_stakes_label_to_an_unprotected_key_is_refused(tmp_path, key, alias):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        before = vault.registry.to_list()
        with pytest.raises(InvalidInput, match=f"'{alias}' is high stakes"):
            vault.register(RegistryEntry(key, "what the user plans to spend", "one", (alias,)))
        assert vault.registry.to_list() == before
        vault.register(RegistryEntry("user.budget.plan", "a budget", "one", ("user.spend_plan",)))  # raising it is fine
        assert vault.registry.canonical("user.spend_plan") == "user.budget.plan"
