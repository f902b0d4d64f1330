"""Rows of the claim log as Arrow tables, and back: the one place that knows the
columns. The DuckDB log, the Parquet export and the read-only reader share it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray.models import Claim, Dispute, DisputeStatus, Event, Kind, Resolution, Status, from_epoch, to_epoch

CLAIM_SCHEMA = pa.schema(
    [
        ("id", pa.string()), ("rid", pa.int64()), ("entity", pa.string()), ("text", pa.string()),
        ("value", pa.string()), ("kind", pa.string()), ("agent", pa.string()), ("session", pa.string()),
        ("observed_at", pa.float64()), ("recorded_at", pa.float64()), ("status", pa.string()),
        ("supersedes", pa.list_(pa.string())), ("superseded_by", pa.string()), ("confidence", pa.float64()),
        ("meta", pa.string()), ("aligned_from", pa.string()), ("embedding", pa.binary()), ("source", pa.string()),
    ]
)
CLAIM_COLUMNS = ", ".join(n for n in CLAIM_SCHEMA.names if n != "embedding")
EVENT_SCHEMA = pa.schema(
    [
        ("seq", pa.int64()), ("ts", pa.float64()), ("entity", pa.string()), ("kind", pa.string()),
        ("claim_id", pa.string()), ("dispute_id", pa.string()), ("agent", pa.string()),
        ("status", pa.string()), ("superseded_by", pa.string()), ("detail", pa.string()),
    ]
)
DISPUTE_SCHEMA = pa.schema(
    [
        ("id", pa.string()), ("entity", pa.string()), ("challenger", pa.string()), ("challenger_agent", pa.string()),
        ("incumbents", pa.list_(pa.string())), ("supporters", pa.list_(pa.string())), ("reason", pa.string()),
        ("status", pa.string()), ("needs_user", pa.bool_()), ("challenges", pa.int32()), ("opened_at", pa.float64()),
        ("winner", pa.string()), ("decided_by", pa.string()), ("note", pa.string()), ("resolved_at", pa.float64()),
        ("keep_both", pa.bool_()),
    ]
)
_KINDS = {k.value: k for k in Kind}
_STATUSES = {s.value: s for s in Status}


def vector_bytes(vector: Any) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def claims_to_arrow(claims: list[Claim], rids: dict[str, int]) -> pa.Table:
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
            "embedding": [vector_bytes(c.embedding) for c in claims],
            "source": [c.source for c in claims],
        },
        schema=CLAIM_SCHEMA,
    )


def claims_from_arrow(
    table: pa.Table, dim: int, *, with_vectors: bool = False, vectors_on: frozenset[str] | None = None
) -> tuple[list[Claim], list[int], np.ndarray]:
    """Claims from rows, their rids and a (n, dim) matrix of their vectors (zeros
    without `with_vectors`). With `vectors_on`, only claims of those statuses carry
    their embedding on the Claim (the rest are in the matrix only, to spare memory)."""
    cols = table.to_pydict()
    n = table.num_rows
    vectors = np.zeros((n, dim), dtype=np.float32)
    if with_vectors and n:
        vectors = np.frombuffer(b"".join(cols["embedding"]), dtype=np.float32).reshape(n, dim).copy()
    sources = cols.get("source") or [None] * n  # an export written before claims kept their source
    claims = []
    for i in range(n):
        meta = cols["meta"][i]
        attach = with_vectors and (vectors_on is None or cols["status"][i] in vectors_on)
        claims.append(
            Claim(
                id=cols["id"][i], entity=cols["entity"][i], text=cols["text"][i], value=cols["value"][i],
                kind=_KINDS[cols["kind"][i]], agent=cols["agent"][i], session=cols["session"][i],
                observed_at=from_epoch(cols["observed_at"][i]), recorded_at=from_epoch(cols["recorded_at"][i]),
                status=_STATUSES[cols["status"][i]], supersedes=tuple(cols["supersedes"][i] or ()),
                superseded_by=cols["superseded_by"][i], confidence=cols["confidence"][i],
                meta=json.loads(meta) if meta else {}, aligned_from=cols["aligned_from"][i],
                embedding=vectors[i] if attach else None, source=sources[i],
            )
        )
    return claims, cols["rid"] if n else [], vectors


def events_to_arrow(events: list[Event], first_seq: int) -> pa.Table:
    return pa.table(
        {
            "seq": list(range(first_seq, first_seq + len(events))),
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


def events_from_rows(rows: list[tuple[Any, ...]]) -> list[Event]:
    """Rows of (ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail)."""
    return [
        Event(ts, ent, kind, cid, did, agent, status, sby, json.loads(detail) if detail else {})
        for ts, ent, kind, cid, did, agent, status, sby, detail in rows
    ]


def disputes_to_arrow(disputes: list[Dispute]) -> pa.Table:
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
            "challenges": [d.challenges for d in disputes],
            "opened_at": [to_epoch(d.opened_at) for d in disputes],
            "winner": [r.winner if r else None for r in res],
            "decided_by": [r.decided_by if r else None for r in res],
            "note": [r.note if r else None for r in res],
            "resolved_at": [to_epoch(r.at) if r else None for r in res],
            "keep_both": [r.keep_both if r else None for r in res],
        },
        schema=DISPUTE_SCHEMA,
    )


def dispute_from_row(row: dict[str, Any]) -> Dispute:
    resolution = None
    if row["resolved_at"] is not None:
        resolution = Resolution(
            winner=row["winner"], decided_by=row["decided_by"], note=row["note"] or "",
            at=from_epoch(row["resolved_at"]), keep_both=bool(row["keep_both"]),
        )
    return Dispute(
        id=row["id"], entity=row["entity"], challenger=row["challenger"],
        incumbents=tuple(row["incumbents"] or ()), reason=row["reason"] or "", status=DisputeStatus(row["status"]),
        needs_user=bool(row["needs_user"]), challenges=int(row["challenges"] or 1),
        opened_at=from_epoch(row["opened_at"]), resolution=resolution,
        challenger_agent=row["challenger_agent"] or "", supporters=tuple(row["supporters"] or ()),
    )
