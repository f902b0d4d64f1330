"""An interrupted restore resumes as a restore (qa9 F1; vault_ray/transfer_restore.py).

A restore (an import into an empty store) cut short by Ctrl-C used to be finished by a
*merge* when the same import ran again (the store was no longer empty): people's
decisions were lost and reads differed from the source. Now the restore records itself
before its first write, the same import keeps the partitions restored (checked to hold
exactly the export's rows) and restores the rest, and any other import is refused until
the restore is finished. An interrupted export leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from bulk_data import fill, reads, searches
from interrupting import ctrl_c_after
from typer.testing import CliRunner

from vault_ray import Fact, HashingEmbedder, RestoreUnfinished, StoreError, UnfinishedRestoreWarning, Vault
from vault_ray.backends.embedded import EmbeddedBackend
from vault_ray.cli import app

PARTITIONS = 8
WIDE = {"COLUMNS": "500"}  # one line per message, whatever the paths' length


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A filled store (supersedes, disputes, people's resolutions), its export and its reads;
    and the export of another store."""
    root = tmp_path_factory.mktemp("resume")
    with Vault.open(root / "store", embedder=HashingEmbedder(), partitions=PARTITIONS) as vault:
        fill(vault, claims=400, seed=11)
        result = vault.export(root / "export")
        expected = reads(vault)
    with Vault.open(root / "other", embedder=HashingEmbedder(), partitions=PARTITIONS) as vault:
        vault.agent("ops").add_facts([Fact("user.city", "The user lives in Porto", "porto")])
        vault.export(root / "other-export")
    assert sum("decided_by='user'" in repr(d.resolution) for d in expected["disputes"]) > 10
    return root / "export", result, expected, root / "other-export"


def interrupted_restore(store: Path, export: Path, after: int) -> None:
    vault = Vault.open(store, embedder=HashingEmbedder(), partitions=PARTITIONS)
    with ctrl_c_after(vault._backend, "restore_partition", after), pytest.raises(KeyboardInterrupt):
        vault.import_from(export)
    vault.close()


def reopened(store: Path) -> Vault:
    """The store of an unfinished restore, opened: with the warning that says so."""
    with pytest.warns(UnfinishedRestoreWarning, match="unfinished restore"):
        return Vault.open(store, embedder=HashingEmbedder())


def restored_partitions(store: Path) -> int:
    with reopened(store) as vault:
        return sum(1 for counts in vault._backend.row_counts().values() if counts["claims"])


def test_the_same_import_resumes_an_interrupted_restore_and_answers_like_the_source(source, tmp_path):
    export, exported, expected, _ = source
    store = tmp_path / "copy"
    interrupted_restore(store, export, after=3)
    assert (store / "restoring.json").exists() and restored_partitions(store) == 3
    with reopened(store) as vault:
        resumed = vault.import_from(export)
        assert (resumed.mode, resumed.resumed, resumed.rows) == ("restore", 3, exported.rows)
        assert all(vault.check().values())
        got = reads(vault)
    for key in expected:  # every claim and its status, every view, event, dispute and decision
        assert got[key] == expected[key], key
    assert not (store / "restoring.json").exists()
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert searches(vault) == expected["search"]  # from its logs, reopened
        again = vault.import_from(export)  # finished: the same import is now a merge of nothing new
        assert (again.mode, again.claims, again.skipped) == ("merge", 0, exported.rows["claims"])


@pytest.mark.parametrize("after", [0, PARTITIONS])
def test_a_restore_cut_before_its_first_or_after_its_last_partition_resumes_too(source, tmp_path, after):
    export, exported, expected, _ = source
    store = tmp_path / "copy"
    if after:
        interrupted_restore(store, export, after)
    else:  # the record is written, no partition yet: the policy is set from the export first
        vault = Vault.open(store, embedder=HashingEmbedder(), partitions=PARTITIONS)
        with ctrl_c_after(vault._backend, "restore_control", 1), pytest.raises(KeyboardInterrupt):
            vault.import_from(export)
        vault.close()
    assert (store / "restoring.json").exists() and restored_partitions(store) == after
    with reopened(store) as vault:
        resumed = vault.import_from(export)
        assert (resumed.mode, resumed.resumed, resumed.claims) == ("restore", after, exported.rows["claims"])
        assert reads(vault, explain=False) == {**expected, "explain": {}}
    assert not (store / "restoring.json").exists()


