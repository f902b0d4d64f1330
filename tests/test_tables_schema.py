"""A claim log's DuckDB file is brought to the current schema when it is opened, whatever
earlier step it stopped at: a file from before claims kept their source gains the column
(the claims it holds kept), one whose journal row was never written gets it, and a file
already current is opened without running the schema script again."""

from __future__ import annotations

import duckdb

from vault_ray.storage import tables
from vault_ray.storage.tables import SCHEMA, ClaimTables

UPGRADE = "ALTER TABLE claims ADD COLUMN IF NOT EXISTS source VARCHAR;\n"
OLD_SCHEMA = SCHEMA.replace(", source VARCHAR\n", "\n").replace(UPGRADE, "")


def columns(path) -> list[str]:
    with duckdb.connect(str(path)) as con:
        return [r[0] for r in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = 'claims'").fetchall()]


def test_a_file_from_before_the_source_column_gains_it_and_keeps_its_claims(tmp_path):
    path = tmp_path / "p0000.duckdb"
    assert "source VARCHAR" not in OLD_SCHEMA
    with duckdb.connect(str(path)) as con:
        con.execute(OLD_SCHEMA)
        con.execute("INSERT INTO claims (id, rid, entity, text, kind, agent, observed_at, recorded_at, status, confidence) "
                    "VALUES ('c1', 0, 'user.city', 'Lives in Oslo', 'semantic', 'a', 1.0, 1.0, 'active', 1.0)")
    assert "source" not in columns(path)
    log = ClaimTables(str(path), dim=8)
    try:
        assert log.applied() == 0 and log.next_rid() == 1
        assert [c.id for c in log.claims_for_entity("user.city")] == ["c1"]
    finally:
        log.close()
    assert columns(path)[-1] == "source"


def test_a_file_without_its_journal_row_gets_it(tmp_path):
    path = tmp_path / "p0000.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(SCHEMA.split("INSERT INTO journal")[0])  # stopped before the row
    log = ClaimTables(str(path), dim=8)
    try:
        assert log.applied() == 0
    finally:
        log.close()


def test_a_current_file_opens_without_the_script(tmp_path, monkeypatch):
    path = str(tmp_path / "p0000.duckdb")
    ClaimTables(path, dim=8).close()  # made now: the script ran
    ran: list[str] = []
    original = ClaimTables._run

    def run(self, sql, params=None):  # type: ignore[no-untyped-def]
        ran.append(sql)
        return original(self, sql, params)

    monkeypatch.setattr(ClaimTables, "_run", run)
    monkeypatch.setattr(tables, "SCHEMA", "SELECT error('the schema script ran')")
    log = ClaimTables(path, dim=8)
    try:
        assert ran == [tables.SCHEMA_PROBE] and log.applied() == 0
    finally:
        log.close()
