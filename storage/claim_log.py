"""The claim log of one partition: the canonical truth.

Tables: `claims` (every claim ever made, with its current status), `disputes`,
`events` (append-only: one row per state change, enough to replay the state at any
time) and `receipts` (the decision taken for each incoming claim id, so a retried
write is applied once). Every change goes through `commit`, one transaction.
Bulk paths insert Arrow tables, never row by row.

`ClaimLog` is the protocol the engine uses; `DuckDBClaimLog` is the one kind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from vault_ray.errors import StorageFailure, StoreLocked
from vault_ray.models import Claim, Dispute, Event

from .bulk_log import BulkLog
from .rows import (
    CLAIM_COLUMNS,
    claims_from_arrow,
    claims_to_arrow,
    dispute_from_row,
    disputes_to_arrow,
    events_from_rows,
    events_to_arrow,
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
ALTER TABLE claims ADD COLUMN IF NOT EXISTS source VARCHAR;
"""
# The last line upgrades a log written before claims kept their source, in place (the
# column joins at the end, where CLAIM_SCHEMA has it).
TABLES = ("claims", "disputes", "events", "receipts")
_EVENT_COLUMNS = "ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail"


@dataclass
class ChangeSet:
    """Everything one commit does to a partition, applied in one transaction."""

    new_claims: list[Claim] = field(default_factory=list)
    rids: dict[str, int] = field(default_factory=dict)
    status: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """claim id -> (new status, superseded_by), for claims stored by earlier commits."""
    supersedes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """claim id -> every claim it superseded so far, for claims stored by earlier commits."""
    disputes: dict[str, Dispute] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    receipts: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.new_claims or self.status or self.supersedes or self.disputes or self.events
                    or self.receipts)


