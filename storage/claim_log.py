"""The claim log of one partition: a DuckDB file, the canonical truth.

Tables: `claims` (every claim ever made, with its current status), `disputes`,
`events` (append-only: one row per state change, enough to replay the state at any
time) and `receipts` (the decision taken for each incoming claim id, so a retried
write is applied once). Every change goes through `commit`, one transaction.
Bulk paths insert Arrow tables, never row by row.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from vault_ray.errors import StorageFailure, StoreLocked
from vault_ray.models import Claim, Dispute, DisputeStatus, Kind, Resolution, Status, from_epoch, to_epoch

SCHEMA = """
CREATE TABLE IF NOT EXISTS claims (
    id VARCHAR PRIMARY KEY, rid BIGINT NOT NULL, entity VARCHAR NOT NULL, text VARCHAR NOT NULL,
    value VARCHAR, kind VARCHAR NOT NULL, agent VARCHAR NOT NULL, session VARCHAR,
    observed_at DOUBLE NOT NULL, recorded_at DOUBLE NOT NULL, status VARCHAR NOT NULL,
    supersedes VARCHAR[], superseded_by VARCHAR, confidence DOUBLE NOT NULL, meta VARCHAR,
    aligned_from VARCHAR, embedding BLOB
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
"""

CLAIM_COLUMNS = (
    "id, rid, entity, text, value, kind, agent, session, observed_at, recorded_at, status, "
    "supersedes, superseded_by, confidence, meta, aligned_from"
)

CLAIM_SCHEMA = pa.schema(
    [
        ("id", pa.string()), ("rid", pa.int64()), ("entity", pa.string()), ("text", pa.string()),
        ("value", pa.string()), ("kind", pa.string()), ("agent", pa.string()), ("session", pa.string()),
        ("observed_at", pa.float64()), ("recorded_at", pa.float64()), ("status", pa.string()),
        ("supersedes", pa.list_(pa.string())), ("superseded_by", pa.string()), ("confidence", pa.float64()),
        ("meta", pa.string()), ("aligned_from", pa.string()), ("embedding", pa.binary()),
    ]
)
EVENT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()), ("ts", pa.float64()), ("entity", pa.string()), ("kind", pa.string()),
        ("claim_id", pa.string()), ("dispute_id", pa.string()), ("agent", pa.string()),
        ("status", pa.string()), ("superseded_by", pa.string()), ("detail", pa.string()),
    ]
)


@dataclass(frozen=True)
class Event:
    """One state change. `status` is the claim's status after it, for replay."""

    ts: float
    entity: str
    kind: str
    claim_id: str | None = None
    dispute_id: str | None = None
    agent: str | None = None
    status: str | None = None
    superseded_by: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class ChangeSet:
    """Everything one write does to a partition, applied in one transaction."""

    new_claims: list[Claim] = field(default_factory=list)
    rids: dict[str, int] = field(default_factory=dict)
    status: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    disputes: dict[str, Dispute] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    receipts: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.new_claims or self.status or self.disputes or self.events or self.receipts)


