"""Retractions in a merge (`Vault.import_from` into a store with claims).

A merge sends the source's claims through the target's write path in the order the
source recorded them; a claim a person took back there must not come back to life
here. So the merge replays the source's retractions too, each at its place in the
source's order: the claim is written (it meets the target's claims as it met the
source's, superseding or disputing what it did), then retracted with the source's
`decided_by` and `note` (`Vault.retract`: the disputes it is in go on without it).
A restore into an empty store keeps the same claims retracted verbatim; a merge ends
with them retracted as well, provenance kept (who, why, and the source's time in the
retraction's note)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vault_ray.storage.archive import Archive

from .errors import ClaimNotFound
from .models import Retraction, from_epoch


@dataclass(frozen=True, order=True)
class SourceRetraction:
    """A retraction the source recorded (its `status_changed` event to retracted)."""

    ts: float
    claim_id: str
    entity: str
    decided_by: str
    note: str

    def target_note(self) -> str:
        when = from_epoch(self.ts).strftime("%Y-%m-%d %H:%M:%SZ")
        return f"{self.note} (retracted in the imported store at {when})" if self.note else \
            f"retracted in the imported store at {when}"


def source_retractions(archive: Archive) -> list[SourceRetraction]:
    """Every retraction in the export, oldest first (one per claim: its first)."""
    tables = (archive.tables(p).get("events") for p in archive.partitions)
    return retractions_in(e for events in tables if events is not None for e in events.to_pylist())


def retractions_in(events: Iterable[Mapping[str, Any]]) -> list[SourceRetraction]:
    """The retractions among claim-log event rows (EVENT_SCHEMA's columns), oldest first, one
    per claim (its first): also what `eval --from-store` replays (evals/from_store.py)."""
    found: dict[str, SourceRetraction] = {}
    for e in events:
        if e["status"] != "retracted" or e["kind"] not in ("status_changed", "claim_added") or not e["claim_id"]:
            continue
        detail = json.loads(e["detail"]) if e["detail"] else {}
        who = str(detail.get("decided_by") or e["agent"] or "import")
        r = SourceRetraction(float(e["ts"]), e["claim_id"], e["entity"], who, str(detail.get("note") or ""))
        if r.claim_id not in found or r.ts < found[r.claim_id].ts:
            found[r.claim_id] = r
    return sorted(found.values())


Retract = Callable[[str, list[str], str, str], list[Retraction]]
"""(entity, claim ids, decided_by, note) -> the retractions (the backend's `retract`)."""


def replay(pending: list[SourceRetraction], until: float | None, retract: Retract) -> int:
    """Apply (and remove from `pending`, oldest first) the retractions recorded before `until` (a recording time)
    (all when None). A claim the target does not hold (a noop) is skipped. Returns how many
    claims this retracted (not counting those retracted already)."""
    done = 0
    while pending and (until is None or pending[0].ts < until):
        r = pending.pop(0)
        try:
            out = retract(r.entity, [r.claim_id], r.decided_by, r.target_note())
        except ClaimNotFound:
            continue
        done += sum(not x.already for x in out)
    return done