class ClaimLog(Protocol):
    """What a partition needs from its log (reads return domain values)."""

    def allocate_rid(self) -> int: ...
    def commit(self, changes: ChangeSet) -> None: ...
    def load_live(self) -> tuple[list[Claim], list[int], np.ndarray, list[Dispute]]: ...
    def entity_keys(self) -> set[str]: ...
    def receipts(self, ids: Iterable[str]) -> dict[str, str]: ...
    def claims_for_entity(self, entity: str) -> list[Claim]: ...
    def get_claims(self, ids: Iterable[str], *, with_vectors: bool = False) -> dict[str, Claim]: ...
    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]: ...
    def disputes(self, *, status: str | None = None, entity: str | None = None) -> list[Dispute]: ...
    def get_dispute(self, dispute_id: str) -> Dispute | None: ...
    def events(self, *, entity: str | None = None, claim_id: str | None = None,
               until: float | None = None) -> list[Event]: ...
    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        """Up to `limit` events whose sequence number is `seq` or later, in order, with it."""
        ...
    def event_head(self) -> int:
        """The sequence number the next event will get (how many the log holds)."""
        ...
    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, str]: ...
    def close(self) -> None: ...
    # the bulk side (storage/bulk_log.py): export and import, staged vectors of a reindex
    def dump(self) -> dict[str, pa.Table]: ...
    def claim_columns(self, columns: Sequence[str]) -> pa.Table: ...
    def row_counts(self) -> dict[str, int]: ...
    def restore(self, tables: dict[str, pa.Table]) -> dict[str, int]: ...
    def unstaged(self, embedder: str, dim: int) -> pa.Table: ...
    def stage_vectors(self, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int: ...
    def drop_staged(self, keep: tuple[str, int] | None = None) -> int: ...
    def adopt_staged(self, embedder: str, dim: int) -> int: ...


class DuckDBClaimLog(BulkLog):
    def __init__(self, path: str | os.PathLike[str], *, dim: int) -> None:
        self.path = str(path)
        self.dim = dim
        try:
            self._con = duckdb.connect(self.path)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreLocked(os.path.dirname(os.path.dirname(self.path))) from exc
            raise StorageFailure(f"cannot open claim log {self.path}: {exc}") from exc
        self._con.execute(SCHEMA).fetchall()
        self._next_rid = self._scalar("SELECT coalesce(max(rid), -1) + 1 FROM claims")
        self._next_seq = self._scalar("SELECT coalesce(max(seq), -1) + 1 FROM events")

    def _scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = self._con.execute(sql, list(params)).fetchall()
        return rows[0][0] if rows else None

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[Any]:
        # DuckDB 2 refuses new work on a connection with an unfinished result: always drain.
        return self._con.execute(sql, list(params or [])).fetchall()

    def _rows(self, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        rel = self._con.sql(sql, params=params or {})
        cols = [d[0] for d in rel.description]
        return [dict(zip(cols, r, strict=True)) for r in rel.fetchall()]

    def close(self) -> None:
        self._con.close()

    def allocate_rid(self) -> int:
        rid = self._next_rid
        self._next_rid += 1
        return rid

    # -- reads ---------------------------------------------------------------
    def load_live(self) -> tuple[list[Claim], list[int], np.ndarray, list[Dispute]]:
        """Active and disputed claims (with rids and vectors) and open disputes."""
        table = self._con.sql(
            f"SELECT {CLAIM_COLUMNS}, embedding FROM claims WHERE status <> 'superseded' ORDER BY rid"
        ).to_arrow_table()
        claims, rids, vectors = claims_from_arrow(table, self.dim, with_vectors=True, vectors_on=frozenset({"disputed"}))
        return claims, rids, vectors, self.disputes(status="open")

    def claims_for_entity(self, entity: str) -> list[Claim]:
        table = self._con.sql(
            f"SELECT {CLAIM_COLUMNS} FROM claims WHERE entity = $e ORDER BY observed_at, rid", params={"e": entity}
        ).to_arrow_table()
        return claims_from_arrow(table, self.dim)[0]

    def get_claims(self, ids: Iterable[str], *, with_vectors: bool = False) -> dict[str, Claim]:
        ids = list(ids)
        if not ids:
            return {}
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        table = self._con.sql(f"SELECT {cols} FROM claims WHERE list_contains($ids, id)", params={"ids": ids}).to_arrow_table()
        return {c.id: c for c in claims_from_arrow(table, self.dim, with_vectors=with_vectors)[0]}

    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]:
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        table = self._con.sql(f"SELECT {cols} FROM claims ORDER BY rid").to_arrow_table()
        return claims_from_arrow(table, self.dim, with_vectors=with_vectors)[0]

    def receipts(self, ids: Iterable[str]) -> dict[str, str]:
        ids = list(ids)
        if not ids:
            return {}
        rows = self._run("SELECT claim_id, decision FROM receipts WHERE list_contains($1, claim_id)", [ids])
        return dict(rows)

    def disputes(self, *, status: str | None = None, entity: str | None = None) -> list[Dispute]:
        where, params = _where({"status": status, "entity": entity})
        return [dispute_from_row(r) for r in self._rows(f"SELECT * FROM disputes {where} ORDER BY opened_at", params)]

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        rows = self._rows("SELECT * FROM disputes WHERE id = $id", {"id": dispute_id})
        return dispute_from_row(rows[0]) if rows else None

    def events(self, *, entity: str | None = None, claim_id: str | None = None, until: float | None = None) -> list[Event]:
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
        rows = self._con.sql(f"SELECT {_EVENT_COLUMNS} FROM events {clause} ORDER BY seq", params=params).fetchall()
        return events_from_rows(rows)

    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        # a reader following the log (the event stream, webhooks) pages on the per-partition
        # sequence number: stable across restarts, unlike timestamps, and gap-free
        rows = self._con.sql(f"SELECT seq, {_EVENT_COLUMNS} FROM events WHERE seq >= $seq ORDER BY seq LIMIT $limit",
                             params={"seq": seq, "limit": limit}).fetchall()
        return list(zip((int(r[0]) for r in rows), events_from_rows([r[1:] for r in rows]), strict=True))

    def event_head(self) -> int:
        return int(self._scalar("SELECT coalesce(max(seq), -1) + 1 FROM events"))

    def entity_keys(self) -> set[str]:
        """Every entity with at least one claim, whatever its status."""
        return {row[0] for row in self._run("SELECT DISTINCT entity FROM claims")}

    def count(self, status: str | None = None) -> int:
        if status is None:
            return int(self._scalar("SELECT count(*) FROM claims"))
        return int(self._scalar("SELECT count(*) FROM claims WHERE status = $1", [status]))

    # -- the one write path ---------------------------------------------------
    def commit(self, changes: ChangeSet) -> None:
        if not changes:
            return
        steps: list[tuple[str, pa.Table | None, str]] = []
        if changes.new_claims:
            steps.append(("new_claims", claims_to_arrow(changes.new_claims, changes.rids),
                          "INSERT INTO claims SELECT * FROM new_claims"))
        if changes.status:
            upd = pa.table({
                "id": list(changes.status),
                "status": [s for s, _ in changes.status.values()],
                "superseded_by": pa.array([b for _, b in changes.status.values()], pa.string()),
            })
            steps.append(("status_updates", upd, "UPDATE claims SET status = u.status, superseded_by = u.superseded_by "
                          "FROM status_updates u WHERE claims.id = u.id"))
        if changes.supersedes:
            sup = pa.table({"id": list(changes.supersedes),
                            "supersedes": pa.array([list(v) for v in changes.supersedes.values()], pa.list_(pa.string()))})
            steps.append(("supersedes_updates", sup, "UPDATE claims SET supersedes = u.supersedes "
                          "FROM supersedes_updates u WHERE claims.id = u.id"))
        if changes.disputes:
            steps.append(("dispute_rows", disputes_to_arrow(list(changes.disputes.values())),
                          "DELETE FROM disputes WHERE id IN (SELECT id FROM dispute_rows)"))
            steps.append(("dispute_rows", None, "INSERT INTO disputes SELECT * FROM dispute_rows"))
        if changes.events:
            steps.append(("event_rows", events_to_arrow(changes.events, self._next_seq),
                          "INSERT INTO events SELECT * FROM event_rows"))
        if changes.receipts:
            rec = pa.table({"claim_id": list(changes.receipts), "decision": list(changes.receipts.values())})
            steps.append(("receipt_rows", rec, "INSERT INTO receipts SELECT * FROM receipt_rows"))
        self._transaction(steps)
        self._next_seq += len(changes.events)

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

    # -- Parquet -----------------------------------------------------------------
    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, str]:
        os.makedirs(directory, exist_ok=True)
        out = {}
        for table in TABLES:
            path = os.path.join(str(directory), f"{table}.parquet")
            pq.write_table(self._con.sql(f"SELECT * FROM {table}").to_arrow_table(), path)
            out[table] = path
        return out


def _where(filters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    params = {k: v for k, v in filters.items() if v is not None}
    clause = " AND ".join(f"{k} = ${k}" for k in params)
    return (f"WHERE {clause}" if clause else ""), params
