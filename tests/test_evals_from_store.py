"""`eval --from-store`: replay a real store's claim log under other policies."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner
from vault_ray.evals.from_store import read_claim_log, what_if

from vault_ray import Fact, HashingEmbedder, Policy, Vault
from vault_ray.cli import app
from vault_ray.errors import StoreError

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
    # no control.json in an export: the default policy, equal weights; authority still disputes
    assert what_if(tmp_path / "export", ["authority"]).differences("authority") == ["user.timezone"]


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
