"""What `apply_plan` checks before it changes a store (evals/plan_checks.py): the plan was
made for this store, and approved "keep" rows merge their pair (no Ray: applying is
writes through the partition owners only)."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_normalize_apply import drifted, totals
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidInput, Vault
from vault_ray.cli import app
from vault_ray.evals.job_store import open_store
from vault_ray.evals.normalize import apply_plan, read_claims
from vault_ray.evals.plan_checks import store_identity
from vault_ray.evals.plan_report import PLAN_SCHEMA

runner = CliRunner()


def identity(store) -> str:  # type: ignore[no-untyped-def]
    with open_store(store) as job:
        return json.dumps(store_identity(job, read_claims(job)))


def write_plan(path, merges=(), keeps=(), store: str | None = None):  # type: ignore[no-untyped-def]
    rows = [{"plan": "p1", "action": "merge", "approved": True, "from_label": a, "to_label": b, "score": 0.8,
             "decided_by": "similarity", "evidence": "test", "store": store} for a, b in merges]
    rows += [{"plan": "p1", "action": "keep", "approved": approved, "from_label": a, "to_label": b, "score": 0.6,
              "decided_by": "reasoner declined", "evidence": "test", "store": store} for a, b, approved in keeps]
    pq.write_table(pa.Table.from_pylist(rows, schema=PLAN_SCHEMA), path)
    return path


def three_labels(vault: Vault) -> None:
    drifted(vault)
    vault.agent("d").add_facts([Fact("user.home_town", "The user's home town is Lyon", "Lyon")], resolve=False)


def test_an_approved_keep_row_merges_its_pair_and_an_unapproved_one_does_not(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
    plan = write_plan(tmp_path / "plan.parquet", keeps=[("user.location", "user.residence", True),
                                                        ("user.home_town", "user.location", False)])
    result = apply_plan(plan, store=tmp_path / "s")
    assert (result.merges, result.accepted, result.retired) == (1, 1, 2)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        # into the registry key (user.location is one); the unapproved pair stays apart
        assert vault.registry.lookup("user.residence").key == "user.location"
        assert vault.get("user.residence") == vault.get("user.location")
        assert vault.registry.lookup("user.home_town") is None and vault.get("user.home_town").values == ("Lyon",)
        assert all(vault.check().values())


def test_an_accepted_pair_joins_the_cluster_a_merge_row_makes(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
    plan = write_plan(tmp_path / "plan.parquet", merges=[("user.residence", "user.location")],
                      keeps=[("user.home_town", "user.residence", True)])
    result = apply_plan(plan, store=tmp_path / "s")
    assert (result.merges, result.accepted) == (2, 1)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert {vault.registry.lookup(x).key for x in ("user.residence", "user.home_town")} == {"user.location"}


def test_an_accepted_pair_takes_the_labels_merged_into_its_source_along(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
    # home_town <- residence (a merge row), then the pair residence/location accepted: both go to the key
    plan = write_plan(tmp_path / "plan.parquet", merges=[("user.residence", "user.home_town")],
                      keeps=[("user.residence", "user.location", True)])
    assert apply_plan(plan, store=tmp_path / "s").accepted == 1
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert {vault.registry.lookup(x).key for x in ("user.residence", "user.home_town")} == {"user.location"}
        assert all(vault.check().values())


def test_an_accepted_pair_of_different_cardinalities_is_refused_naming_the_row(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
        vault.set_cardinality("user.home_town", "many")
        before = totals(vault)
    plan = write_plan(tmp_path / "plan.parquet", merges=[("user.residence", "user.location")],
                      keeps=[("user.home_town", "user.location", True)])
    with pytest.raises(InvalidInput, match=r"approved keep row 'user.home_town' / 'user.location'.*'many'"):
        apply_plan(plan, store=tmp_path / "s")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.lookup("user.residence") is None  # nothing applied


def test_cardinality_is_checked_on_the_labels_the_pair_merges_after_the_merge_rows(tmp_path):
    """The labels that meet are each side's cluster target: residence goes to home_town (a
    set) by a merge row, so accepting residence / location would mix a set with one value."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
        vault.set_cardinality("user.home_town", "many")
        before = totals(vault)
    plan = write_plan(tmp_path / "plan.parquet", merges=[("user.residence", "user.home_town")],
                      keeps=[("user.residence", "user.location", True)])
    with pytest.raises(InvalidInput, match=r"keep row 'user.residence' / 'user.location'.*user.home_town.*'many'"):
        apply_plan(plan, store=tmp_path / "s")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.lookup("user.residence") is None  # nothing applied


def test_a_raw_label_of_another_cardinality_merged_into_a_matching_cluster_is_accepted(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        three_labels(vault)
        vault.set_cardinality("user.home_town", "many")
    # home_town (a set) goes to residence (one value) by a reviewed merge row: the pair then
    # joins residence and location, both one value
    plan = write_plan(tmp_path / "plan.parquet", merges=[("user.home_town", "user.residence")],
                      keeps=[("user.home_town", "user.location", True)])
    assert apply_plan(plan, store=tmp_path / "s").accepted == 1
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert {vault.registry.lookup(x).key for x in ("user.residence", "user.home_town")} == {"user.location"}


def test_a_plan_made_for_another_store_is_refused(tmp_path):
    for name in ("mine", "other"):
        with Vault.open(tmp_path / name, embedder=HashingEmbedder(), partitions=6) as vault:
            drifted(vault)
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")], store=identity(tmp_path / "mine"))
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder()) as vault:
        before = totals(vault)
    result = runner.invoke(app, ["normalize", "--store", str(tmp_path / "other"), "--apply", str(plan)])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "made for the store" in said and "mine" in said, said
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.lookup("user.residence") is None
    assert apply_plan(plan, store=tmp_path / "other", any_store=True).rekeyed == 2  # the override
    # a copy (or a moved store, a restored export) holds the plan's claims: it is the plan's store
    shutil.copytree(tmp_path / "mine", tmp_path / "copy")
    assert apply_plan(plan, store=tmp_path / "copy").rekeyed == 2
    result = runner.invoke(app, ["normalize", "--store", str(tmp_path / "mine"), "--apply", str(plan)])
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    assert apply_plan(plan, store=tmp_path / "mine").warnings == []  # applying again: still its store


