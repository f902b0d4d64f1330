"""Applying a merge plan on an embedded store (evals/normalize.py `apply_plan`; no Ray:
the apply step is writes through the partition owners only)."""

from __future__ import annotations

from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scenarios import T0

from vault_ray import Fact, HashingEmbedder, InvalidInput, Policy, RateLimit, Status, Vault, WriteRequest
from vault_ray.evals.normalize import apply_plan, rekeyed_id
from vault_ray.evals.plan_report import PLAN_SCHEMA
from vault_ray.registry import RegistryEntry
from vault_ray.storage.layout import partition_of


def write_plan(path, merges: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    rows = [{"plan": "p1", "action": "merge", "approved": True, "from_label": a, "to_label": b, "score": 0.8,
             "decided_by": "similarity", "evidence": "test"} for a, b in merges]
    pq.write_table(pa.Table.from_pylist(rows, schema=PLAN_SCHEMA), path)
    return path


def drifted(vault: Vault) -> None:
    """user.residence holds an open dispute of its own; user.location is decided by recency."""
    vault.set_strategy("user.residence", "authority")
    vault.set_authority("b", "user.residence", 0.9)
    say = [("a", "user.location", "The user lives in Paris", "Paris", 0),
           ("b", "user.residence", "The user resides in Berlin", "Berlin", 1),
           ("c", "user.residence", "The user resides in Rome", "Rome", 2)]
    for agent, label, text, value, hours in say:
        vault.agent(agent).add_facts([Fact(label, text, value, observed_at=T0 + timedelta(hours=hours))], resolve=False)


def totals(vault: Vault) -> tuple[int, int, int]:
    return len(vault.claims()), len(vault.events()), len(vault.disputes(None))


def test_apply_rekeys_across_partitions_and_closes_the_old_labels_dispute(tmp_path):
    assert partition_of("user.residence", 6) != partition_of("user.location", 6)
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
        (old_dispute,) = vault.disputes()
    result = apply_plan(plan, store=tmp_path / "s")
    assert (result.merges, result.aliases, result.rekeyed, result.retired, result.errors) == (1, 1, 2, 2, {})
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        # re-keyed oldest first under recency: Berlin then Rome supersede Paris in turn
        assert vault.get("user.location").values == ("Rome",)
        closed = vault.dispute(old_dispute.id)
        assert closed.status == "resolved" and closed.resolution.decided_by == "normalize"
        for old in vault.history("user.residence"):
            copy = vault.claim(old.superseded_by)
            assert old.status == Status.SUPERSEDED and copy.id == rekeyed_id(old.id, "user.location")
            assert (copy.entity, copy.aligned_from, copy.agent, copy.observed_at) == (
                "user.location", "user.residence", old.agent, old.observed_at)
            assert "re-keyed from user.residence" in vault.explain(copy.id).text()
            assert "merged into user.location" in vault.explain(old.id).text()
        assert vault.registry.lookup("user.residence").key == "user.location"
        assert all(vault.check().values())
        before = totals(vault)
    again = apply_plan(plan, store=tmp_path / "s")
    assert (again.aliases, again.rekeyed, again.retired) == (0, 0, 0)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before


def test_a_run_that_died_after_writing_the_copies_is_finished_by_the_next(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    with Vault.open(tmp_path / "done", embedder=HashingEmbedder(), partitions=4) as vault:
        drifted(vault)
    apply_plan(plan, store=tmp_path / "done")
    with Vault.open(tmp_path / "crashed", embedder=HashingEmbedder(), partitions=4) as vault:
        drifted(vault)
        # what a run does before it retires the originals: the alias, then the copies (then it died)
        vault.register(RegistryEntry("user.location", "where the user lives", "one", ("user.residence",)), check_claims=False)
        live = [c for c in vault.history("user.residence") if c.status != Status.SUPERSEDED]
        vault.write_batch([WriteRequest(c.agent, facts=[Fact(c.entity, c.text, c.value, observed_at=c.observed_at,
                                                             claim_id=rekeyed_id(c.id, "user.location"))])
                           for c in sorted(live, key=lambda c: c.observed_at)])
        assert len(vault.get("user.residence").active) == 1  # both labels live: nothing lost, nothing finished
    finished = apply_plan(plan, store=tmp_path / "crashed")
    assert finished.retired == 2
    with Vault.open(tmp_path / "crashed", embedder=HashingEmbedder()) as vault, \
            Vault.open(tmp_path / "done", embedder=HashingEmbedder()) as done:
        assert len(vault.claims()) == len(done.claims()) == 5  # three originals, two copies: none twice
        copies = [c for c in vault.history("user.location") if c.aligned_from == "user.residence"]
        assert sorted(c.id for c in copies) == sorted(rekeyed_id(c.id, "user.location")
                                                      for c in vault.history("user.residence"))
        assert vault.get("user.location").values == done.get("user.location").values == ("Rome",)


def test_apply_spends_no_agents_write_budget(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        drifted(vault)
        vault.set_policy(Policy(rate_limit=RateLimit(rate=0.001, burst=1)))
    assert apply_plan(plan, store=tmp_path / "s").rekeyed == 2


def test_a_plan_that_would_alias_a_registry_key_changes_nothing(tmp_path):
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location"), ("user.timezone", "user.zone")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        drifted(vault)
        before, registry = totals(vault), vault.registry.to_list()
    with pytest.raises(InvalidInput, match="'user.timezone' is a registry key"):
        apply_plan(plan, store=tmp_path / "s")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert totals(vault) == before and vault.registry.to_list() == registry


def test_an_old_label_reads_the_target_once_its_copies_are_superseded(tmp_path):
    """A QA run: the old label's own claims are all superseded (re-keyed), so it read itself,
    empty, as soon as the copies on the target were superseded in turn."""
    plan = write_plan(tmp_path / "plan.parquet", [("user.residence", "user.location")])
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=6) as vault:
        drifted(vault)
    apply_plan(plan, store=tmp_path / "s")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.location", "The user lives in Oslo", "Oslo")], resolve=False)
        assert vault.get("user.location").values == ("Oslo",)
        assert vault.get("user.residence") == vault.get("user.location")
        assert [c.entity for c in vault.history("user.residence")] == ["user.residence"] * 2  # its history, by name
