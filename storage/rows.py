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


ClaimRow = tuple[Any, ...]
"""One claim as plain values, in CLAIM_SCHEMA's column order (what the journal stores)."""


def claim_row(c: Claim, rid: int, vector: Any = None) -> ClaimRow:
    """`vector`: the claim's vector when the claim object carries none (a new claim's)."""
    return (c.id, rid, c.entity, c.text, c.value, str(c.kind), c.agent, c.session, to_epoch(c.observed_at),
            to_epoch(c.recorded_at), str(c.status), list(c.supersedes), c.superseded_by, float(c.confidence),
            json.dumps(c.meta) if c.meta else None, c.aligned_from,
            vector_bytes(c.embedding if c.embedding is not None else vector), c.source)


def rows_table(rows: list[tuple[Any, ...]], schema: pa.Schema) -> pa.Table:
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    return pa.table([pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)], schema=schema)


def claims_to_arrow(claims: list[Claim], rids: dict[str, int]) -> pa.Table:
    return rows_table([claim_row(c, rids[c.id]) for c in claims], CLAIM_SCHEMA)


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


EventRow = tuple[Any, ...]
"""An event as plain values: EVENT_SCHEMA's columns after `seq` (assigned when applied)."""


_DETAIL_JSON = json.JSONEncoder(default=str).encode
"""`json.dumps(detail, default=str)` without building an encoder per event (one per claim written)."""


_LAST_DETAIL: tuple[object, str] = (None, "")
"""The detail last encoded and its JSON: the events of a bulk write's new entities share one
detail dict (`Txn.add`), encoded once. Swapped as one tuple, so threads never mix two pairs;
the reference it holds keeps that dict alive, so no other dict can take its identity."""


def _detail_json(detail: dict[str, Any]) -> str:
    global _LAST_DETAIL
    last = _LAST_DETAIL
    if last[0] is detail:
        return last[1]
    text = _DETAIL_JSON(detail)
    _LAST_DETAIL = (detail, text)
    return text


def event_row(e: Event) -> EventRow:
    return (e.ts, e.entity, e.kind, e.claim_id, e.dispute_id, e.agent, e.status, e.superseded_by,
            _detail_json(e.detail) if e.detail else None)


def events_table(rows: list[EventRow], first_seq: int) -> pa.Table:
    return rows_table([(first_seq + i, *row) for i, row in enumerate(rows)], EVENT_SCHEMA)


def events_to_arrow(events: list[Event], first_seq: int) -> pa.Table:
    return events_table([event_row(e) for e in events], first_seq)


def events_from_rows(rows: list[tuple[Any, ...]]) -> list[Event]:
    """Rows of (ts, entity, kind, claim_id, dispute_id, agent, status, superseded_by, detail)."""
    return [
        Event(ts, ent, kind, cid, did, agent, status, sby, json.loads(detail) if detail else {})
        for ts, ent, kind, cid, did, agent, status, sby, detail in rows
    ]


def dispute_row(d: Dispute) -> tuple[Any, ...]:
    r = d.resolution
    return (d.id, d.entity, d.challenger, d.challenger_agent, list(d.incumbents), list(d.supporters), d.reason,
            str(d.status), d.needs_user, d.challenges, to_epoch(d.opened_at), r.winner if r else None,
            r.decided_by if r else None, r.note if r else None, to_epoch(r.at) if r else None,
            r.keep_both if r else None)


def disputes_to_arrow(disputes: list[Dispute]) -> pa.Table:
    return rows_table([dispute_row(d) for d in disputes], DISPUTE_SCHEMA)


def disputes_from_arrow(table: pa.Table) -> list[Dispute]:
    return [dispute_from_row(row) for row in table.to_pylist()]


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


def column_numpy(table: pa.Table, name: str, dtype: Any) -> np.ndarray:
    """A numeric column without nulls as numpy, read from its buffer (pyarrow's own
    `to_numpy` imports pandas: half a second on a cold start)."""
    array = table.column(name).combine_chunks()
    if not len(array):
        return np.zeros(0, dtype)
    if array.null_count:
        raise ValueError(f"column {name} has nulls")
    width = array.type.byte_width
    values = np.frombuffer(array.buffers()[1], np.dtype(f"<{'f' if pa.types.is_floating(array.type) else 'i'}{width}"),
                           len(array), array.offset * width)
    return values.astype(dtype)


LIVE_SCHEMA = pa.schema([f for f in CLAIM_SCHEMA if f.name != "embedding"])
"""A partition's live claims in memory: the claim columns without the embedding."""


def live_table(claims: list[tuple[Claim, int]]) -> pa.Table:
    """(claim, rid) pairs as a LIVE_SCHEMA table."""
    at = CLAIM_SCHEMA.get_field_index("embedding")
    return rows_table([(row := claim_row(c, rid))[:at] + row[at + 1:] for c, rid in claims], LIVE_SCHEMA)


class ClaimColumns:
    """Claims held as Arrow columns (a partition's live claims at open), each built into a
    `Claim` only when asked for: a store of 100k claims keeps columns, not 100k objects."""

    _STRINGS = ("text", "value", "kind", "agent", "session", "superseded_by", "meta", "aligned_from", "source")

    def __init__(self, table: pa.Table) -> None:
        table = table.combine_chunks()
        self.table = table
        self._s = {name: table.column(name).chunk(0) if table.num_rows and name in table.column_names
                   else pa.nulls(table.num_rows, pa.string()) for name in self._STRINGS}
        self._supersedes = table.column("supersedes").chunk(0) if table.num_rows else pa.array([], pa.list_(pa.string()))
        self._f = {name: column_numpy(table, name, np.float64) for name in ("observed_at", "recorded_at", "confidence")}
        self.rids = column_numpy(table, "rid", np.int64)
        self.ids: list[str] = table.column("id").to_pylist()
        self.entities: list[str] = table.column("entity").to_pylist()
        # compared in Python: pyarrow.compute with a Python value imports pandas (a second cold)
        self.active = np.fromiter((s == "active" for s in table.column("status").to_pylist()), bool, table.num_rows)

    def __len__(self) -> int:
        return len(self.ids)

    def claim(self, row: int, embedding: Any = None) -> Claim:
        s = {name: col[row].as_py() for name, col in self._s.items()}
        meta = s["meta"]
        return Claim(
            id=self.ids[row], entity=self.entities[row], text=s["text"], value=s["value"], kind=_KINDS[s["kind"]],
            agent=s["agent"], session=s["session"], observed_at=from_epoch(float(self._f["observed_at"][row])),
            recorded_at=from_epoch(float(self._f["recorded_at"][row])),
            status=Status.ACTIVE if self.active[row] else Status.DISPUTED,
            supersedes=tuple(self._supersedes[row].as_py() or ()), superseded_by=s["superseded_by"],
            confidence=float(self._f["confidence"][row]), meta=json.loads(meta) if meta else {},
            aligned_from=s["aligned_from"], embedding=embedding, source=s["source"],
        )

    def aligned(self) -> list[tuple[str, str, str]]:
        """(id, entity, label as written) of the claims the write path aligned, in row order."""
        labels = self._s["aligned_from"]
        if labels.null_count == len(labels):
            return []
        return [(self.ids[i], self.entities[i], label) for i, label in enumerate(labels.to_pylist()) if label is not None]

    def rows_of_agent(self, agent: str) -> np.ndarray:
        return np.fromiter((a == agent for a in self._s["agent"].to_pylist()), bool, len(self.ids))
