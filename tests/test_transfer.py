"""Export and import on embedded stores (vault_ray/transfer.py, storage/archive.py):
the documented layout, a restore that answers like the original, merges through the
write path, refusals that change nothing, and the CLI."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from bulk_data import fill, reads, searches
from typer.testing import CliRunner

from vault_ray import ExportError, Fact, HashingEmbedder, InvalidPolicy, StoreMismatch, Vault, VaultError
from vault_ray.cli import app


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A filled store (seed scenarios, 700 generated writes, resolutions), its export and its reads: every
    partition holds claims, disputes and events (2,500 writes showed the same at four times the cost)."""
    root = tmp_path_factory.mktemp("transfer")
    with Vault.open(root / "store", embedder=HashingEmbedder(), partitions=8) as vault:
        fill(vault, claims=700)
        result = vault.export(root / "export")
        expected = reads(vault)
    return root / "export", result, expected


def test_the_export_is_the_documented_layout(source):
    export, result, expected = source
    manifest = json.loads((export / "manifest.json").read_text())
    assert manifest["format"] == "vault-ray-export" and manifest["version"] == 1
    assert manifest["store"] == {"partitions": 8, "dim": 384, "embedder": "hashing-384"}
    assert manifest["rows"]["claims"] == len(expected["claims"]) > 600
    assert manifest["rows"]["disputes"] == len(expected["disputes"]) > 50
    assert result.rows == manifest["rows"] and result.partitions == 8
    # each table is one dataset partitioned by partition number (Hive layout)
    claims = ds.dataset(export / "claims", partitioning="hive").to_table()
    assert claims.num_rows == manifest["rows"]["claims"]
    assert sorted(set(claims.column("partition").to_pylist())) == list(range(8))
    assert {len(b) for b in claims.column("embedding").to_pylist()} == {384 * 4}
    for entry in manifest["files"]:
        if entry["table"]:
            assert entry["path"] == f"{entry['table']}/partition={entry['partition']}/part-0.parquet"
            assert pq.read_metadata(export / entry["path"]).num_rows == entry["rows"]
    assert json.loads((export / "policy.json").read_text()) == expected["policy"]
    assert json.loads((export / "registry.json").read_text()) == expected["registry"]


def test_a_restored_store_answers_like_the_original(source, tmp_path):
    export, result, expected = source
    with Vault.open(tmp_path / "copy", embedder=HashingEmbedder(), partitions=8) as vault:
        restored = vault.import_from(export)
        assert restored.mode == "restore" and restored.rows == result.rows
        assert all(vault.check().values())
        got = reads(vault)
    for key in expected:
        assert got[key] == expected[key], key
    # and it reopens from its logs with the same answers
    with Vault.open(tmp_path / "copy", embedder=HashingEmbedder()) as vault:
        assert searches(vault) == expected["search"]


def test_a_second_import_changes_nothing(source, tmp_path):
    export, result, expected = source
    with Vault.open(tmp_path / "copy", embedder=HashingEmbedder(), partitions=8) as vault:
        vault.import_from(export)
        again = vault.import_from(export)
        assert (again.mode, again.claims, again.skipped, again.errors) == ("merge", 0, result.rows["claims"], {})
        got = reads(vault, explain=False)
        assert got["claims"] == expected["claims"] and got["events"] == expected["events"]
        assert got["disputes"] == expected["disputes"]


def corrupt_a_byte(export: Path) -> str:
    path = next(export.glob("claims/partition=*/part-0.parquet"))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    return "checksum"


def truncate(export: Path) -> str:
    path = next(export.glob("events/partition=*/part-0.parquet"))
    path.write_bytes(path.read_bytes()[:-100])
    return "truncated"


def drop_a_file(export: Path) -> str:
    next(export.glob("disputes/partition=*/part-0.parquet")).unlink()
    return "missing"


def replace_a_file(export: Path) -> str:
    """Same rows count in the manifest, other content: a rewritten file fails its checksum."""
    path = next(p for p in sorted(export.glob("claims/partition=*/part-0.parquet")) if pq.read_metadata(p).num_rows)
    table = pq.read_table(path)
    pq.write_table(table.slice(1), path)
    return "bytes"


def edit_the_manifest(export: Path) -> str:
    manifest = json.loads((export / "manifest.json").read_text())
    manifest["rows"]["claims"] += 1
    (export / "manifest.json").write_text(json.dumps(manifest))
    return "manifest says"


