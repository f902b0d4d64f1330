"""`eval --from-store`: replay a real store's claim log under other policies."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.cli import app
from vault_ray.errors import InvalidEmbedding, StoreError, StoreMismatch
from vault_ray.evals.from_store import StoredVectors, read_claim_log, what_if, whatif_report

T0 = 1_700_000_000.0
POLICY = Policy(default_strategy="recency", authority={"scheduler": {"*": 0.9}, "chat": {"*": 0.4}})


def fill(vault: Vault) -> None:
    sched, chat = vault.agent("scheduler"), vault.agent("chat")
    sched.add_facts([Fact("user.timezone", "my time zone is pst", value="pst", observed_at=T0 + 100),
                     Fact("user.diet", "the user is vegan", value="vegan", observed_at=T0 + 100)], session="s1")
    chat.add_facts([Fact("user.timezone", "my time zone is cet", value="cet", observed_at=T0 + 200),
                    Fact("user.diet", "my diet is vegan", value="vegan", observed_at=T0 + 150),
                    Fact("user.location", "the user lives in paris", value="paris", observed_at=T0 + 100)],
                   session="c1")


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with Vault.open(path, embedder=HashingEmbedder(), policy=POLICY, partitions=4) as vault:
        fill(vault)
        assert vault.get("user.timezone").values == ("cet",)  # recency: the chat's newer claim won
    return path


def test_store_directory_what_if(store):
    result = what_if(store, ["lww", "store", "recency", "authority"])
    assert result.claims == 5
    assert result.stored == {"user.timezone": "cet", "user.diet": "vegan", "user.location": "paris"}
    assert result.differences("store") == [] and result.differences("recency") == []
    assert result.differences("lww") == []
    # with the store's weights the weaker chat agent could not have replaced the scheduler
    assert result.differences("authority") == ["user.timezone"]
    assert result.answers["authority"]["user.timezone"] == "pst (contested: cet)"


def test_export_directory_what_if(store, tmp_path):
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.export(tmp_path / "export")
    log = read_claim_log(tmp_path / "export")
    assert log.claims.num_rows == 5
    assert log.claims.column("recorded_at").to_pylist() == sorted(log.claims.column("recorded_at").to_pylist())
    # the export's policy.json is the store's policy: its replay answers as the store's does
    assert log.policy.authority == POLICY.authority
    exported = what_if(tmp_path / "export", ["store", "authority"])
    assert exported.differences("store") == [] and exported.differences("authority") == ["user.timezone"]
    assert exported.answers["authority"]["user.timezone"] == "pst (contested: cet)"


def test_a_store_held_by_a_process_is_refused_with_a_hint(tmp_path):
    with Vault.open(tmp_path / "held", embedder=HashingEmbedder(), partitions=1) as vault:
        fill(vault)
        with pytest.raises(StoreError, match="export"):
            read_claim_log(tmp_path / "held")


def test_not_a_claim_log(tmp_path):
    with pytest.raises(StoreError, match="no claim log"):
        read_claim_log(tmp_path)


def test_cli_from_store_writes_report_and_table(store, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval", "--from-store", str(store), "--out", str(out),
                                      "--policies", "store,authority"])
    assert result.exit_code == 0, result.output
    assert "authority" in result.output
    report = (out / "from_store.md").read_text()
    assert "## authority: 1 entities end differently" in report and "| user.timezone | cet | pst (contested: cet) |" in report
    table = pq.read_table(out / "from_store.parquet")
    assert table.column_names == ["entity", "stored", "store", "authority"]


def test_cli_eval_help_and_bad_policy(tmp_path, store):
    runner = CliRunner()
    shown = runner.invoke(app, ["eval", "--help"])
    assert shown.exit_code == 0 and "--from-store" in shown.output and "--scenarios" in shown.output
    from vault_ray.cli import app as cli_app

    command = next(c for c in cli_app.registered_commands if c.name == "eval")
    assert command.callback.__doc__
    import typer.main

    click_command = typer.main.get_command(cli_app).commands["eval"]
    assert all(p.help for p in click_command.params), [p.name for p in click_command.params if not p.help]
    bad = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(tmp_path / "o"), "--policies", "nope"])
    assert bad.exit_code == 2 and "unknown policy" in bad.output


# -- the replay uses the vectors the store holds, whatever model made them ---------------

@pytest.fixture
def store64(tmp_path):
    """A store whose vectors are not the default size: the replay must not re-embed at 384."""
    path = tmp_path / "store64"
    with Vault.open(path, embedder=HashingEmbedder(dim=64), policy=POLICY, partitions=2) as vault:
        fill(vault)
    return path


def stored_vectors(path) -> dict[str, bytes]:
    log = read_claim_log(path)
    return dict(zip(log.claims.column("id").to_pylist(), log.claims.column("embedding").to_pylist(), strict=True))


def as_array(vectors: dict[str, bytes]) -> np.ndarray:
    return np.stack([np.frombuffer(vectors[k], dtype=np.float32) for k in sorted(vectors)])


def assert_replays_hold_the_stored_vectors(source, keep, policies, embedder_name):
    """Each kept replay vault (a store like any other) holds every claim with the vector the
    source stored for it: nothing was embedded anew (StoredVectors refuses to embed), nothing
    embedded by another model."""
    stored = stored_vectors(source)
    assert len(stored) == 5 and all(len(v) == 64 * 4 for v in stored.values())
    for policy in policies:
        replayed = read_claim_log(keep / policy)  # the kept replay vault is a store like any other
        assert (replayed.dim, replayed.embedder) == (64, embedder_name)
        back = stored_vectors(keep / policy)
        assert back.keys() == stored.keys()
        # the vault re-normalizes what it is given: at most one float32 ulp of difference
        np.testing.assert_array_max_ulp(as_array(back), as_array(stored), maxulp=1)


def test_store_replay_writes_exactly_the_stored_vectors(store64, tmp_path):
    log = read_claim_log(store64)
    assert (log.dim, log.embedder, log.missing_vectors) == (64, "hashing-64", 0)
    policies = ["store", "authority", "judge"]
    result = what_if(store64, ["lww", *policies], keep=tmp_path / "replays")
    assert result.differences("store") == [] and result.differences("authority") == ["user.timezone"]
    assert (result.dim, result.embedder, result.missing_vectors) == (64, "hashing-64", 0)
    assert_replays_hold_the_stored_vectors(store64, tmp_path / "replays", policies, "hashing-64")
    assert "stored 64-dimensional embeddings (hashing-64)." in whatif_report(result, str(store64))


def test_export_replay_reads_the_dim_and_embedder_from_the_manifest(store64, tmp_path):
    with Vault.open(store64, embedder=HashingEmbedder(dim=64)) as vault:
        vault.export(tmp_path / "export")
    log = read_claim_log(tmp_path / "export")
    assert (log.dim, log.embedder) == (64, "hashing-64")  # the export's manifest names the store's embedder
    result = what_if(tmp_path / "export", ["recency", "authority"], keep=tmp_path / "replays")
    assert result.differences("authority") == ["user.timezone"]
    assert_replays_hold_the_stored_vectors(tmp_path / "export", tmp_path / "replays", ["recency", "authority"],
                                           "hashing-64")


def test_one_partition_file_reads_the_stores_vault_json(store64):
    log = read_claim_log(store64 / "partitions" / "p0000.duckdb")
    assert (log.dim, log.embedder) == (64, "hashing-64")
    result = what_if(store64 / "partitions" / "p0000.duckdb", ["authority"])
    assert result.claims == log.claims.num_rows


def test_a_claim_without_a_stored_vector_gets_a_hashing_vector_of_the_stores_dim(store64, tmp_path):
    with Vault.open(store64, embedder=HashingEmbedder(dim=64)) as vault:
        vault.export(tmp_path / "export")
    files = sorted((tmp_path / "export").glob("claims/partition=*/part-0.parquet"))
    part = next(p for p in files if pq.read_metadata(p).num_rows)
    table = pq.read_table(part)
    first = pc.equal(pa.array(range(table.num_rows)), 0)
    cleared = pc.if_else(first, pa.scalar(None, table.schema.field("embedding").type), table.column("embedding"))
    pq.write_table(table.set_column(table.schema.get_field_index("embedding"), "embedding", cleared), part)
    cleared_id = table.column("id")[0].as_py()

    result = what_if(tmp_path / "export", ["authority"], keep=tmp_path / "replays")
    assert result.missing_vectors == 1
    assert result.differences("authority") == ["user.timezone"]
    assert "1 claims had none and got hashing vectors" in whatif_report(result, "export")
    replayed = stored_vectors(tmp_path / "replays" / "authority")
    hashed = HashingEmbedder(dim=64).embed([table.column("text")[0].as_py()])[0]
    np.testing.assert_array_max_ulp(np.frombuffer(replayed.pop(cleared_id), dtype=np.float32), hashed, maxulp=1)
    stored = stored_vectors(tmp_path / "export")
    del stored[cleared_id]
    assert replayed.keys() == stored.keys()
    np.testing.assert_array_max_ulp(as_array(replayed), as_array(stored), maxulp=1)


def test_the_replay_embedder_refuses_to_embed():
    with pytest.raises(InvalidEmbedding, match="stored vectors") as caught:
        StoredVectors(64, "all-MiniLM-L6-v2").embed(["a new text"])
    assert caught.value.expected_dim == 64
    assert StoredVectors(64).embed([]).shape == (0, 64) and StoredVectors(64).name == "stored-vectors-64"


def test_vault_json_and_stored_vectors_must_agree(store64):
    meta = json.loads((store64 / "vault.json").read_text())
    (store64 / "vault.json").write_text(json.dumps({**meta, "dim": 32}))
    with pytest.raises(StoreMismatch, match="32 dims"):
        read_claim_log(store64)


def test_a_kept_replay_needs_a_fresh_directory(store64, tmp_path):
    (tmp_path / "replays" / "authority").mkdir(parents=True)
    (tmp_path / "replays" / "authority" / "vault.json").write_text("{}")
    with pytest.raises(StoreError, match="not empty"):
        what_if(store64, ["authority"], keep=tmp_path / "replays")


def test_a_many_valued_answer_keeps_the_markdown_table_whole():
    from vault_ray.evals.from_store import describe

    assert "|" not in describe({"v0", "v1"}, contested=True, challengers=["v2", "v3"])
    assert describe({"v0", "v1"}) == "v0 · v1"


# -- QA 89: the output directory, an empty store, the help at 80 columns ----------------

def test_a_run_removes_the_outputs_of_an_earlier_run_it_does_not_write(store, tmp_path):
    out = tmp_path / "out"
    runner = CliRunner()
    first = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(out), "--policies", "store",
                                "--recommend", "--min-age-days", "0"], env={"COLUMNS": "200"})
    assert first.exit_code == 0 and (out / "proposal.json").exists(), first.output
    (out / "scenarios").mkdir()
    for name in ("report.md", "recommendation.png", "results.parquet", "scenarios/part-0.parquet", "notes.txt",
                 "scenarios/mine.txt"):
        (out / name).write_text("an earlier run's (or the user's)")
    second = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(out), "--policies", "store"])
    assert second.exit_code == 0, second.output
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "from_store.md", "from_store.parquet", "notes.txt", "scenarios", "scenarios/mine.txt"]


def test_a_synthetic_run_keeps_the_scenarios_it_generated_or_replays(tmp_path):
    from vault_ray.cli.eval_out import reads_scenarios_of as _reads_scenarios_of

    out = tmp_path / "out"
    assert _reads_scenarios_of(out, None) and _reads_scenarios_of(out, out / "scenarios")
    assert _reads_scenarios_of(out, out / "scenarios" / "part-0.parquet")
    assert not _reads_scenarios_of(out, tmp_path / "elsewhere") and not _reads_scenarios_of(out, tmp_path)


def test_an_empty_store_has_no_claims_to_evaluate(tmp_path):
    with Vault.open(tmp_path / "empty", embedder=HashingEmbedder()):
        pass
    result = CliRunner().invoke(app, ["eval", "--from-store", str(tmp_path / "empty"), "--out", str(tmp_path / "o")],
                                env={"COLUMNS": "200"})
    assert result.exit_code != 0 and "has no claims to evaluate" in result.output, result.output
    assert "holds no claim log" not in result.output and not (tmp_path / "o").exists()


def test_the_eval_help_is_whole_at_80_columns():
    shown = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0 and "…" not in shown.output, shown.output
    text = " ".join(shown.output.replace("│", " ").split())
    assert "lww, recency, authority, consensus, judge, mixed." in text and "(the default)" not in text
    assert "lww, store, recency, authority, consensus, judge" in text
    assert "--mixed 'user.timezone=authority,user.diet=judge,*=recency'" in text


def test_from_store_accepts_hashing_like_every_memory_command(store, tmp_path):
    """QA qa1 L6: `--hashing` was "No such option"; the replay uses the stored vectors either way."""
    runner = CliRunner()
    with_flag = runner.invoke(app, ["eval", "--from-store", str(store), "--hashing", "--out", str(tmp_path / "a"),
                                    "--policies", "store,authority"])
    without = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(tmp_path / "b"),
                                  "--policies", "store,authority"])
    assert with_flag.exit_code == without.exit_code == 0, with_flag.output
    assert (tmp_path / "a" / "from_store.md").read_text() == (tmp_path / "b" / "from_store.md").read_text()
    synthetic = runner.invoke(app, ["eval", "--hashing", "--scenarios", "2", "--out", str(tmp_path / "c")])
    assert synthetic.exit_code == 2 and "--hashing is for --from-store" in " ".join(synthetic.output.split())
    assert not (tmp_path / "c").exists()
