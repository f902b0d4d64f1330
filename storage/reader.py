"""A read-only view of a store's claim logs, for evaluations and bulk jobs.

`StoreReader(path)` reads a store directory (its DuckDB files, opened read-only:
only while no process holds the store), one partition's `.duckdb` file, or a
directory written by `Vault.export(dir)` (`<table>/partition=N/*.parquet`, see
archive.py; the older `pNNNN/<table>.parquet` layout too). Every table
comes back as Arrow with a `partition` column. No other code outside `storage/`
reads a claim log.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vault_ray.errors import StoreError

from .journal import Journal
from .layout import partition_number, read_json
from .rows import CLAIM_SCHEMA, DISPUTE_SCHEMA, EVENT_SCHEMA
from .tables import TABLES


class StoreReader:
    def __init__(self, path: str | Path) -> None:
        root = Path(path)
        if root.is_file() and root.suffix == ".duckdb":
            self.kind, self.base, sources = "duckdb", root.parent.parent, [root]
        elif (root / "vault.json").exists():
            self.kind, self.base = "duckdb", root
            sources = sorted((root / "partitions").glob("p*.duckdb"))
        elif (root / "manifest.json").exists():  # an export (storage/archive.py); not verified here
            self.kind, self.base = "archive", root
            sources = sorted((root / "claims").glob("partition=*"), key=lambda p: int(p.name.split("=", 1)[1]))
        else:  # the layout of earlier exports: pNNNN/<table>.parquet
            self.kind, self.base = "parquet", root
            sources = sorted({p.parent for p in root.rglob("claims.parquet")})
        if not sources:
            raise StoreError(f"{str(root)!r} holds no claim log: give a store directory, a .duckdb file "
                             "or a directory written by Vault.export(dir)")
        self.path = root
        self.sources = {_number(s, i): s for i, s in enumerate(sources)}

    @property
    def meta(self) -> dict[str, Any]:
        """vault.json (partitions, dim, embedder), an export's manifest's store section, or {}."""
        if self.kind == "archive":
            return dict((read_json(self.base / "manifest.json") or {}).get("store") or {})
        return read_json(self.base / "vault.json") or {}

    def table(self, name: str, columns: list[str] | None = None, *, where: str | None = None) -> pa.Table:
        """One table of every partition, concatenated, with a `partition` column.
        `where` is an equality filter `column=value` (e.g. "status=open")."""
        if name not in TABLES:
            raise StoreError(f"no table {name!r} in a claim log (tables: {', '.join(TABLES)})")
        parts = [_with_partition(self._read(source, name, columns), number)
                 for number, source in sorted(self.sources.items())]
        table = pa.concat_tables(parts, promote_options="default")
        if where is not None:
            column, _, value = where.partition("=")
            table = table.filter(pc.equal(table[column], value))
        return table

    def claims(self, columns: list[str] | None = None) -> pa.Table:
        """Every claim, in recording order (recorded_at, partition, rid)."""
        if columns is not None:
            columns = list(dict.fromkeys([*columns, "recorded_at", "rid"]))
        return self.table("claims", columns).sort_by(
            [("recorded_at", "ascending"), ("partition", "ascending"), ("rid", "ascending")])

    def _read(self, source: Path, name: str, columns: list[str] | None) -> pa.Table:
        if self.kind == "archive":
            files = sorted((self.base / name / source.name).glob("*.parquet"))
            return pa.concat_tables([pq.read_table(f, columns=columns) for f in files]) if files else _empty(name, columns)
        if self.kind == "parquet":
            file = source / f"{name}.parquet"
            return pq.read_table(file, columns=columns) if file.exists() else _empty(name, columns)
        held = os.open(source, os.O_RDONLY)
        try:
            try:  # a process with the partition open holds an exclusive flock on the file
                fcntl.flock(held, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"cannot read {str(source)!r}: a process holds the store; export it through its "
                                 "holder (`vault-ray export --address ADDR --namespace NS --out DIR` with what `vault-ray "
                                 "up` or `vault-ray serve` printed, or Vault.export(DIR) in that process) and read DIR"
                                 ) from None
            if Journal(source.with_suffix(".journal")).has_records():
                raise StoreError(f"{str(source)!r} has acknowledged writes still in its journal (the store was not "
                                 "closed cleanly): open the store once (Vault.open, or vault-ray up) to apply them")
            return self._query(source, name, columns)
        finally:
            os.close(held)

    @staticmethod
    def _query(source: Path, name: str, columns: list[str] | None) -> pa.Table:
        try:
            con = duckdb.connect(str(source), read_only=True)
        except duckdb.Error as exc:
            raise StoreError(f"cannot read {str(source)!r} ({exc}); if a process holds the store, export it with "
                             "Vault.export(dir) and read that directory") from exc
        try:
            cols = ", ".join(columns) if columns else "*"
            return con.sql(f"SELECT {cols} FROM {name}").to_arrow_table()
        finally:
            con.close()


def _number(source: Path, position: int) -> int:
    """The partition a source is named after (pNNNN.duckdb, pNNNN/, partition=N/), else its position."""
    if source.name.startswith("partition="):
        return int(source.name.split("=", 1)[1])
    number = partition_number(source)
    return number if number is not None else position


def _with_partition(table: pa.Table, number: int) -> pa.Table:
    return table.append_column("partition", pa.array([number] * table.num_rows, pa.int64()))


def _empty(name: str, columns: list[str] | None) -> pa.Table:
    schema = {"claims": CLAIM_SCHEMA, "disputes": DISPUTE_SCHEMA, "events": EVENT_SCHEMA}.get(
        name, pa.schema([("claim_id", pa.string()), ("decision", pa.string())]))
    table = schema.empty_table()
    return table.select(columns) if columns else table