class ClaimLog:
    def __init__(self, path: str | os.PathLike[str], *, dim: int) -> None:
        self.path = str(path)
        self.dim = dim
        try:
            self._con = duckdb.connect(self.path)
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise StoreLocked(os.path.dirname(self.path)) from exc
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
        claims, rids, vectors = self._claims_from_arrow(table, with_vectors=True, vectors_on=frozenset({"disputed"}))
        return claims, rids, vectors, self.disputes(status="open")

    def claims_for_entity(self, entity: str) -> list[Claim]:
        table = self._con.sql(
            f"SELECT {CLAIM_COLUMNS} FROM claims WHERE entity = $e ORDER BY observed_at, rid", params={"e": entity}
        ).to_arrow_table()
        return self._claims_from_arrow(table)[0]

    def get_claims(self, ids: Iterable[str], *, with_vectors: bool = False) -> dict[str, Claim]:
        ids = list(ids)
        if not ids:
            return {}
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        table = self._con.sql(f"SELECT {cols} FROM claims WHERE list_contains($ids, id)", params={"ids": ids}).to_arrow_table()
        claims = self._claims_from_arrow(table, with_vectors=with_vectors)[0]
        return {c.id: c for c in claims}

    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]:
        cols = CLAIM_COLUMNS + (", embedding" if with_vectors else "")
        table = self._con.sql(f"SELECT {cols} FROM claims ORDER BY rid").to_arrow_table()
        return self._claims_from_arrow(table, with_vectors=with_vectors)[0]

    def receipts(self, ids: Iterable[str]) -> dict[str, str]:
        ids = list(ids)
        if not ids:
            return {}
        rows = self._con.execute(
            "SELECT claim_id, decision FROM receipts WHERE list_contains($1, claim_id)", [ids]
        ).fetchall()
        return dict(rows)

    def disputes(self, *, status: str | None = None, entity: str | None = None) -> list[Dispute]:
        where, params = [], {}
        if status is not None:
            where.append("status = $status")
            params["status"] = status
        if entity is not None:
            where.append("entity = $entity")
            params["entity"] = entity
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._con.sql(f"SELECT * FROM disputes {clause} ORDER BY opened_at", params=params).fetchall()
        cols = [d[0] for d in self._con.sql("SELECT * FROM disputes LIMIT 0").description]
        return [_dispute_from_row(dict(zip(cols, r, strict=True))) for r in rows]

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        rows = self._con.sql("SELECT * FROM disputes WHERE id = $id", params={"id": dispute_id})
        cols = [d[0] for d in rows.description]
        fetched = rows.fetchall()
        return _dispute_from_row(dict(zip(cols, fetched[0], strict=True))) if fetched else None

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
        rows = self._con.sql(
            "SELECT ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail "
            f"FROM events {clause} ORDER BY seq",
            params=params,
        ).fetchall()
        return [
            Event(ts, ent, kind, cid, did, agent, status, sby, json.loads(detail) if detail else {})
            for ts, ent, kind, cid, did, agent, status, sby, detail in rows
        ]

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
            steps.append(("new_claims", self._claims_to_arrow(changes.new_claims, changes.rids),
                          "INSERT INTO claims SELECT * FROM new_claims"))
        if changes.status:
            upd = pa.table(
                {
                    "id": list(changes.status),
                    "status": [s for s, _ in changes.status.values()],
                    "superseded_by": pa.array([b for _, b in changes.status.values()], pa.string()),
                }
            )
            steps.append(("status_updates", upd, "UPDATE claims SET status = u.status, superseded_by = u.superseded_by "
                          "FROM status_updates u WHERE claims.id = u.id"))
        if changes.disputes:
            steps.append(("dispute_rows", _disputes_to_arrow(list(changes.disputes.values())),
                          "DELETE FROM disputes WHERE id IN (SELECT id FROM dispute_rows)"))
            steps.append(("dispute_rows", None, "INSERT INTO disputes SELECT * FROM dispute_rows"))
        if changes.events:
            steps.append(("event_rows", self._events_to_arrow(changes.events), "INSERT INTO events SELECT * FROM event_rows"))
        if changes.receipts:
            rec = pa.table({"claim_id": list(changes.receipts), "decision": list(changes.receipts.values())})
            steps.append(("receipt_rows", rec, "INSERT INTO receipts SELECT * FROM receipt_rows"))
        self._transaction(steps)

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
            self._next_seq = self._scalar("SELECT coalesce(max(seq), -1) + 1 FROM events")
            raise StorageFailure(f"claim log write failed in {self.path}: {exc}") from exc
        finally:
            for name in names:
                con.unregister(name)

    # -- Parquet -----------------------------------------------------------------
    def export_parquet(self, directory: str | os.PathLike[str], *, prefix: str = "") -> dict[str, str]:
        os.makedirs(directory, exist_ok=True)
        out = {}
        for table in ("claims", "disputes", "events", "receipts"):
            path = os.path.join(str(directory), f"{prefix}{table}.parquet")
            pq.write_table(self._con.sql(f"SELECT * FROM {table}").to_arrow_table(), path)
            out[table] = path
        return out

    def import_claims(self, table: pa.Table) -> None:
        """Append claim rows from an Arrow table of the claims schema (bulk path)."""
        imported = table.select(CLAIM_SCHEMA.names).cast(CLAIM_SCHEMA)
        self._transaction([("imported_claims", imported, "INSERT INTO claims SELECT * FROM imported_claims")])
        self._next_rid = self._scalar("SELECT coalesce(max(rid), -1) + 1 FROM claims")

    # -- conversions ---------------------------------------------------------------
    def _claims_to_arrow(self, claims: list[Claim], rids: dict[str, int]) -> pa.Table:
        def vec(c: Claim) -> bytes | None:
            return None if c.embedding is None else np.asarray(c.embedding, dtype=np.float32).tobytes()

        return pa.table(
            {
                "id": [c.id for c in claims],
                "rid": [rids[c.id] for c in claims],
                "entity": [c.entity for c in claims],
                "text": [c.text for c in claims],
                "value": [c.value for c in claims],
                "kind": [str(c.kind) for c in claims],
                "agent": [c.agent for c in claims],
                "session": [c.session for c in claims],
                "observed_at": [to_epoch(c.observed_at) for c in claims],
                "recorded_at": [to_epoch(c.recorded_at) for c in claims],
                "status": [str(c.status) for c in claims],
                "supersedes": [list(c.supersedes) for c in claims],
                "superseded_by": [c.superseded_by for c in claims],
                "confidence": [float(c.confidence) for c in claims],
                "meta": [json.dumps(c.meta) if c.meta else None for c in claims],
                "aligned_from": [c.aligned_from for c in claims],
                "embedding": [vec(c) for c in claims],
            },
            schema=CLAIM_SCHEMA,
        )

    def _events_to_arrow(self, events: list[Event]) -> pa.Table:
        start = self._next_seq
        self._next_seq += len(events)
        return pa.table(
            {
                "seq": list(range(start, start + len(events))),
                "ts": [e.ts for e in events],
                "entity": [e.entity for e in events],
                "kind": [e.kind for e in events],
                "claim_id": [e.claim_id for e in events],
                "dispute_id": [e.dispute_id for e in events],
                "agent": [e.agent for e in events],
                "status": [e.status for e in events],
                "superseded_by": [e.superseded_by for e in events],
                "detail": [json.dumps(e.detail, default=str) if e.detail else None for e in events],
            },
            schema=EVENT_SCHEMA,
        )

    def _claims_from_arrow(
        self, table: pa.Table, *, with_vectors: bool = False, vectors_on: frozenset[str] | None = None
    ) -> tuple[list[Claim], list[int], np.ndarray]:
        """Claims from rows; with `vectors_on`, only claims of those statuses carry their
        embedding (the rest are in the returned matrix only, to spare memory)."""
        cols = table.to_pydict()
        n = table.num_rows
        kinds = {k.value: k for k in Kind}
        statuses = {s.value: s for s in Status}
        vectors = np.zeros((n, self.dim), dtype=np.float32)
        if with_vectors and n:
            blobs = cols["embedding"]
            vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(n, self.dim).copy()
        claims = []
        for i in range(n):
            meta = cols["meta"][i]
            claims.append(
                Claim(
                    id=cols["id"][i],
                    entity=cols["entity"][i],
                    text=cols["text"][i],
                    value=cols["value"][i],
                    kind=kinds[cols["kind"][i]],
                    agent=cols["agent"][i],
                    session=cols["session"][i],
                    observed_at=from_epoch(cols["observed_at"][i]),
                    recorded_at=from_epoch(cols["recorded_at"][i]),
                    status=statuses[cols["status"][i]],
                    supersedes=tuple(cols["supersedes"][i] or ()),
                    superseded_by=cols["superseded_by"][i],
                    confidence=cols["confidence"][i],
                    meta=json.loads(meta) if meta else {},
                    aligned_from=cols["aligned_from"][i],
                    embedding=vectors[i] if with_vectors and (vectors_on is None or cols["status"][i] in vectors_on)
                    else None,
                )
            )
        return claims, cols["rid"] if n else [], vectors


