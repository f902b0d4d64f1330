"""Erasures in a merge (`Vault.import_from` into a store with claims).

An erased claim of the source (`Vault.erase`: its skeleton, text "[erased]", no value, a zeroed
vector, `meta` {"erased": {"by", "at", "note"}}) has nothing to write, so the merge leaves it out.
But the target may hold an earlier copy of it (a restore of an older export, an earlier merge):
erasure is a privacy promise, so the merge erases that copy too, once the source's claims are
written and its retractions replayed. It is the erase `Vault.erase` does (engine/erase.py), on the
claims the source erased only (`ids`): each is retracted (its disputes go on without it), gets a
`claim_erased` event (who: the source's `by`; the note names when the source erased it), loses its
text, value, source message (dropped from every claim of every partition that kept it, with the
notes cut from it), meta and vector, in the log, its receipts, the journal, the snapshot and the
index (HNSW purged). The entity's other claims keep their content; the free text of its events,
disputes and receipts' reasons, which may quote the erased values, is scrubbed. A claim the target
erased already is left as it is (no second rewrite)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from vault_ray.storage.erase import erased_rows
from vault_ray.storage.layout import partition_of

from .backends.base import BulkBackend
from .models import from_epoch, utcnow


@dataclass(frozen=True)
class SourceErasure:
    """Claims of one entity the source erased with one erasure (its record in their `meta`)."""

    entity: str
    by: str
    at: float
    note: str
    ids: tuple[str, ...]

    def target_note(self) -> str:
        when = from_epoch(self.at).strftime("%Y-%m-%d %H:%M:%SZ")
        said = f"{self.note} " if self.note else ""
        return f"{said}(erased in the imported store at {when})"


def source_erasures(erased: pa.Table) -> list[SourceErasure]:
    """The source's erasures from its erased claims' rows (`id`, `entity`, `meta`), oldest first."""
    found: dict[tuple[str, str, float, str], list[str]] = {}
    for row in erased.select(["id", "entity", "meta"]).to_pylist():
        record = _record(row["meta"])
        key = (row["entity"], str(record.get("by") or "erase"), float(record.get("at") or 0.0),
               str(record.get("note") or ""))
        found.setdefault(key, []).append(row["id"])
    return sorted((SourceErasure(e, by, at, note, tuple(ids)) for (e, by, at, note), ids in found.items()),
                  key=lambda x: (x.at, x.entity))


def carry_erasures(backend: BulkBackend, erasures: Sequence[SourceErasure]) -> int:
    """Erase the claims the target holds (not erased yet) that the source erased; returns how many."""
    wanted = {i for x in erasures for i in x.ids}
    parts = {partition_of(x.entity, backend.partitions) for x in erasures}
    held: set[str] = set()
    for p in sorted(parts):
        table = backend.claim_columns(p, ["id", "text", "meta"])
        if table is None or not table.num_rows:
            continue
        ids, gone = table.column("id").to_pylist(), erased_rows(table).to_pylist()
        held.update(i for i, g in zip(ids, gone, strict=True) if i in wanted and not g)
    done = 0
    for x in erasures:
        todo = [i for i in x.ids if i in held]
        if todo:
            done += len(backend.erase(x.entity, decided_by=x.by, note=x.target_note(), now=utcnow(), ids=todo))
    return done


def _record(meta: Any) -> dict[str, Any]:
    try:
        data = json.loads(meta) if isinstance(meta, str) else meta
    except ValueError:
        return {}
    record = data.get("erased") if isinstance(data, dict) else None
    return record if isinstance(record, dict) else {}
