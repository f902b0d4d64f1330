"""The bulk side of a claim log: whole-table dumps and restores (export and import),
and vectors of another embedder staged beside the current ones (reindex).

`BulkLog` is mixed into `ClaimTables` (tables.py) and uses its connection;
`DuckDBClaimLog` calls it on the applied tables (its journal flushed first). Every
method is called by the partition owner while it holds the partition's lock.

Staged vectors live in their own table, `staged_vectors (embedder, dim, claim_id,
embedding)`, so the claims' own `embedding` column (what the index and the reads
use) stays on the store's current embedder while a reindex runs. When the store
switches embedder (its vault.json names the new one), `adopt_staged` copies the
staged vectors over the claims' in one transaction and drops them: the log then
holds only vectors of the store's embedder again. A log opened after a switch that
did not reach it adopts them then, so a crash between the switch and a partition's
copy is finished on the next open.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from vault_ray.errors import StorageFailure, StoreError, StoreMismatch

from .erase import ERASED
from .rows import CLAIM_SCHEMA, DISPUTE_SCHEMA, EVENT_SCHEMA

RECEIPT_SCHEMA = pa.schema([("claim_id", pa.string()), ("decision", pa.string())])
TABLE_SCHEMAS: dict[str, pa.Schema] = {
    "claims": CLAIM_SCHEMA, "disputes": DISPUTE_SCHEMA, "events": EVENT_SCHEMA, "receipts": RECEIPT_SCHEMA,
}
"""Every table of a claim log with its columns, in the log's column order."""
_ORDER = {"claims": "rid", "disputes": "opened_at, id", "events": "seq", "receipts": "claim_id"}
STAGED_SCHEMA = """
CREATE TABLE IF NOT EXISTS staged_vectors (
    embedder VARCHAR NOT NULL, dim INTEGER NOT NULL, claim_id VARCHAR NOT NULL, embedding BLOB NOT NULL,
    PRIMARY KEY (embedder, dim, claim_id)
)
"""


