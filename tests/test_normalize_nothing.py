"""A merge plan with nothing to do: `normalize` that found no two labels to merge, or a plan whose
rows a reviewer approved none of. The plan file names its id even with no row (Parquet metadata);
`apply_plan` answers which plan it was and why nothing was done (`nothing_to_do`), opens no store and
records nothing; `vault-ray normalize --apply` says so in one line and exits 0. Before, an empty plan
"applied" as `plan : 0 merge(s)`, with no plan id."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, InvalidInput, Vault
from vault_ray.cli import app
from vault_ray.evals.merge_plan import MergePlan, PairDecision, Thresholds
from vault_ray.evals.normalize import apply_plan
from vault_ray.evals.plan_report import PLAN_SCHEMA, plan_id_of, write_plan


def _plan(kept: list[PairDecision] | None = None) -> MergePlan:
    return MergePlan([], kept or [], Thresholds(), "hashing-384", "s", identity={"mode": "embedded", "claims": []})


@pytest.fixture
def store(tmp_path):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", value="vegan")])
        state = (vault.claims(), vault.events(), vault.registry.to_list(), vault.policy)
    return tmp_path / "s", state


def _state(path) -> tuple:
    with Vault.open(path, embedder=HashingEmbedder()) as vault:
        return vault.claims(), vault.events(), vault.registry.to_list(), vault.policy


def test_an_empty_plan_names_itself_and_applies_as_nothing_to_do(store, tmp_path):
    path, before = store
    plan = _plan()
    parquet, _ = write_plan(plan, tmp_path / "plan")
    table = pq.read_table(parquet)
    assert table.num_rows == 0 and plan_id_of(table) == plan.plan_id  # the id is in the file, not only in plan.md
    result = apply_plan(parquet, store=path)
    assert result.plan_id == plan.plan_id and (result.merges, result.aliases, result.rekeyed) == (0, 0, 0)
    assert result.nothing_to_do == "it found nothing to merge (no two labels look like one thing)"
    assert _state(path) == before
    done = CliRunner().invoke(app, ["normalize", "--store", str(path), "--apply", str(parquet)])
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert f"plan {plan.plan_id}: nothing to apply, nothing was changed: it found nothing to merge" in said
    assert _state(path) == before


def test_a_plan_with_no_approved_row_says_how_to_approve_one(store, tmp_path):
    path, before = store
    kept = PairDecision("user.diet", "user.food", {"combined": 0.6}, False, "reasoner declined", "no claim filed")
    parquet, _ = write_plan(_plan([kept]), tmp_path / "plan")
    result = apply_plan(parquet, store=path)
    assert result.nothing_to_do is not None and "none of its rows is approved (0 merge, 1 keep)" in result.nothing_to_do
    assert _state(path) == before


def test_a_plan_to_apply_that_names_no_plan_is_refused(store, tmp_path):
    path, before = store
    row = {"plan": None, "action": "merge", "approved": True, "from_label": "user.food", "to_label": "user.diet"}
    pq.write_table(pa.Table.from_pylist([row], schema=PLAN_SCHEMA), tmp_path / "p.parquet")
    with pytest.raises(InvalidInput, match="names no plan id"):
        apply_plan(tmp_path / "p.parquet", store=path)
    assert _state(path) == before

