"""Issue 12 in cluster mode: export, import, reindex and normalize through the shard
owners (2 shards, 4 partitions, the session's Ray)."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pyarrow.parquet as pq
import pytest
import ray
from bulk_data import fill, reads
from scenarios import authority_dispute, recency_supersede
from typer.testing import CliRunner

from vault_ray import ClusterError, Fact, HashingEmbedder, StoreMismatch, Vault
from vault_ray.cli import app
from vault_ray.storage.layout import partition_of


def test_a_cluster_export_restores_into_a_cluster_and_into_an_embedded_store(cluster, tmp_path):
    source = cluster("source")
    fill(source, claims=400, seed=5)
    expected = reads(source)
    exported = source.export(tmp_path / "export")
    assert exported.rows["claims"] == len(expected["claims"]) and exported.rows["disputes"] > 0
    namespace = source.info().namespace
    cli = CliRunner().invoke(app, ["export", "--address", "auto", "--namespace", namespace, "--out", str(tmp_path / "cli")])
    assert cli.exit_code == 0, cli.output
    assert json.loads((tmp_path / "cli" / "manifest.json").read_text())["rows"] == exported.rows

    copy = cluster("copy")
    restored = copy.import_from(tmp_path / "export")
    assert restored.mode == "restore" and restored.rows == exported.rows
    assert reads(copy) == expected and all(copy.check().values())
    again = copy.import_from(tmp_path / "export")
    assert (again.mode, again.claims, again.skipped) == ("merge", 0, exported.rows["claims"])
    assert reads(copy, explain=False)["events"] == expected["events"]

    with Vault.open(tmp_path / "embedded", embedder=HashingEmbedder(), partitions=4) as vault:
        vault.import_from(tmp_path / "export")
        assert reads(vault) == expected


def test_a_cluster_reindex_serves_reads_meanwhile_then_switches_every_shard(cluster):
    from vault_ray.evals.reindex import reindex

    vault = cluster("reindex")
    authority_dispute(vault)
    recency_supersede(vault)
    fill(vault, claims=300, seed=9)
    namespace = vault.info().namespace
    seen = []

    def progress(done: int, total: int) -> None:
        # the old vectors answer while the new ones are staged
        seen.append((done, total, vault.search("what timezone is the user in?", k=1)[0].claim.text))
        if len(seen) == 2:  # written while the job runs: embedded by its catch-up before the switch
            vault.agent("late").add_facts([Fact("user.pets", "The user has a cat named Tom", "cat")], resolve=False)

    result = reindex("hashing", dim=64, address="auto", namespace=namespace, batch_size=32, on_progress=progress)
    assert any(0 < done < total for done, total, _ in seen) and {text for *_, text in seen} == {"The user is in PST"}
    assert (result.embedder, result.dim, result.caught_up) == ("hashing-64", 64, 1)

    # a client still on the old embedder reads, but neither searches nor writes
    assert vault.get("user.timezone").contested
    vault._backend._control_at = 0.0  # the control cache has expired: the read asks the control actor
    assert vault.get("user.timezone").contested and vault.history("user.timezone")
    with pytest.raises(StoreMismatch, match="reindexed"):
        vault.search("what timezone is the user in?")
    with pytest.raises(StoreMismatch, match="reindexed"):
        vault.agent("old").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    with pytest.raises(StoreMismatch, match="vault-ray reindex"):
        Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder())

    new = Vault.connect("auto", namespace=namespace, embedder=HashingEmbedder(dim=64))
    assert new.info().dim == 64 and all(new.check().values())
    assert new.search("what timezone is the user in?", k=1)[0].claim.text == "The user is in PST"
    assert new.search("the user has a cat named Tom", k=1)[0].claim.agent == "late"
    # a restarted control actor takes the store's new embedder
    ray.kill(ray.get_actor("vault-control", namespace=namespace), no_restart=False)
    again = connect_when_back(namespace, HashingEmbedder(dim=64))
    assert again.info().embedder == "hashing-64" and again.get("user.timezone").contested
    assert again.search("what timezone is the user in?", k=1)[0].claim.text == "The user is in PST"


def connect_when_back(namespace: str, embedder, timeout: float = 90.0) -> Vault:
    """Join once the restarted control actor answers (joining does not wait for a restart)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return Vault.connect("auto", namespace=namespace, embedder=embedder)
        except ClusterError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_cluster_normalize_merges_across_partitions_through_the_shards(cluster, tmp_path):
    from vault_ray.evals.normalize import apply_plan, normalize

    vault = cluster("normalize")
    vault.set_strategy("user.location", "authority")
    vault.set_authority("agent-a", "user.location", 0.9)
    paris = vault.agent("agent-a").add_facts([Fact("user.location", "The user lives in Paris", "Paris")]).decisions[0]
    # written before the registry named `user.dwelling` an alias of user.location (the admin adds
    # the alias for normalize to merge, past the check that refuses an alias holding claims)
    vault.agent("agent-b").add_facts([Fact("user.dwelling", "The user's home is in Rome", "Rome")], resolve=False)
    entry = vault.registry.lookup("user.location")
    vault.register(replace(entry, aliases=(*entry.aliases, "user.dwelling")), check_claims=False)
    assert partition_of("user.dwelling", 4) != partition_of("user.location", 4)
    namespace = vault.info().namespace

    planned = normalize(address="auto", namespace=namespace, out=tmp_path / "plan", embedder="hashing")
    merges = [r for r in pq.read_table(planned.plan_path).to_pylist() if r["action"] == "merge"]
    assert [(r["from_label"], r["to_label"], r["decided_by"]) for r in merges] == [
        ("user.dwelling", "user.location", "registry alias")]
    applied = apply_plan(planned.plan_path, address="auto", namespace=namespace)
    assert (applied.rekeyed, applied.retired, applied.outcomes) == (1, 1, {"disputed": 1})

    view = vault.get("user.location")
    assert view.contested and set(view.values) == {"Paris", "Rome"}
    (dispute,) = vault.disputes()
    assert dispute.incumbents == (paris.claim_id,)
    rome = vault.claim(dispute.challenger)
    assert (rome.aligned_from, rome.agent) == ("user.dwelling", "agent-b")
    assert "re-keyed from user.dwelling" in vault.explain(rome.id).text()
    (old,) = vault.history("user.dwelling")
    assert old.superseded_by == rome.id and vault.get("user.dwelling") == vault.get("user.location")  # the alias reads its key
    events = len(vault.events())
    assert apply_plan(planned.plan_path, address="auto", namespace=namespace).rekeyed == 0
    assert len(vault.events()) == events and all(vault.check().values())