class BulkLog:
    """Dumps, restores and staged vectors of one partition's claim log."""

    _con: duckdb.DuckDBPyConnection
    path: str
    dim: int

    def _transaction(self, steps: list[tuple[str, pa.Table | None, str]]) -> None: ...  # ClaimTables'
    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any: ...  # ClaimTables'

    # -- export and import -------------------------------------------------------
    def dump(self) -> dict[str, pa.Table]:
        """Every table, whole, in a stable order (claims by rid, events by seq)."""
        return {name: self._con.sql(f"SELECT * FROM {name} ORDER BY {order}").to_arrow_table().cast(TABLE_SCHEMAS[name])
                for name, order in _ORDER.items()}

    def claim_columns(self, columns: Sequence[str]) -> pa.Table:
        """Some columns of every claim, by rid (bulk jobs read what they need, not the vectors)."""
        unknown = [c for c in columns if c not in CLAIM_SCHEMA.names]
        if unknown:
            raise StoreError(f"no claim column(s) {unknown}; columns: {', '.join(CLAIM_SCHEMA.names)}")
        return self._con.sql(f"SELECT {', '.join(columns)} FROM claims ORDER BY rid").to_arrow_table()

    def row_counts(self) -> dict[str, int]:
        return {name: int(self._scalar(f"SELECT count(*) FROM {name}")) for name in TABLE_SCHEMAS}

    def restore(self, tables: dict[str, pa.Table]) -> dict[str, int]:
        """Insert whole tables into this empty log, verbatim, in one transaction.
        Refuses a log that holds anything, and vectors of another size."""
        if any(self.row_counts().values()):
            raise StoreError(f"claim log {self.path} is not empty: a restore goes into an empty partition only")
        steps: list[tuple[str, pa.Table | None, str]] = []
        counts = {}
        for name, schema in TABLE_SCHEMAS.items():
            table = _conform(tables.get(name), schema, name)
            if name == "claims":
                self._check_vector_sizes(table)
            counts[name] = table.num_rows
            if table.num_rows:
                cols = ", ".join(schema.names)
                steps.append((f"restore_{name}", table, f"INSERT INTO {name} ({cols}) SELECT {cols} FROM restore_{name}"))
        self._transaction(steps)
        return counts

    def _check_vector_sizes(self, claims: pa.Table) -> None:
        sizes = {len(b) for b in claims.column("embedding").to_pylist() if b is not None}
        if sizes - {self.dim * 4}:
            found = sorted(s // 4 for s in sizes if s != self.dim * 4)
            raise StoreMismatch(f"claims hold {found}-dimensional vectors; this store's are {self.dim}-dimensional")

    # -- staged vectors (reindex) ----------------------------------------------------
    def _has_staged_table(self) -> bool:
        return bool(self._scalar("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                                 "AND table_name = 'staged_vectors'"))  # this log's: the process's DuckDB has them all

    def has_staged(self) -> bool:
        """Whether any vectors are staged (a reindex under way or not yet adopted here)."""
        return self._has_staged_table() and bool(self._scalar("SELECT count(*) FROM staged_vectors"))

    def unstaged(self, embedder: str, dim: int) -> pa.Table:
        """`id` and `text` of every claim (any status) with no vector staged for `embedder`/`dim`,
        and `erased`: whether it is an erasure's skeleton (nothing to embed: it gets zeros)."""
        erased = (f"(c.text = '{ERASED}' AND coalesce(json_extract(c.meta, '$.erased') IS NOT NULL, false)) "
                  "AS erased")
        if not self._has_staged_table():
            return self._con.sql(f"SELECT c.id, c.text, {erased} FROM claims c ORDER BY c.rid").to_arrow_table()
        return self._con.sql(
            f"SELECT c.id, c.text, {erased} FROM claims c WHERE NOT EXISTS (SELECT 1 FROM staged_vectors s "
            "WHERE s.claim_id = c.id AND s.embedder = $e AND s.dim = $d) ORDER BY c.rid",
            params={"e": embedder, "d": dim},
        ).to_arrow_table()

    def stage_vectors(self, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int:
        """Keep `vectors` (one row per claim id, `dim` wide) beside the claims' own."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), dim):
            raise StoreMismatch(f"staged vectors have shape {vectors.shape}, expected ({len(ids)}, {dim})")
        if not len(ids):
            return 0
        self._con.execute(STAGED_SCHEMA).fetchall()
        rows = pa.table({
            "embedder": pa.array([embedder] * len(ids), pa.string()), "dim": pa.array([dim] * len(ids), pa.int32()),
            "claim_id": pa.array(list(ids), pa.string()), "embedding": pa.array([v.tobytes() for v in vectors], pa.binary()),
        })
        self._transaction([("staged_rows", rows, "INSERT OR REPLACE INTO staged_vectors SELECT * FROM staged_rows")])
        return len(ids)

    def drop_staged(self, keep: tuple[str, int] | None = None) -> int:
        """Forget staged vectors (those of every embedder but `keep`): an abandoned reindex."""
        if not self._has_staged_table():
            return 0
        where, params = ("WHERE NOT (embedder = $1 AND dim = $2)", list(keep)) if keep else ("", [])
        gone = int(self._scalar(f"SELECT count(*) FROM staged_vectors {where}", params))
        if gone:
            self._con.execute(f"DELETE FROM staged_vectors {where}", params).fetchall()
        return gone

    def adopt_staged(self, embedder: str, dim: int) -> int:
        """Make the vectors staged for `embedder`/`dim` the claims' own (one transaction) and
        drop them. Nothing to do (0) when none are staged. Every claim must have one: the
        switch checks that before it commits, so a gap here is a broken store, not a retry."""
        if not self._has_staged_table():
            return 0
        params = {"e": embedder, "d": dim}
        staged = int(self._scalar("SELECT count(*) FROM staged_vectors WHERE embedder = $1 AND dim = $2", [embedder, dim]))
        if not staged:
            return 0
        missing = self.unstaged(embedder, dim).num_rows
        if missing:
            raise StorageFailure(f"claim log {self.path}: {missing} claim(s) have no {embedder} vector although the "
                                 f"store switched to it; restore the store from an export and reindex again")
        try:
            self._con.begin()
            self._con.execute("UPDATE claims SET embedding = s.embedding FROM staged_vectors s WHERE s.embedder = $e "
                              "AND s.dim = $d AND claims.id = s.claim_id", params).fetchall()
            self._con.execute("DELETE FROM staged_vectors WHERE embedder = $e AND dim = $d", params).fetchall()
            self._con.commit()
        except duckdb.Error as exc:
            self._con.rollback()
            raise StorageFailure(f"adopting the {embedder} vectors failed in {self.path}: {exc}") from exc
        return staged


class BulkSide:
    """The bulk methods of `DuckDBClaimLog`: each applies the journal first (`_reading`),
    then works on the tables; a change to claims or vectors makes the snapshot stale."""

    _snapshot: Any
    cache: Any  # ClaimCache
    stamp: str | None
    _dirty: bool
    _new: bool
    _next_rid: int
    _next_seq: int
    _keys: np.ndarray

    def _reading(self) -> AbstractContextManager[BulkLog]: ...  # DuckDBClaimLog's

    def dump(self) -> dict[str, pa.Table]:
        with self._reading() as tables:
            return tables.dump()

    def claim_columns(self, columns: Sequence[str]) -> pa.Table:
        with self._reading() as tables:
            return tables.claim_columns(columns)

    def row_counts(self) -> dict[str, int]:
        with self._reading() as tables:
            return tables.row_counts()

    def restore(self, tables_in: dict[str, pa.Table]) -> dict[str, int]:
        """Whole tables into this empty log; the counters and the id filter follow them."""
        with self._reading() as tables:
            counts = tables.restore(tables_in)
            self._next_rid, self._next_seq, self._keys = tables.next_rid(), tables.next_seq(), tables.id_keys()
            self._forget_snapshot()
            return counts

    def unstaged(self, embedder: str, dim: int) -> pa.Table:
        with self._reading() as tables:
            return tables.unstaged(embedder, dim)

    def stage_vectors(self, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int:
        with self._reading() as tables:
            return tables.stage_vectors(embedder, dim, ids, vectors)

    def drop_staged(self, keep: tuple[str, int] | None = None) -> int:
        with self._reading() as tables:
            return tables.drop_staged(keep)

    def adopt_staged(self, embedder: str, dim: int) -> int:
        """The staged vectors become the claims' own; a snapshot taken before is stale."""
        if self._new or self._snapshot is not None and not self._snapshot_has_staged():
            return 0  # a log made now has nothing staged; a snapshot says whether one had
        with self._reading() as tables:
            adopted = tables.adopt_staged(embedder, dim)
            if adopted:
                self._forget_snapshot()
            return adopted

    def _snapshot_has_staged(self) -> bool:
        """Whether a log opened from its snapshot may still have vectors to adopt (the
        snapshot says whether DuckDB held staged vectors when it was saved)."""
        return bool(self._snapshot is None or self._snapshot.header.get("staged", True))

    def _forget_snapshot(self) -> None:
        self.cache.clear()  # claims changed another way than by a commit: every claim read is forgotten
        if self._snapshot is not None:
            self._snapshot.close()
            self._snapshot = None
        self.stamp, self._dirty = None, True


LATER_COLUMNS = {"claims": ("source",)}
"""Columns the claim log gained after the export format was fixed: null when an older table lacks them."""


def _conform(table: pa.Table | None, schema: pa.Schema, name: str) -> pa.Table:
    """`table` with exactly `schema`'s columns, in order and of its types (an absent table is empty)."""
    if table is None:
        return schema.empty_table()
    for column in LATER_COLUMNS.get(name, ()):
        if column not in table.column_names:
            table = table.append_column(schema.field(column), pa.nulls(table.num_rows, schema.field(column).type))
    missing = [n for n in schema.names if n not in table.column_names]
    if missing:
        raise StoreError(f"the {name} table lacks column(s) {missing}")
    try:
        return table.select(schema.names).cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise StoreError(f"the {name} table does not have the claim log's column types: {exc}") from exc
