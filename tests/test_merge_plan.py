"""Deciding merges from scored label pairs (evals/merge_plan.py), the plan files
(evals/plan_report.py) and the embedder specs of the bulk jobs: no Ray, no model."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vault_ray import EntityRegistry, InvalidInput, Policy, ScriptedReasoner
from vault_ray.evals.embedder_spec import EmbedderSpec
from vault_ray.evals.label_profiles import CLAIM_COLUMNS, build_profiles, mask_value
from vault_ray.evals.merge_plan import Thresholds, build_plan, decide_pairs
from vault_ray.evals.normalize import check_merges
from vault_ray.evals.plan_report import approved_merges, read_plan, write_plan
from vault_ray.evals.similarity import PAIR_SCHEMA, combine

T = datetime(2026, 1, 1, tzinfo=UTC).timestamp()


def claims(*rows: tuple[str, str, str, str | None, str]) -> pa.Table:
    """(agent, entity, text, value, status) rows as a claims table."""
    return pa.Table.from_pylist([
        {"id": f"c{i}", "entity": e, "text": t, "value": v, "kind": "semantic", "agent": a, "session": None,
         "status": s, "observed_at": T + i, "recorded_at": T + i, "confidence": 1.0}
        for i, (a, e, t, v, s) in enumerate(rows)]).select(CLAIM_COLUMNS)


def pairs(*rows: tuple[str, str, float]) -> pa.Table:
    """(a, b, combined) with every signal at `combined`."""
    return pa.Table.from_pylist([{"a": a, "b": b, "label": c, "statement": c, "values": c, "described": math.nan,
                                  "combined": c, "node": ""} for a, b, c in rows], schema=PAIR_SCHEMA)


def plan_for(table: pa.Table, scored: pa.Table, reasoner=None, policy: Policy | None = None):  # type: ignore[no-untyped-def]
    policy, registry = policy or Policy(), EntityRegistry.builtin()
    reasoner = reasoner or ScriptedReasoner()
    profiles = build_profiles(table, policy, registry)
    decisions = decide_pairs(scored, profiles, reasoner, registry, Thresholds())
    return build_plan(decisions, profiles, reasoner, policy, Thresholds(), similarity_embedder="test", store="s")


def test_masking_the_value_leaves_the_statement():
    assert mask_value("The user lives in Paris", "Paris") == ("the user lives in ___", "Paris")
    assert mask_value("The user likes jazz", "likes:jazz") == ("the user likes ___", "jazz")
    assert mask_value("The user works 9 to 5 on weekdays", None) == ("the user works ___ on weekdays", "9 to 5")
    assert mask_value("The user is vegan", None) == ("the user is vegan", None)


def test_the_combined_score_is_the_geometric_mean_of_the_signals_there_are():
    assert combine(0.81, 0.81, math.nan, math.nan) == pytest.approx(0.81)
    assert combine(0.9, 0.9, 0.1, math.nan) == pytest.approx((0.9 * 0.9 * 0.1) ** (1 / 3))
    assert combine(0.2, 0.8, 0.8, 0.8) == pytest.approx(0.8)  # a registry description stands in for the name


def test_merges_go_to_the_registry_key_and_carry_their_conflicts():
    table = claims(("a", "user.location", "The user lives in Paris", "Paris", "active"),
                   ("b", "user.residence", "The user resides in Berlin", "Berlin", "active"),
                   ("b", "user.residence", "The user resides in Rome", "Rome", "superseded"),
                   ("c", "user.home_town", "The user's home town is Paris", "Paris", "active"))
    plan = plan_for(table, pairs(("user.location", "user.residence", 0.7), ("user.location", "user.home_town", 0.8),
                                 ("user.residence", "user.home_town", 0.6)))
    into = {m.source: m for m in plan.merges}
    assert {s: m.target for s, m in into.items()} == {"user.residence": "user.location", "user.home_town": "user.location"}
    residence = into["user.residence"]
    assert (residence.claims, residence.claims_total, residence.decided_by) == (1, 2, "similarity")
    assert {(c["value"], c["against_value"]) for c in residence.conflicts} == {("Berlin", "Paris")}
    assert into["user.home_town"].conflicts == []  # the same value: corroboration, no conflict


def test_the_guards_keep_look_alikes_apart_whatever_they_score():
    table = claims(("a", "user.job", "The user is a nurse", "nurse", "active"),
                   ("b", "user.employer", "The user works at Acme", "Acme", "active"),
                   ("a", "user.child_1", "The user's first child is Ann", "Ann", "active"),
                   ("a", "user.child_2", "The user's second child is Bo", "Bo", "active"),
                   ("a", "user.car", "The user drives a Fiat", "Fiat", "active"),
                   ("b", "user.car", "The user drives a Kia", "Kia", "active"),
                   ("a", "user.bike", "The user rides a Trek", "Trek", "active"),
                   ("b", "user.bike", "The user rides a Giant", "Giant", "active"),
                   ("a", "user.languages_spoken", "The user speaks Welsh", "Welsh", "active"),
                   ("a", "user.phone.work", "Work phone 555-0100", "555-0100", "active"),
                   ("b", "user.phone.home", "Home phone 555-0199", "555-0199", "active"))
    scored = pairs(("user.job", "user.employer", 0.95), ("user.child_1", "user.child_2", 0.95),
                   ("user.car", "user.bike", 0.95), ("user.languages_spoken", "user.job", 0.95),
                   ("user.phone.work", "user.phone.home", 0.95))
    policy = Policy().with_cardinality("user.languages_spoken", "many")
    plan = plan_for(table, scored, policy=policy)
    assert plan.merges == []
    why = {frozenset((d.a, d.b)): d.decided_by for d in plan.kept}
    assert why == {frozenset(("user.job", "user.employer")): "both registry keys",
                   frozenset(("user.child_1", "user.child_2")): "numbered differently",
                   frozenset(("user.car", "user.bike")): "agents keep both",
                   frozenset(("user.languages_spoken", "user.job")): "cardinality differs",
                   frozenset(("user.phone.work", "user.phone.home")): "labels contrast"}


def test_the_ambiguous_band_is_the_reasoners_and_a_registry_alias_merges_unscored():
    table = claims(("a", "user.spouse", "The user's wife is Ann", "Ann", "active"),
                   ("b", "user.partner", "The user's partner is Bo", "Bo", "active"),
                   ("c", "user.pet_name", "The user's dog is Rex", "Rex", "active"),
                   ("d", "user.dog", "The user has a dog called Max", "Max", "active"),
                   ("e", "user.city", "The user lives in Oslo", "Oslo", "active"))
    reasoner = ScriptedReasoner(disambiguate=lambda fact, candidates, registry: (
        "user.spouse" if fact.text == "The user's partner is Bo" else None))
    plan = plan_for(table, pairs(("user.spouse", "user.partner", 0.6), ("user.pet_name", "user.dog", 0.6)), reasoner)
    into = {m.source: (m.target, m.decided_by) for m in plan.merges}
    assert into == {"user.partner": ("user.spouse", "reasoner"), "user.city": ("user.location", "registry alias")}
    assert [(d.a, d.b, d.decided_by) for d in plan.kept] == [("user.pet_name", "user.dog", "reasoner declined")]
    assert reasoner.calls["disambiguate"] >= 2


def test_a_chain_does_not_pull_in_a_label_kept_apart_from_the_cluster():
    table = claims(("a", "user.alpha", "The user's alpha is x", "x", "active"),
                   ("b", "user.beta", "The user's beta is y", "y", "active"),
                   ("b", "user.gamma", "The user's gamma is z", "z", "active"),
                   ("b", "user.beta", "The user's beta is w", "w", "active"))
    plan = plan_for(table, pairs(("user.alpha", "user.beta", 0.9), ("user.beta", "user.gamma", 0.8),
                                 ("user.alpha", "user.gamma", 0.3)))
    assert [(m.source, m.target) for m in plan.merges] == [("user.alpha", "user.beta")]  # the most live claims
    assert any({d.a, d.b} == {"user.beta", "user.gamma"} and d.decided_by == "not clustered" for d in plan.kept)


def test_a_merge_never_lowers_protection_a_high_stakes_label_takes_the_others_in():
    table = claims(*[(a, "user.food_spend", "The food budget is $2000", "$2000", "active") for a in "xyz"],
                   ("a", "user.budget.food", "The food budget is $2000", "$2000", "active"),
                   ("b", "user.budget.food", "The food budget is $9000", "$9000", "disputed"),
                   ("c", "user.budget.home", "The home budget is $500", "$500", "active"),
                   ("d", "user.location", "The user lives in Oslo", "Oslo", "active"))
    plan = plan_for(table, pairs(("user.food_spend", "user.budget.food", 0.84),
                                 ("user.budget.home", "user.location", 0.9)))
    # fewer live claims, but high stakes: the target (its disputes keep waiting for a person)
    assert [(m.source, m.target) for m in plan.merges] == [("user.food_spend", "user.budget.food")]
    (kept,) = [d for d in plan.kept if {d.a, d.b} == {"user.budget.home", "user.location"}]
    assert kept.decided_by == "lowers protection" and "user.budget.home is high stakes" in kept.evidence


def test_a_plan_on_disk_and_what_apply_takes_from_it(tmp_path):
    table = claims(("a", "user.location", "The user lives in Paris", "Paris", "active"),
                   ("b", "user.residence", "The user resides in Berlin", "Berlin", "active"))
    plan = plan_for(table, pairs(("user.location", "user.residence", 0.7)))
    parquet, markdown = write_plan(plan, tmp_path)
    assert "`user.residence` -> `user.location`" in markdown.read_text()
    rows = approved_merges(read_plan(tmp_path))
    assert [(r["from_label"], r["to_label"], r["plan"]) for r in rows] == [("user.residence", "user.location", plan.plan_id)]
    edited = pq.read_table(parquet)
    pq.write_table(edited.set_column(edited.schema.get_field_index("approved"), "approved", pa.array([False])), parquet)
    assert approved_merges(read_plan(parquet)) == []  # a reviewer's veto
    pq.write_table(pa.table({"x": [1]}), tmp_path / "other.parquet")
    with pytest.raises(InvalidInput, match="not a merge plan"):
        read_plan(tmp_path / "other.parquet")
    with pytest.raises(InvalidInput, match="no merge plan"):
        read_plan(tmp_path / "missing")


@pytest.mark.parametrize(("rows", "why"), [
    ([("user.a", "user.b"), ("user.a", "user.c")], "merges 'user.a' into"),
    ([("user.a", "user.b"), ("user.b", "user.c")], "into others and others into them"),
    ([("user.a", "user.a")], "merges 'user.a' into"),
    ([("User.A", "user.b")], "invalid entity"),
])
def test_a_plan_whose_merges_contradict_each_other_is_refused(rows, why):
    with pytest.raises(InvalidInput, match=why):
        check_merges([{"from_label": a, "to_label": b} for a, b in rows])


def test_embedder_specs():
    assert EmbedderSpec.parse("local").name == "all-MiniLM-L6-v2"
    assert (EmbedderSpec.parse("hashing").name, EmbedderSpec.parse("hashing", 64).dim) == ("hashing-384", 64)
    assert EmbedderSpec.parse("hashing-32").build().name == "hashing-32"
    assert EmbedderSpec.parse("openai:text-embedding-3-small").name == "openai:text-embedding-3-small:1536"
    assert EmbedderSpec.parse("openai:my-model:768").dim == 768
    for bad, why in [("word2vec", "unknown embedder"), ("openai:", "name the model"), ("openai:mine", "give --dim"),
                     ("hashing-x", "unknown embedder")]:
        with pytest.raises(InvalidInput, match=why):
            EmbedderSpec.parse(bad)
    with pytest.raises(InvalidInput, match="384-dimensional"):
        EmbedderSpec.parse("local", 128)
