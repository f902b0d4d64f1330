"""The DuckDB file of one partition's claim log: its tables, the transaction that
applies journal records to them, and the queries the log answers from them.

Tables: `claims` (every claim ever made, with its current status), `disputes`,
`events` (append-only: one row per state change, enough to replay the state at any
time), `receipts` (the decision taken for each incoming claim id, so a retried write
is applied once) and `journal` (one row: the sequence number of the last journal
record applied, written in the same transaction as the record's rows).
Bulk paths insert Arrow tables, never row by row.
"""

from __future__ import annotations

import functools
import hashlib
import os
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from vault_ray.errors import StorageFailure, StoreLocked
from vault_ray.models import Claim, Dispute, Event

from .attached import AttachedFile
from .bulk_log import BulkLog
from .rows import (
    CLAIM_COLUMNS,
    CLAIM_SCHEMA,
    DISPUTE_SCHEMA,
    claims_from_arrow,
    column_numpy,
    dispute_from_row,
    events_from_rows,
    events_table,
    rows_table,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS claims (
    id VARCHAR PRIMARY KEY, rid BIGINT NOT NULL, entity VARCHAR NOT NULL, text VARCHAR NOT NULL,
    value VARCHAR, kind VARCHAR NOT NULL, agent VARCHAR NOT NULL, session VARCHAR,
    observed_at DOUBLE NOT NULL, recorded_at DOUBLE NOT NULL, status VARCHAR NOT NULL,
    supersedes VARCHAR[], superseded_by VARCHAR, confidence DOUBLE NOT NULL, meta VARCHAR,
    aligned_from VARCHAR, embedding BLOB, source VARCHAR
);
CREATE TABLE IF NOT EXISTS disputes (
    id VARCHAR PRIMARY KEY, entity VARCHAR NOT NULL, challenger VARCHAR NOT NULL,
    challenger_agent VARCHAR, incumbents VARCHAR[], supporters VARCHAR[], reason VARCHAR,
    status VARCHAR NOT NULL, needs_user BOOLEAN, challenges INTEGER, opened_at DOUBLE,
    winner VARCHAR, decided_by VARCHAR, note VARCHAR, resolved_at DOUBLE, keep_both BOOLEAN
);
CREATE TABLE IF NOT EXISTS events (
    seq BIGINT, ts DOUBLE, entity VARCHAR, kind VARCHAR, claim_id VARCHAR, dispute_id VARCHAR,
    agent VARCHAR, status VARCHAR, superseded_by VARCHAR, detail VARCHAR
);
CREATE TABLE IF NOT EXISTS receipts (claim_id VARCHAR PRIMARY KEY, decision VARCHAR);
CREATE TABLE IF NOT EXISTS journal (applied BIGINT NOT NULL);
INSERT INTO journal SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM journal);
ALTER TABLE claims ADD COLUMN IF NOT EXISTS source VARCHAR;
"""
# The last line upgrades a log written before claims kept their source, in place (the
# column joins at the end, where CLAIM_SCHEMA has it).
SCHEMA_PROBE = "SELECT applied, (SELECT source FROM claims LIMIT 0) FROM journal"
"""A row if the file is as SCHEMA leaves it (ClaimTables._schema_current); an error or no row if not."""
TABLES = ("claims", "disputes", "events", "receipts")
EVENT_COLUMNS = "ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail"

Record = tuple[Any, ...]
"""One journal record: (seq, claim rows, status, supersedes, dispute rows, event rows, receipts)."""


@functools.lru_cache(maxsize=1 << 16)
def receipt_key(claim_id: str) -> int:
    """A stable 64-bit key of a claim id (the in-memory receipts filter holds keys, not ids).
    Cached: a write asks for each id's key four times (the receipts read, the refusal of a
    stored id, the filter update)."""
    return int.from_bytes(hashlib.blake2b(claim_id.encode(), digest_size=8).digest(), "little")


class ClaimTables(BulkLog):
    def __init__(self, path: str, *, dim: int) -> None:
        self.path = path
        self.dim = dim
        try:  # the file attached to the process's DuckDB (attached.py), not a DuckDB of its own
            self._file = AttachedFile(path)
        except duckdb.Error as exc:
            if any(m in str(exc).lower() for m in ("could not set lock", "conflicting lock")):
                raise StoreLocked(os.path.dirname(os.path.dirname(path))) from exc
            raise StorageFailure(f"cannot open the claim log {path}: {exc}") from exc
        self._con = self._file.con
        try:
            if not self._schema_current():
                self._con.execute(SCHEMA).fetchall()
        except duckdb.Error as exc:  # a damaged file (cut short, bytes changed)
            self._file.detach_quietly()
            raise StorageFailure(f"cannot open the claim log {path}: {exc}") from exc
        # dropped without close(): detached when collected (else attached, and locked, until the process ends);
        # not at exit, where a vault dropped without close() still closes its logs (vault.py's finalizer runs after)
        self._release = weakref.finalize(self, self._file.detach_quietly)
        self._release.atexit = False

    def _schema_current(self) -> bool:
        """Whether the file has every table and column SCHEMA makes, and the journal its row: one
        query (about 1 ms) instead of the script (about 3 ms), at every open of a log. The script
        makes the journal's row after every table, and the `source` column last."""
        try:
            return bool(self._run(SCHEMA_PROBE))
        except duckdb.Error:  # a table or the column missing: a new or an older file
            return False

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self._run(sql, params)
        return rows[0][0] if rows else None

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[Any]:
        # DuckDB 2 refuses new work on a connection with an unfinished result: always drain.
        return self._con.execute(sql, list(params or [])).fetchall()

    def _arrow(self, sql: str, params: dict[str, Any] | None = None) -> pa.Table:
        return self._con.sql(sql, params=params or {}).to_arrow_table()

    def close(self) -> None:
        """Detach the file: DuckDB checkpoints it (no WAL left) and releases its lock."""
        self._release.detach()
        self._file.detach()

    # -- counters ------------------------------------------------------------------------
    def applied(self) -> int:
        return int(self._scalar("SELECT max(applied) FROM journal"))

    def next_rid(self) -> int:
        return int(self._scalar("SELECT coalesce(max(rid), -1) + 1 FROM claims"))

    def next_seq(self) -> int:
        return int(self._scalar("SELECT coalesce(max(seq), -1) + 1 FROM events"))

    # -- the one write path ----------------------------------------------------------------
    def apply(self, records: Sequence[Record], first_event_seq: int) -> int:
        """Apply journal records, oldest first, in one transaction; returns the events written."""
        claims = [row for r in records for row in r[1]]
        status: dict[str, tuple[str, str | None]] = {}
        supersedes: dict[str, list[str]] = {}
        disputes: dict[str, tuple[Any, ...]] = {}
        receipts: dict[str, str] = {}
        for r in records:
            status.update(r[2])
            supersedes.update(r[3])
            disputes.update((row[0], row) for row in r[4])
            receipts.update(r[6])
        events = [row for r in records for row in r[5]]
        steps: list[tuple[str, pa.Table | None, str]] = []
        if claims:
            steps.append(("new_claims", rows_table(claims, CLAIM_SCHEMA), "INSERT INTO claims SELECT * FROM new_claims"))
        if status:
            upd = pa.table({"id": list(status), "status": [s for s, _ in status.values()],
                            "superseded_by": pa.array([b for _, b in status.values()], pa.string())})
            steps.append(("status_updates", upd, "UPDATE claims SET status = u.status, superseded_by = u.superseded_by "
                          "FROM status_updates u WHERE claims.id = u.id"))
        if supersedes:
            sup = pa.table({"id": list(supersedes),
                            "supersedes": pa.array([list(v) for v in supersedes.values()], pa.list_(pa.string()))})
            steps.append(("supersedes_updates", sup, "UPDATE claims SET supersedes = u.supersedes "
                          "FROM supersedes_updates u WHERE claims.id = u.id"))
        if disputes:
            steps.append(("dispute_rows", rows_table(list(disputes.values()), DISPUTE_SCHEMA),
                          "DELETE FROM disputes WHERE id IN (SELECT id FROM dispute_rows)"))
            steps.append(("dispute_rows", None, "INSERT INTO disputes SELECT * FROM dispute_rows"))
        if events:
            steps.append(("event_rows", events_table(events, first_event_seq), "INSERT INTO events SELECT * FROM event_rows"))
        if receipts:
            rec = pa.table({"claim_id": list(receipts), "decision": list(receipts.values())})
            steps.append(("receipt_rows", rec, "INSERT INTO receipts SELECT * FROM receipt_rows"))
        steps.append(("", None, f"UPDATE journal SET applied = {int(records[-1][0])}"))
        self._transaction(steps)
        return len(events)

    def _transaction(self, steps: list[tuple[str, pa.Table | None, str]]) -> None:
        """Run the steps in one transaction; Arrow tables are registered by name."""
        con = self._con
        names = {name for name, table, _ in steps if table is not None}
        try:
            con.begin()
            for name, table, sql in steps:
                if table is not None:
                    con.register(name, table)
                self._run(sql)
            con.commit()
        except duckdb.Error as exc:
            con.rollback()
            raise StorageFailure(f"claim log write failed in {self.path}: {exc}") from exc
        finally:
            for name in names:
                con.unregister(name)

    # -- what a partition loads ------------------------------------------------------------
    def live(self) -> pa.Table:
        """Active and disputed claims, without embeddings, in rid order."""
        return self._arrow(f"SELECT {CLAIM_COLUMNS} FROM claims WHERE status IN ('active', 'disputed') ORDER BY rid")

    def vectors(self, status: str) -> tuple[np.ndarray, np.ndarray]:
        """(rids, vectors) of the claims of one status, in rid order."""
        table = self._arrow("SELECT rid, embedding FROM claims WHERE status = $s ORDER BY rid", {"s": status})
        return column_numpy(table, "rid", np.int64), vectors_of(table["embedding"], self.dim)

    def id_keys(self) -> np.ndarray:
        """Sorted keys of every claim id the log holds, as a claim or as a receipt."""
        ids = self._arrow("SELECT claim_id AS id FROM receipts UNION SELECT id FROM claims")["id"].to_pylist()
        return np.sort(np.fromiter(map(receipt_key, ids), np.uint64, len(ids)))

    def stored_ids(self, claims: list[str], receipts: list[str]) -> set[str]:
        """Which of these ids already have a claim row (first list) or a receipt (second)."""
        found = self._run("SELECT id FROM claims WHERE list_contains($1, id)", [claims]) if claims else []
        if receipts:
            found += self._run("SELECT claim_id FROM receipts WHERE list_contains($1, claim_id)", [receipts])
        return {r[0] for r in found}

    def gone_entities(self) -> list[str]:
        """Entities with claims, none of them live."""
        rows = self._run("SELECT DISTINCT entity FROM claims "
                         "EXCEPT SELECT entity FROM claims WHERE status IN ('active', 'disputed')")
        return [r[0] for r in rows]

    # -- reads -------------------------------------------------------------------------------
    def claims_for_entity(self, entity: str) -> list[Claim]:
        table = self._arrow(f"SELECT {CLAIM_COLUMNS} FROM claims WHERE entity = $e ORDER BY observed_at, rid", {"e": entity})
        return claims_from_arrow(table, self.dim)[0]

    def get_claims(self, ids: list[str], *, with_vectors: bool) -> dict[str, Claim]:
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        table = self._arrow(f"SELECT {cols} FROM claims WHERE list_contains($ids, id)", {"ids": ids})
        return {c.id: c for c in claims_from_arrow(table, self.dim, with_vectors=with_vectors)[0]}

    def stored(self, ids: list[str]) -> dict[str, tuple[Claim, int]]:
        table = self._arrow(f"SELECT {CLAIM_COLUMNS}, embedding FROM claims WHERE list_contains($ids, id)", {"ids": ids})
        claims, rids, _ = claims_from_arrow(table, self.dim, with_vectors=True)
        return {c.id: (c, int(r)) for c, r in zip(claims, rids, strict=True)}

    def all_claims(self, *, with_vectors: bool) -> list[Claim]:
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        return claims_from_arrow(self._arrow(f"SELECT {cols} FROM claims ORDER BY rid"), self.dim,
                                 with_vectors=with_vectors)[0]

    def receipts(self, ids: list[str]) -> dict[str, str]:
        return dict(self._run("SELECT claim_id, decision FROM receipts WHERE list_contains($1, claim_id)", [ids]))

    def disputes(self, *, status: str | None = None, entity: str | None = None, id: str | None = None) -> list[Dispute]:
        params = {k: v for k, v in {"status": status, "entity": entity, "id": id}.items() if v is not None}
        where = " AND ".join(f"{k} = ${k}" for k in params)
        table = self._arrow(f"SELECT * FROM disputes {'WHERE ' + where if where else ''} ORDER BY opened_at", params)
        return [dispute_from_row(r) for r in table.to_pylist()]

    def events(self, *, entity: str | None, claim_id: str | None, until: float | None) -> list[Event]:
        where, params = [], {}
        if entity is not None:
            where.append("entity = $entity")
            params["entity"] = entity
        if claim_id is not None:
            where.append("(claim_id = $cid OR dispute_id IN (SELECT dispute_id FROM events WHERE claim_id = $cid))")
            params["cid"] = claim_id
        if until is not None:
            where.append("ts <= $until")
            params["until"] = until
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._con.sql(f"SELECT {EVENT_COLUMNS} FROM events {clause} ORDER BY seq", params=params).fetchall()
        return events_from_rows(rows)

    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        # a reader following the log (the event stream, webhooks) pages on the per-partition
        # sequence number: stable across restarts, unlike timestamps, and gap-free
        rows = self._con.sql(f"SELECT seq, {EVENT_COLUMNS} FROM events WHERE seq >= $seq ORDER BY seq LIMIT $limit",
                             params={"seq": seq, "limit": limit}).fetchall()
        return list(zip((int(r[0]) for r in rows), events_from_rows([r[1:] for r in rows]), strict=True))

    def entity_keys(self) -> set[str]:
        return {row[0] for row in self._run("SELECT DISTINCT entity FROM claims")}

    def count(self, status: str | None) -> int:
        if status is None:
            return int(self._scalar("SELECT count(*) FROM claims"))
        return int(self._scalar("SELECT count(*) FROM claims WHERE status = $1", [status]))

    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, str]:
        os.makedirs(directory, exist_ok=True)
        out = {}
        for table in TABLES:
            path = os.path.join(str(directory), f"{table}.parquet")
            pq.write_table(self._arrow(f"SELECT * FROM {table}"), path)
            out[table] = path
        return out


def vectors_of(column: pa.ChunkedArray | pa.Array, dim: int) -> np.ndarray:
    """An (n, dim) float32 matrix from a binary column of float32 vectors, without a copy per row."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if arr.type != pa.binary():
        arr = arr.cast(pa.binary())
    n = len(arr)
    if n == 0:
        return np.zeros((0, dim), np.float32)
    if arr.null_count:
        raise StorageFailure("a claim without its embedding: the log can not rebuild its index")
    offsets = np.frombuffer(arr.buffers()[1], np.int32, n + 1, arr.offset * 4)
    if not np.all(np.diff(offsets) == dim * 4):
        raise StorageFailure(f"stored embeddings are not {dim}-dimensional")
    data = np.frombuffer(arr.buffers()[2], np.uint8, offsets[-1] - offsets[0], offsets[0])
    return data.view(np.float32).reshape(n, dim).copy()


def keys_of(ids: Iterable[str]) -> list[int]:
    return [receipt_key(i) for i in ids]