def test_another_import_into_an_unfinished_restore_is_refused_and_changes_nothing(source, tmp_path):
    export, exported, expected, other = source
    store = tmp_path / "copy"
    interrupted_restore(store, export, after=2)
    with reopened(store) as vault:
        before = reads(vault, explain=False)
        with pytest.raises(RestoreUnfinished) as refused:  # the store holds claims: it would have been a merge
            vault.import_from(other)
        assert "unfinished restore" in str(refused.value) and str(export) in str(refused.value)
        assert "run the same import" in str(refused.value) and "delete the store" in str(refused.value)
        assert reads(vault, explain=False) == before
    cli = CliRunner().invoke(app, ["import", str(other), "--store", str(store)], env=WIDE)
    assert cli.exit_code == 4 and "unfinished restore" in cli.output and f"vault-ray import {export}" in cli.output
    with reopened(store) as vault:  # the right export still finishes it
        assert vault.import_from(export).resumed == 2
        assert reads(vault, explain=False) == {**expected, "explain": {}}


def test_a_resume_that_finds_a_partition_written_since_is_refused(source, tmp_path):
    """A half-restored store refuses writes (tests/test_restore_unfinished.py); one written by a
    vault-ray that did not (the record set aside meanwhile) cannot be finished."""
    export, _, _, _ = source
    store = tmp_path / "copy"
    interrupted_restore(store, export, after=4)
    fact = Fact("user.city", "The user lives in Porto", "porto")
    with reopened(store) as vault, pytest.raises(RestoreUnfinished):
        vault.agent("ops").add_facts([fact], resolve=False)
    (store / "restoring.json").rename(store / "set-aside.json")
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("ops").add_facts([fact], resolve=False)
    (store / "set-aside.json").rename(store / "restoring.json")
    with reopened(store) as vault:
        before = reads(vault, explain=False)
        with pytest.raises(StoreError) as refused:
            vault.import_from(export)
        message = str(refused.value)
        assert "partition" in message and "not the export's" in message and "delete the store" in message
        assert reads(vault, explain=False) == before
    assert (store / "restoring.json").exists()


RESTORE_SLOWLY = textwrap.dedent("""
    import sys
    from vault_ray.backends.embedded import EmbeddedBackend
    from vault_ray.cli import app

    original = EmbeddedBackend.restore_partition

    def announced(self, partition, tables):
        print(f"restoring partition {partition}", flush=True)
        return original(self, partition, tables)

    EmbeddedBackend.restore_partition = announced
    app(["import", sys.argv[1], "--store", sys.argv[2]])
""")


def test_ctrl_c_in_vault_ray_import_then_the_same_command_finishes_the_restore(source, tmp_path):
    export, exported, expected, _ = source
    store = tmp_path / "copy"
    proc = subprocess.Popen([sys.executable, "-c", RESTORE_SLOWLY, str(export), str(store)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(4):  # partitions 0-2 restored, the Ctrl-C lands during (or right after) the 4th
            assert "restoring partition" in proc.stdout.readline()  # type: ignore[union-attr]
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    said = " ".join(err.split())
    assert said.startswith("interrupted: the store is whole; run the same command again to resume"), err
    assert "Traceback" not in err and (store / "restoring.json").exists()
    assert restored_partitions(store) in (3, 4)
    rerun = CliRunner().invoke(app, ["import", str(export), "--store", str(store)], env=WIDE)
    assert rerun.exit_code == 0, rerun.output
    assert rerun.output.startswith(f"restored {exported.rows['claims']:,} claims") and "interrupted run" in rerun.output
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        assert reads(vault) == expected


def test_an_interrupted_export_leaves_nothing_and_the_same_command_runs_again(source, tmp_path, monkeypatch):
    export, exported, _, _ = source
    store = tmp_path / "copy"
    with Vault.open(store, embedder=HashingEmbedder(), partitions=PARTITIONS) as vault:
        vault.import_from(export)
    out = tmp_path / "out"
    with ctrl_c_after(EmbeddedBackend, "dump_partition", 3):
        cli = CliRunner().invoke(app, ["export", "--store", str(store), "--out", str(out)], env=WIDE)
    assert cli.exit_code == 130, cli.output
    assert "interrupted: nothing was exported" in cli.output and "run the same command again" in cli.output
    assert not out.exists()  # made by the export: removed with what it held
    out.mkdir()  # an empty directory given: left empty
    with Vault.open(store, embedder=HashingEmbedder()) as vault, ctrl_c_after(vault._backend, "dump_partition", 5), \
            pytest.raises(KeyboardInterrupt):
        vault.export(out)
    assert out.is_dir() and list(out.iterdir()) == []
    again = CliRunner().invoke(app, ["export", "--store", str(store), "--out", str(out)])
    assert again.exit_code == 0, again.output
    with Vault.open(tmp_path / "copy2", embedder=HashingEmbedder(), partitions=PARTITIONS) as vault:
        assert vault.import_from(out).rows == exported.rows