def _disputes_to_arrow(disputes: list[Dispute]) -> pa.Table:
    res = [d.resolution for d in disputes]
    return pa.table(
        {
            "id": [d.id for d in disputes],
            "entity": [d.entity for d in disputes],
            "challenger": [d.challenger for d in disputes],
            "challenger_agent": [d.challenger_agent for d in disputes],
            "incumbents": [list(d.incumbents) for d in disputes],
            "supporters": [list(d.supporters) for d in disputes],
            "reason": [d.reason for d in disputes],
            "status": [str(d.status) for d in disputes],
            "needs_user": [d.needs_user for d in disputes],
            "challenges": pa.array([d.challenges for d in disputes], pa.int32()),
            "opened_at": [to_epoch(d.opened_at) for d in disputes],
            "winner": [r.winner if r else None for r in res],
            "decided_by": [r.decided_by if r else None for r in res],
            "note": [r.note if r else None for r in res],
            "resolved_at": pa.array([to_epoch(r.at) if r else None for r in res], pa.float64()),
            "keep_both": [r.keep_both if r else None for r in res],
        }
    )


def _dispute_from_row(row: dict[str, Any]) -> Dispute:
    resolution = None
    if row["resolved_at"] is not None:
        resolution = Resolution(
            winner=row["winner"],
            decided_by=row["decided_by"],
            note=row["note"] or "",
            at=from_epoch(row["resolved_at"]),
            keep_both=bool(row["keep_both"]),
        )
    return Dispute(
        id=row["id"],
        entity=row["entity"],
        challenger=row["challenger"],
        incumbents=tuple(row["incumbents"] or ()),
        reason=row["reason"] or "",
        status=DisputeStatus(row["status"]),
        needs_user=bool(row["needs_user"]),
        challenges=int(row["challenges"] or 1),
        opened_at=from_epoch(row["opened_at"]),
        resolution=resolution,
        challenger_agent=row["challenger_agent"] or "",
        supporters=tuple(row["supporters"] or ()),
    )