def add_a_file(export: Path) -> str:
    shutil.copy(next(export.glob("claims/partition=*/part-0.parquet")), export / "claims" / "partition=0" / "extra.parquet")
    return "not in the manifest"


def malformed_entry(export: Path) -> str:
    manifest = json.loads((export / "manifest.json").read_text())
    manifest["files"][0]["rows"] = "many"
    (export / "manifest.json").write_text(json.dumps(manifest))
    return "malformed"


def not_a_policy(export: Path) -> str:
    """A policy.json that does not read, its checksum updated to match: consistent, and still refused."""
    (export / "policy.json").write_text(json.dumps({"default_strategy": "coin-toss"}))
    manifest = json.loads((export / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["path"] == "policy.json")
    entry["bytes"] = (export / "policy.json").stat().st_size
    entry["sha256"] = hashlib.sha256((export / "policy.json").read_bytes()).hexdigest()
    (export / "manifest.json").write_text(json.dumps(manifest))
    return "strategy"


def no_manifest(export: Path) -> str:
    (export / "manifest.json").unlink()
    return "no manifest.json"


@pytest.mark.parametrize("tamper", [corrupt_a_byte, truncate, drop_a_file, replace_a_file, edit_the_manifest, add_a_file,
                                    malformed_entry, not_a_policy, no_manifest])
def test_a_tampered_export_is_refused_and_nothing_is_written(source, tmp_path, tamper):
    export = tmp_path / "export"
    shutil.copytree(source[0], export)
    why = tamper(export)
    with Vault.open(tmp_path / "copy", embedder=HashingEmbedder(), partitions=8) as vault:
        policy = vault.policy
        with pytest.raises(VaultError, match=why) as caught:  # ExportError; InvalidPolicy for a bad policy
            vault.import_from(export)
        assert "nothing was imported" in str(caught.value) or isinstance(caught.value, InvalidPolicy)
        assert vault.claims() == [] and vault.events() == [] and vault.policy == policy
    if tamper is not_a_policy:
        return  # a merge keeps the target's policy: it does not read the export's
    # into a store with claims (a merge) just the same
    with Vault.open(tmp_path / "other", embedder=HashingEmbedder(), partitions=8) as vault:
        vault.agent("a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
        before = vault.claims()
        with pytest.raises(ExportError):
            vault.import_from(export)
        assert vault.claims() == before


def small_export(tmp_path: Path, partitions: int = 4) -> Path:
    with Vault.open(tmp_path / "small", embedder=HashingEmbedder(), partitions=partitions) as vault:
        vault.agent("agent-a").add_facts([Fact("user.timezone", "The user is in PST", "PST", claim_id="tz-a"),
                                          Fact("user.diet", "The user is vegan", "vegan", claim_id="diet-a")])
        vault.export(tmp_path / "small-export")
    return tmp_path / "small-export"


def test_merging_into_a_store_with_claims_goes_through_the_write_path(tmp_path):
    export = small_export(tmp_path)
    with Vault.open(tmp_path / "target", embedder=HashingEmbedder(), partitions=8) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("agent-b", "user.timezone", 0.9)
        vault.set_authority("agent-a", "user.timezone", 0.2)
        (est,) = vault.agent("agent-b").add_facts([Fact("user.timezone", "The user is in EST", "EST", observed_at=0)])
        merged = vault.import_from(export)
        assert (merged.mode, merged.claims, merged.skipped) == ("merge", 2, 0)
        assert merged.outcomes == {"disputed": 1, "active": 1}
        # the weaker agent's PST did not overwrite EST: the conflict became a dispute
        view = vault.get("user.timezone")
        assert [c.id for c in view.active] == [est.claim_id] and view.contested
        (dispute,) = vault.disputes()
        assert (dispute.challenger, dispute.incumbents) == ("tz-a", (est.claim_id,))
        assert vault.claim("diet-a").agent == "agent-a" and vault.get("user.diet").values == ("vegan",)
        events = len(vault.events())
        again = vault.import_from(export)
        assert (again.claims, again.skipped) == (0, 2) and len(vault.events()) == events
        assert vault.policy.strategy_for("user.timezone") == "authority"  # a merge keeps the target's policy


def test_importing_again_counts_a_claim_that_repeated_one_as_present(tmp_path):
    """A merged claim that repeated what its agent had said (a NOOP) keeps no claim of its
    own, only its receipt: importing the export again writes nothing and says so."""
    export = small_export(tmp_path)
    with Vault.open(tmp_path / "target", embedder=HashingEmbedder(), partitions=8) as vault:
        vault.agent("agent-a").add_facts([Fact("user.diet", "The user is vegan", "vegan")])
        merged = vault.import_from(export)
        assert merged.outcomes == {"active": 1, "noop": 1}
        claims, events = len(vault.claims()), len(vault.events())
        again = vault.import_from(export)
        assert (again.claims, again.skipped, again.outcomes) == (0, 2, {})
        assert (len(vault.claims()), len(vault.events())) == (claims, events)


def test_an_export_of_another_embedder_or_partition_count_is_refused(tmp_path):
    export = small_export(tmp_path)
    with Vault.open(tmp_path / "dim64", embedder=HashingEmbedder(dim=64)) as vault:
        with pytest.raises(StoreMismatch, match="reindex"):
            vault.import_from(export)
        assert vault.claims() == []
    with Vault.open(tmp_path / "eight", embedder=HashingEmbedder(), partitions=8) as vault, \
            pytest.raises(StoreMismatch, match="partitions=4"):
        vault.import_from(export)


def test_an_export_goes_into_a_new_or_empty_directory(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault, \
            pytest.raises(ExportError, match="not an empty directory"):
        vault.export(tmp_path / "taken")
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_an_export_where_no_directory_can_be_made_is_an_export_error(tmp_path):
    (tmp_path / "a_file").write_text("x")
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault, \
            pytest.raises(ExportError, match="cannot create .*Not a directory"):
        vault.export(tmp_path / "a_file" / "sub")
    result = CliRunner().invoke(app, ["export", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "a_file" / "sub")])
    assert result.exit_code == 2 and "is a file, not a directory" in result.output  # as eval's and normalize's --out


def test_the_cli_exports_and_imports_into_a_new_store(tmp_path):
    export = small_export(tmp_path, partitions=2)
    runner = CliRunner()
    result = runner.invoke(app, ["import", str(export), "--store", str(tmp_path / "new")])
    assert result.exit_code == 0, result.output
    assert "restored 2 claims" in result.output
    with Vault.open(tmp_path / "new", embedder=HashingEmbedder()) as vault:
        assert vault.info().partitions == 2 and vault.get("user.timezone").values == ("PST",)
    result = runner.invoke(app, ["export", "--store", str(tmp_path / "new"), "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "again" / "manifest.json").read_text())["rows"]["claims"] == 2
    shutil.rmtree(tmp_path / "again" / "claims")
    result = runner.invoke(app, ["import", str(tmp_path / "again"), "--store", str(tmp_path / "new")])
    assert result.exit_code == 4 and "is missing" in result.output
    # into a new store: refused whole, and no empty store is left behind
    result = runner.invoke(app, ["import", str(tmp_path / "again"), "--store", str(tmp_path / "never")])
    assert result.exit_code == 4 and "is missing" in result.output and not (tmp_path / "never").exists()


def test_a_merge_reports_where_its_claims_ended_not_only_how_each_was_written(tmp_path):
    """A QA run: 'merged 1,012 (1,007 active, ...)' while ~800 ended superseded by claims
    of the same import written after them."""
    with Vault.open(tmp_path / "src", embedder=HashingEmbedder(), partitions=4) as vault:
        for hour, diet in enumerate(["vegan", "vegetarian", "pescatarian"]):
            vault.agent("agent-a").add_facts([Fact("user.diet", f"The user is {diet}", diet, observed_at=hour * 3600)])
        vault.export(tmp_path / "export")
    with Vault.open(tmp_path / "target", embedder=HashingEmbedder(), partitions=4) as vault:
        vault.agent("agent-b").add_facts([Fact("user.timezone", "The user is in PST", "PST")])
    result = CliRunner().invoke(app, ["import", str(tmp_path / "export"), "--store", str(tmp_path / "target")])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert "merged 3 new claim(s), now 1 active, 2 superseded (as each was written: 3 active)" in said, said
    with Vault.open(tmp_path / "target", embedder=HashingEmbedder()) as vault:
        assert vault.get("user.diet").values == ("pescatarian",)
        again = vault.import_from(tmp_path / "export")
        assert (again.claims, again.statuses) == (0, {})