def test_cluster_normalize_carries_a_persons_decision_through_the_shards(cluster, tmp_path):
    import pyarrow as pa

    from vault_ray.evals.normalize import apply_plan
    from vault_ray.evals.plan_report import PLAN_SCHEMA

    vault = cluster("carry")
    vault.set_strategy("user.home_city", "authority")
    vault.set_authority("agent-a", "user.home_city", 0.9)
    vault.agent("agent-a").add_facts([Fact("user.home_city", "The user lives in Paris", "Paris")], resolve=False)
    said = vault.agent("agent-b").add_facts([Fact("user.home_city", "The user lives in Rome", "Rome")], resolve=False)
    rome = said.decisions[0]
    vault.resolve_dispute(rome.dispute_id, winner=rome.claim_id, decided_by="dana")
    vault.agent("agent-c").add_facts([Fact("user.location", "The user lives in Oslo", "Oslo")])  # newer than Rome
    assert partition_of("user.home_city", 4) != partition_of("user.location", 4)
    plan = tmp_path / "plan.parquet"
    pq.write_table(pa.Table.from_pylist([{"plan": "p", "action": "merge", "approved": True, "from_label": "user.home_city",
                                          "to_label": "user.location"}], schema=PLAN_SCHEMA), plan)
    applied = apply_plan(plan, address="auto", namespace=vault.info().namespace)
    assert (applied.carried, applied.held, applied.rekeyed) == (1, {}, 1)
    (dispute,) = vault.disputes()  # Oslo is newer, but Rome was a person's choice: a person decides
    assert dispute.entity == "user.location" and dispute.needs_user and vault.claim(dispute.challenger).value == "Rome"
    assert all(vault.check().values())


def test_a_cluster_reindex_onto_the_stores_own_embedder_stops_before_any_job(cluster, monkeypatch):
    """The store's embedder is read from the control actor before the store is joined as a
    job target, an actor pool starts or a progress bar shows: a rerun says so and exits 0."""
    from vault_ray.errors import NothingToReindex
    from vault_ray.evals import reindex as job

    vault = cluster("rerun")
    vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
    namespace = vault.info().namespace

    def no_job(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the store was opened as a job target")

    monkeypatch.setattr(job, "open_store", no_job)
    with pytest.raises(NothingToReindex, match="already uses 'hashing-384'"):
        job.reindex("hashing", address="auto", namespace=namespace)
    result = CliRunner().invoke(app, ["reindex", "--address", "auto", "--namespace", namespace, "--embedder", "hashing"])
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "already on hashing (hashing-384, 384 dimensions); nothing to do" in said, said
    assert "claims/s" not in said


def test_after_a_cluster_reindex_to_another_hashing_size_hashing_on_the_cli_takes_the_stores_size(cluster):
    """qa9 F2: `--hashing` with `--address` meant 384 dimensions, so no CLI command reached a store
    reindexed to `--embedder hashing --dim 128`; the size is now the control actor's."""
    vault = cluster("hashdim")
    vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan"),
                                Fact("user.city", "The user lives in Lyon", "Lyon")])
    namespace = vault.info().namespace
    join = ["--address", "auto", "--namespace", namespace, "--hashing"]
    env = {"COLUMNS": "300"}
    moved = CliRunner().invoke(app, ["reindex", "--address", "auto", "--namespace", namespace, "--embedder", "hashing",
                                     "--dim", "128"], env=env)
    assert moved.exit_code == 0 and "-> hashing-128 (128)" in moved.output, moved.output
    got = CliRunner().invoke(app, ["get", "user.diet", *join], env=env)
    assert got.exit_code == 0 and "vegan" in got.output, got.output
    found = CliRunner().invoke(app, ["search", "the user lives in Lyon", *join, "-k", "1"], env=env)
    assert found.exit_code == 0 and "Lyon" in found.output, found.output
    written = CliRunner().invoke(app, ["chat", "--agent", "b", *join], input="/quit\n", env=env)
    assert "error" not in written.output, written.output
