"""Erasure: forgetting that a privacy request can rely on (`Vault.erase`; docs/design.md, "Erasure").

`forget` retracts an entity's live claims: reads stop seeing them, the log keeps them whole.
`erase` goes further, in two steps at the entity's partition owner, under its lock:

1. one transaction retracts every claim of the entity that is not retracted yet (live or
   superseded: an open dispute goes on without it, as for `retract`) and records a
   `claim_erased` event per claim not erased before (who: `decided_by`, and `note`);
2. the claim log removes the content of every claim of the entity, whatever its status, from
   each place it keeps it (storage/erase.py: claims, staged vectors, receipts, event details,
   disputes; the DuckDB file rewritten, the journal emptied, the snapshot deleted), and the
   host's vector index is rebuilt without tombstones and its saved graph file deleted.

The source messages the erased claims kept are then dropped from every claim of every partition
(`drop_sources`), and a free-text note cut from one of them (`Policy.unextracted_notes`: the rest
of the message) is retracted and erased with it. An erased claim's id stays taken: its receipt,
emptied, refuses any later write under it (`receipts.same_fact`).

`erase_entity(..., ids=...)` erases only those claims of the entity, the same way (a merge import
carrying the source's erasure of them, transfer_erase.py; the intent record names the ids, so a
crash is finished on those claims only); the entity's other claims keep their content.

What is left is the provenance skeleton: ids, the entity key, agents, sessions, times,
status `retracted`, supersedes links, and the erasure (its events, and each claim's `meta`:
`{"erased": {"by", "at", "note"}}`). Erasing again erases what a crash between the two steps
left (the second step runs every time) and records nothing new; an entity with no claims
answers [].

A crash between the steps must not leave the content on disk until someone thinks of erasing
again: before step 1, the erasure is recorded durably in the partition's intent file
(`STORE/partitions/pNNNN.erasing`: entity, who, why, and the source messages to drop), and it is
removed only once both steps and the local `drop_sources` are done. Opening the partition's host
again (`Vault.open`, a shard actor's start) finishes every erasure still recorded there, with a
warning (`finish_erasures`).

In cluster mode a shard holds only some partitions: the other shards' claims may share the source
messages too. So the owner keeps the record after its part, marked `WAITING`, and removes it only
when told that every shard dropped the sources (`erasures_done`): by the front right after its
`drop_sources` on every shard, or, should the front or a shard die first, by the control actor
(`ControlActor.finish_erasures`: at its start, when a restarted shard asks, and when a client joins),
which collects the waiting records (`waiting_erasures`) and has every shard drop their sources.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_ray.storage.erase import ERASED, is_erased
from vault_ray.storage.journal import sync_dir

from ..errors import StoreError
from ..models import Retraction, Status, to_epoch, utcnow
from ..policy import Policy
from ..registry import NOTES_ENTITY
from .retract import retract_in

if TYPE_CHECKING:
    from .partitions import PartitionSet

__all__ = ["ERASED", "WAITING", "drop_sources", "erase_entity", "erasures_done", "finish_erasures", "is_erased",
           "waiting_erasures"]
log = logging.getLogger("vault_ray")
WAITING = "waiting_for_shards"
"""The key of an intent record whose owner's part is done: only the other shards' drop of its
source messages is left (cluster mode; the control actor has them do it)."""


def erase_entity(host: PartitionSet, entity: str, *, decided_by: str, note: str, policy: Policy,
                 cardinality: str, now: datetime, others: bool = False,
                 ids: Sequence[str] | None = None) -> tuple[list[Retraction], list[str]]:
    """Erase every claim of `entity` (see the module docstring): one Retraction per claim, in
    history order, each claim as it stands now (the skeleton; `already`: retracted before), and
    the source messages the erased claims kept (for `drop_sources` on every partition).
    `others`: the host is one shard of several, so the record stays, marked `WAITING`, until the
    other shards have dropped the source messages too (`Intents.done`).
    `ids`: only these claims of the entity (a merge import carrying the source's erasure of them,
    transfer.py): each erased as above; the entity's other claims keep their content, and the free
    text of its events, disputes and receipts' reasons, which may quote the erased values, is
    scrubbed (`ClaimLog.erase(audit=True)`)."""
    part = host.owner(entity)
    if part is None:
        return [], []
    intents = Intents(host.root, part.number)
    with part.lock:
        claims = part.log.claims_for_entity(entity)
        if ids is not None:
            ids = _ids_to_finish(intents, entity, ids)  # with those of an erasure of them a crash cut short
        if ids is not None:
            wanted = set(ids)
            claims = [c for c in claims if c.id in wanted]
            if not claims:
                return [], []
        if not claims:
            intents.remove(entity)
            return [], []
        sources = sorted({c.source for c in claims if c.source} | set(intents.sources(entity)))
        mine = {} if ids is None else {"ids": sorted(c.id for c in claims)}
        intents.add({"entity": entity, "by": decided_by, "note": note, "sources": sources, **mine})  # before any change
        txn = part.begin(now)
        txn.cardinality[entity] = cardinality
        found = {c.id: txn.claim(c.id) if txn.known(c.id) else c for c in claims}
        done = dict(zip(found, retract_in(txn, part, entity, found, decided_by=decided_by, note=note, policy=policy,
                                          cardinality=cardinality), strict=True))
        # not erased before: neither its content (a skeleton) nor its event (a crash cut that erasure short)
        recorded = {e.claim_id for e in part.log.events(entity=entity) if e.kind == "claim_erased"}
        fresh = [c for c in claims if not is_erased(c) and c.id not in recorded]
        for c in fresh:
            txn.event(entity, "claim_erased", claim_id=c.id, agent=decided_by, status=str(Status.RETRACTED),
                      decided_by=decided_by, note=note)
        part.commit(txn)
        record = {"by": decided_by, "at": to_epoch(txn.now), "note": note}
        part.log.erase(entity, record, mine.get("ids"), audit=ids is not None)
        purge = getattr(part.index, "purge", None)
        if purge is not None:
            purge()
        skeleton = {c.id: c for c in part.log.claims_for_entity(entity)}
    # every partition of this host (in cluster mode the backend asks the others)
    drop_sources(host, sources, decided_by=decided_by, note=note)
    with part.lock:
        if others and sources:  # the owner's part is done; the other shards' is not yet
            intents.add({"entity": entity, "by": decided_by, "note": note, "sources": sources, WAITING: True, **mine})
        else:
            intents.remove(entity)
    return [replace(done[c.id], claim=skeleton.get(c.id, done[c.id].claim)) for c in claims], sources


def _ids_to_finish(intents: Intents, entity: str, ids: Sequence[str]) -> list[str] | None:
    """The claims an erasure of some claims of `entity` takes: `ids`, and those of an unfinished erasure
    of the entity recorded before it (None: that one takes every claim of the entity)."""
    found = set(ids)
    for row in intents.pending():
        if row["entity"] == entity and not row.get(WAITING):
            if not isinstance(row.get("ids"), list):
                return None
            found |= {str(i) for i in row["ids"]}
    return sorted(found)


class Intents:
    """The erasures of one partition under way (`STORE/partitions/pNNNN.erasing`, JSON): each
    recorded, fsynced, before its first change, and removed when it is done. The file is written
    atomically (a new file renamed over it) and removed when no erasure is left."""

    def __init__(self, root: str | os.PathLike[str], number: int) -> None:
        self.path = Path(root) / "partitions" / f"p{number:04d}.erasing"

    def pending(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
            rows = data["erasures"]
            if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get("entity"), str)
                                                     for r in rows):
                raise ValueError("not a list of erasures")
            return rows
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"cannot read the unfinished erasures in {self.path}: {exc}") from exc

    def sources(self, entity: str) -> list[str]:
        return [s for r in self.pending() if r["entity"] == entity for s in r.get("sources") or ()]

    def add(self, entry: dict[str, Any]) -> None:
        self._write([*(r for r in self.pending() if r["entity"] != entry["entity"]), entry])

    def remove(self, entity: str) -> None:
        rows = self.pending()
        if any(r["entity"] == entity for r in rows):
            self._write([r for r in rows if r["entity"] != entity])

    def waiting(self) -> list[dict[str, Any]]:
        """The erasures whose owner's part is done, waiting for the other shards to drop their sources."""
        return [r for r in self.pending() if r.get(WAITING)]

    def done(self, entity: str, dropped: Iterable[str]) -> bool:
        """Remove the record of `entity` if it only waited for the other shards and every one of its
        source messages is in `dropped` (a newer erasure of the entity recorded since stays)."""
        rows, dropped = self.pending(), set(dropped)
        mine = [r for r in rows if r["entity"] == entity and r.get(WAITING) and set(r.get("sources") or ()) <= dropped]
        if mine:
            self._write([r for r in rows if r["entity"] != entity])
        return bool(mine)

    def _write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            self.path.unlink(missing_ok=True)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = self.path.with_suffix(".erasing.tmp")
            with open(fresh, "w", encoding="utf-8") as f:
                json.dump({"erasures": rows}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(fresh, self.path)
        sync_dir(self.path.parent)


def finish_erasures(host: PartitionSet, policy: Policy, cardinality: Callable[[str], str], *,
                    others: bool = False) -> list[str]:
    """Finish every erasure a crash cut short in the host's opened partitions (their intent files),
    as `erase` called again would, each with a warning. Returns the entities erased. `others`: the
    host is one shard of several; an erasure whose owner's part is done (`WAITING`) is left for the
    cluster's control actor, which has every shard drop its sources (`Intents.done`). Without
    `others` the host holds every partition: such an erasure's sources are dropped here."""
    done = []
    for part in host.opened():
        intents = Intents(host.root, part.number)
        for row in intents.pending():
            entity = row["entity"]
            if row.get(WAITING) and others:
                continue
            log.warning("vault-ray: finishing the erasure of %s (by %s) that a crash interrupted in partition %d",
                        entity, row.get("by"), part.number)
            if row.get(WAITING):  # the owner's part was done in cluster mode: the sources are left
                sources = [str(s) for s in row.get("sources") or ()]
                drop_sources(host, sources, decided_by=str(row.get("by") or "erase"), note=str(row.get("note") or ""))
                with part.lock:
                    intents.done(entity, sources)
            else:
                some = row.get("ids")
                erase_entity(host, entity, decided_by=str(row.get("by") or "erase"), note=str(row.get("note") or ""),
                             policy=policy, cardinality=cardinality(entity), now=utcnow(), others=others,
                             ids=[str(i) for i in some] if isinstance(some, list) else None)
            done.append(entity)
    return done


def waiting_erasures(host: PartitionSet, partitions: Iterable[int] | None = None) -> dict[int, list[dict[str, Any]]]:
    """The erasures of the host's partitions (or of `partitions`) whose owner's part is done and
    whose source messages the other shards must still drop: {partition: [record, ...]}."""
    found = {part.number: Intents(host.root, part.number).waiting() for part in host.opened(partitions)}
    return {p: rows for p, rows in found.items() if rows}


def erasures_done(host: PartitionSet, partition: int, entities: Iterable[str], dropped: Sequence[str]) -> list[str]:
    """Remove the records of these erasures of `partition` once every shard dropped `dropped`
    (idempotent: a record already gone, or a newer one, stays as it is). Returns those removed."""
    removed = []
    for part in host.opened([partition]):
        intents = Intents(host.root, part.number)
        with part.lock:
            removed += [e for e in entities if intents.done(e, dropped)]
    return removed


def drop_sources(host: PartitionSet, sources: Sequence[str], partitions: Iterable[int] | None = None, *,
                 decided_by: str = "erase", note: str = "") -> int:
    """Remove these source messages from every claim of the host's partitions (or of `partitions`)
    that kept one, in the log and in memory: a message that gave an erased claim may have given
    claims of other entities too. A free-text note cut from one of them (`Policy.unextracted_notes`:
    the rest of the message, no fact of its own) is erased with it, as `erase` would
    (`decided_by`, `note`: the erasure's). Returns how many claims lost their source."""
    dropped = 0
    for part in host.opened(partitions) if sources else []:
        with part.lock:
            _erase_notes(part, list(sources), decided_by, note)
            ids = part.log.drop_sources(list(sources))
            live = {cid: c for cid in ids if (c := part.state.get(cid)) is not None and c.status.live}
            if live:  # the same status: only the memory's copy changes (no index row moves)
                part.state.apply({cid: replace(c, source=None) for cid, c in live.items()}, {}, {}, part._stored_vector)
            dropped += len(ids)
    return dropped


def _erase_notes(part: Any, sources: list[str], decided_by: str, note: str) -> None:
    """Retract and erase the notes of `part` cut from these messages (under its lock)."""
    wanted = set(sources)
    found = {c.id: c for c in part.log.claims_for_entity(NOTES_ENTITY) if c.source in wanted and c.meta.get("note")}
    if not found:
        return
    txn = part.begin(utcnow())
    txn.cardinality[NOTES_ENTITY] = "many"
    found = {cid: txn.claim(cid) if txn.known(cid) else c for cid, c in found.items()}
    # notes are in no dispute: the policy is never asked
    retract_in(txn, part, NOTES_ENTITY, found, decided_by=decided_by, note=note, policy=Policy(), cardinality="many")
    recorded = {e.claim_id for cid in found for e in part.log.events(claim_id=cid) if e.kind == "claim_erased"}
    for cid in found.keys() - recorded:
        txn.event(NOTES_ENTITY, "claim_erased", claim_id=cid, agent=decided_by, status=str(Status.RETRACTED),
                  decided_by=decided_by, note=note)
    part.commit(txn)
    part.log.erase(NOTES_ENTITY, {"by": decided_by, "at": to_epoch(txn.now), "note": note}, list(found))
    purge = getattr(part.index, "purge", None)
    if purge is not None:
        purge()