def witnessed_store(path, witnesses) -> None:  # type: ignore[no-untyped-def]
    """A store holding the claims `witnesses` ([entity, id] pairs), as a partial import would."""
    with Vault.open(path, embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
        vault.agent("w").add_facts([Fact(e, f"witness {i}", claim_id=i) for e, i in witnesses], resolve=False)


def test_a_store_holding_some_of_the_plans_claims_is_its_store_with_a_warning(tmp_path):
    with Vault.open(tmp_path / "mine", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
        vault.agent("w").add_facts([Fact(f"user.pet_{n}", f"pet {n}") for n in range(8)], resolve=False)
    recorded = json.loads(identity(tmp_path / "mine"))["claims"]
    assert len(recorded) == 8
    witnessed_store(tmp_path / "partial", recorded[:5])  # a partial import: 5 of the 8
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")], store=json.dumps(
        {"mode": "embedded", "store": str(tmp_path / "mine"), "namespace": "vault", "claims": recorded}))
    result = apply_plan(plan, store=tmp_path / "partial")
    assert result.rekeyed >= 2 and "holds 5 of the 8 claims" in result.warnings[0]
    witnessed_store(tmp_path / "other", recorded[:3])  # a few shared ids: not enough to be the plan's store
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder()) as vault:
        before = totals(vault)
    with pytest.raises(InvalidInput, match="made for the store .*holds 3 of the 8 claims"):
        apply_plan(plan, store=tmp_path / "other")
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.lookup("user.residence") is None


def test_a_plan_without_a_store_identity_applies_with_a_warning(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    result = runner.invoke(app, ["normalize", "--store", str(tmp_path / "s"), "--apply", str(plan)])
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "warning: the plan does not say which store" in said, said
    assert "2 claim(s) re-keyed" in said


def test_the_identity_survives_a_pandas_edit(tmp_path):
    """The reviewer's edit path: pandas drops Parquet metadata, not the `store` column."""
    pd = pytest.importorskip("pandas")
    for name in ("mine", "other"):
        with Vault.open(tmp_path / name, embedder=HashingEmbedder(), partitions=6) as vault:
            drifted(vault)
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")], store=identity(tmp_path / "mine"))
    frame = pd.read_parquet(plan)
    frame.to_parquet(tmp_path / "edited.parquet")
    with pytest.raises(InvalidInput, match="made for the store"):
        apply_plan(tmp_path / "edited.parquet", store=tmp_path / "other")


def edited(plan, tmp_path, column: str, values: pa.Array):  # type: ignore[no-untyped-def]
    """The plan with one column replaced as a reviewer's tool might have written it."""
    table = pq.read_table(plan)
    path = tmp_path / f"edited-{column}.parquet"
    pq.write_table(table.set_column(table.schema.get_field_index(column), column, values), path)
    return path


@pytest.mark.parametrize(("column", "values", "said"), [
    ("approved", pa.array(["yes"]), "column 'approved' holds text (string) values, not true/false (boolean)"),
    ("approved", pa.array([1]), "column 'approved' holds number (int64) values, not true/false (boolean)"),
    ("from_label", pa.array([3]), "column 'from_label' holds number (int64) values, not text (string)"),
    ("action", pa.array([True]), "column 'action' holds true/false (boolean) values, not text (string)"),
    ("score", pa.array(["high"]), "column 'score' holds text (string) values, not number (double)"),
])
def test_a_plan_whose_column_holds_another_type_is_refused_in_one_line_and_changes_nothing(tmp_path, column, values,
                                                                                           said):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
        before = totals(vault)
    plan = edited(write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")]), tmp_path, column, values)
    result = runner.invoke(app, ["normalize", "--store", str(tmp_path / "s"), "--apply", str(plan)],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    assert said in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.lookup("user.residence") is None


def test_a_plan_rewritten_with_other_text_and_number_types_still_applies(tmp_path):
    """Large strings (pandas' pyarrow strings), dictionary (categorical) labels, integer scores and an
    all-empty evidence column are the same kinds: the plan applies."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    table = pq.read_table(plan)
    for column, values in (("from_label", pa.array(["user.residence"], pa.large_string())),
                           ("to_label", pa.array(["user.location"]).dictionary_encode()),
                           ("score", pa.array([1])), ("evidence", pa.nulls(1))):
        table = table.set_column(table.schema.get_field_index(column), column, values)
    pq.write_table(table, tmp_path / "rewritten.parquet")
    result = runner.invoke(app, ["normalize", "--store", str(tmp_path / "s"), "--apply", str(tmp_path / "rewritten.parquet")])
    assert result.exit_code == 0, result.output
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert vault.registry.lookup("user.residence").key == "user.location"
