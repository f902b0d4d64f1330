"""Issue 12: entity normalization on an embedded store whose labels drifted: the plan
(local-model similarity on Ray Data, registry, reasoner) holds the right merges and
none of the look-alikes; applying it puts merged values through conflict detection,
makes old labels align, shows in `explain`, and changes nothing the second time."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from drifted import EXPECTED_INTO, EXPECTED_PAIRS, NEVER_MERGED, write_drifted
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Status, Vault
from vault_ray.cli import app

pytestmark = pytest.mark.slow


def counts(vault: Vault) -> tuple[int, int, int]:
    return len(vault.claims()), len(vault.events()), len(vault.disputes(None))


def test_normalize_plans_the_right_merges_and_applies_them(ray_session, tmp_path):
    store, out = tmp_path / "store", tmp_path / "plan"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=8) as vault:
        write_drifted(vault)
        before = {c.id: c for c in vault.claims()}

    runner = CliRunner()
    result = runner.invoke(app, ["normalize", "--store", str(store), "--out", str(out)])
    assert result.exit_code == 0, result.output
    plan = pq.read_table(out / "plan.parquet").to_pylist()
    merges = [r for r in plan if r["action"] == "merge"]
    print("\n" + (out / "plan.md").read_text())
    assert {r["from_label"]: r["to_label"] for r in merges if r["to_label"] in EXPECTED_INTO.values()} == EXPECTED_INTO
    assert {frozenset((r["from_label"], r["to_label"])) for r in merges if r["to_label"] not in EXPECTED_INTO.values()} \
        == EXPECTED_PAIRS
    assert not NEVER_MERGED & {label for r in merges for label in (r["from_label"], r["to_label"])}
    assert all(r["approved"] for r in merges) and not any(r["approved"] for r in plan if r["action"] == "keep")
    residence = next(r for r in merges if r["from_label"] == "user.residence")
    assert residence["claims"] == 1 and residence["strategy"] == "authority" and residence["evidence"]
    assert {(c["value"], c["against_value"]) for c in residence["conflicts"]} >= {("Berlin", "Lyon")}
    assert "`user.residence` -> `user.location`" in (out / "plan.md").read_text()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:  # planning changed nothing
        assert {c.id: c for c in vault.claims()} == before

    result = runner.invoke(app, ["normalize", "--store", str(store), "--apply", str(out / "plan.parquet")])
    assert result.exit_code == 0, result.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        # agent-b's Berlin met agent-a's Lyon under authority: a dispute, nothing silently lost
        location = vault.get("user.location")
        assert location.contested and set(location.values) == {"Lyon", "Berlin"}
        (dispute,) = vault.disputes()
        berlin = vault.claim(dispute.challenger)
        assert (berlin.entity, berlin.aligned_from, berlin.agent, berlin.status) == (
            "user.location", "user.residence", "agent-b", Status.DISPUTED)
        # agent-d's newer Initech beat agent-e's Globex by recency: a strategy decision
        employer = vault.get("user.employer")
        assert employer.values == ("Initech",) and not employer.contested
        globex = next(c for c in vault.history("user.employer") if c.value == "Globex")
        assert globex.status == Status.SUPERSEDED and globex.superseded_by == employer.active[0].id
        # the old labels keep their history, every claim pointing at its re-keyed copy; as aliases
        # whose own claims are gone, they read their target
        for label in ("user.residence", "user.home_town", "user.workplace"):
            target = vault.registry.canonical(label)
            assert target != label and vault.get(label) == vault.get(target)
            for old in vault.history(label):
                if before[old.id].status != Status.SUPERSEDED:
                    assert vault.claim(old.superseded_by).aligned_from == label
        text = vault.explain(berlin.id).text()
        assert "entity merged" in text and "re-keyed from user.residence" in text and "aligned from user.residence" in text
        assert "user.residence" in vault.registry.lookup("user.location").aliases
        assert all(vault.check().values())
        after = counts(vault)

    result = runner.invoke(app, ["normalize", "--store", str(store), "--apply", str(out)])
    assert result.exit_code == 0 and "0 alias(es) added, 0 claim(s) re-keyed" in result.output, result.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert counts(vault) == after  # applying twice changes nothing
        (decision,) = vault.agent("agent-k").add_facts([Fact("user.home_town", "The user's home town is Nice", "Nice")])
        assert (decision.entity, decision.aligned_from) == ("user.location", "user.home_town")  # future writes align

    empty = tmp_path / "empty"  # a store with nothing to merge: said so, no `--apply` line, a plan that names itself
    Vault.open(empty, embedder=HashingEmbedder(), partitions=2).close()
    result = runner.invoke(app, ["normalize", "--store", str(empty), "--out", str(tmp_path / "none")])
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "nothing to merge (no two labels look like one thing), nothing to apply" in said
    assert "apply:" not in said and pq.read_table(tmp_path / "none" / "plan.parquet").schema.metadata[b"vault_ray.plan"]
