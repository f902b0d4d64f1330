"""What the bulk jobs (export, import, reindex, normalize) ask of a partition owner.

Functions over a `PartitionSet`, so the embedded backend and the Ray shard (which
both host their partitions in one) run the same code. Each takes the partition's
lock; every change goes through the claim log's own transactions (`commit`,
`restore`, `stage_vectors`), after which the partition's memory and index follow.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray.storage.layout import partition_of

from ..models import Claim, Dispute, DisputeStatus, Resolution, Status
from .partition import Partition
from .partitions import PartitionSet
from .txn import Txn
from .views import read_order

MERGED_BY = "normalize"
"""Who the events of an entity merge name (agent, decided_by)."""


# -- export and import ---------------------------------------------------------------
def dump_partition(host: PartitionSet, number: int) -> dict[str, pa.Table]:
    """Every table of one partition, read under its lock ({} when it has no log)."""
    part = host.parts.get(number)
    if part is None:
        return {}
    with part.lock:
        return part.log.dump()


def row_counts(host: PartitionSet, partitions: Iterable[int]) -> dict[int, dict[str, int]]:
    out = {}
    for part in host.opened(partitions):
        with part.lock:
            out[part.number] = part.log.row_counts()
    return out


def claim_columns(host: PartitionSet, number: int, columns: Sequence[str]) -> pa.Table | None:
    part = host.parts.get(number)
    if part is None:
        return None
    with part.lock:
        return part.log.claim_columns(columns)


def restore_partition(host: PartitionSet, number: int, tables: dict[str, pa.Table]) -> dict[str, int]:
    """Insert an exported partition's tables, verbatim, into its empty log (one
    transaction), then rebuild the partition's state and index from the log."""
    part = host.open(number, create=True)
    assert part is not None
    with part.lock:
        counts = part.log.restore(tables)
        host.reload(number)
    return counts


def present_claims(host: PartitionSet, ids: dict[int, list[str]]) -> set[str]:
    """Which of the claim ids (grouped by the partition their entity maps to) the store holds,
    or applied already without keeping a claim (a receipt: a claim that repeated one)."""
    found: set[str] = set()
    for p, wanted in ids.items():
        part = host.parts.get(p)
        if part is not None and wanted:
            with part.lock:
                found.update(part.log.get_claims(wanted))
                found.update(part.log.receipts([i for i in wanted if i not in found]))
    return found


# -- reindex: vectors staged beside the current ones ---------------------------------
def unstaged(host: PartitionSet, number: int, embedder: str, dim: int) -> pa.Table | None:
    part = host.parts.get(number)
    if part is None:
        return None
    with part.lock:
        return part.log.unstaged(embedder, dim)


def stage_vectors(host: PartitionSet, number: int, embedder: str, dim: int, ids: Sequence[str],
                  vectors: np.ndarray) -> int:
    part = host.parts.get(number)
    if part is None:
        return 0
    with part.lock:
        return part.log.stage_vectors(embedder, dim, ids, vectors)


def drop_staged(host: PartitionSet, keep: tuple[str, int] | None, partitions: Iterable[int]) -> int:
    dropped = 0
    for part in host.opened(partitions):
        with part.lock:
            dropped += part.log.drop_staged(keep)
    return dropped


def staging_gaps(host: PartitionSet, embedder: str, dim: int, partitions: Iterable[int]) -> dict[int, int]:
    """Per partition with a log: how many claims have no vector staged for `embedder`."""
    out = {}
    for part in host.opened(partitions):
        with part.lock:
            out[part.number] = part.log.unstaged(embedder, dim).num_rows
    return out


# -- normalize: claims re-keyed onto another entity ----------------------------------
def live_claims(host: PartitionSet, entity: str) -> list[Claim]:
    """The active and disputed claims of `entity`, with their vectors, oldest first."""
    part = host.owner(entity)
    if part is None:
        return []
    with part.lock:
        ids = sorted(part.state.live_ids(entity))
        found = part.log.get_claims(ids, with_vectors=True)
    return sorted(found.values(), key=read_order)


@dataclass(frozen=True)
class MergeRecord:
    """One claim of a merged entity and the claim that now carries it on the target."""

    source: str
    source_entity: str
    successor: str
    """The re-keyed copy written on the target, or the target claim a NOOP named."""
    target_entity: str
    detail: dict[str, Any] = field(default_factory=dict)
    """What the events record besides the claims and entities: the plan, scores, evidence."""


def note_merged(host: PartitionSet, records: Sequence[MergeRecord], now: datetime) -> int:
    """On the target side: an `entity_merged` event on each successor, naming where it
    came from (once: a record already noted is skipped). Returns the events written."""
    written = 0
    for part, mine in _by_partition(host, records, lambda r: r.target_entity):
        with part.lock:
            done = {(e.claim_id, e.detail.get("from_claim")) for entity in {r.target_entity for r in mine}
                    for e in part.log.events(entity=entity) if e.kind == "entity_merged"}
            txn = part.begin(now)
            for r in mine:
                if (r.successor, r.source) not in done:
                    reason = f"re-keyed from {r.source_entity} (claim {r.source}){_plan(r)}"
                    txn.event(r.target_entity, "entity_merged", claim_id=r.successor, agent=MERGED_BY,
                              from_entity=r.source_entity, from_claim=r.source, reason=reason, **r.detail)
                    done.add((r.successor, r.source))
                    written += 1
            part.commit(txn)
    return written


@dataclass(frozen=True)
class CarriedDecision:
    """A dispute a person resolved on a merged label, whose chosen claim is re-keyed: the
    decision goes to the target with it (before the copies are written), so the copy is a
    value a person chose there too (decided.py: no agent's value overturns it by policy)."""

    dispute: Dispute
    target_entity: str
    copies: dict[str, str]
    """Each member's claim id on the old label -> its copy's id on the target (copied or not)."""
    plan: str = ""


def carried_id(dispute_id: str, target: str, partition: int) -> str:
    """The id of a decision carried onto `target`: the same on every run (a rerun records it once)."""
    digest = hashlib.blake2b(f"{dispute_id}\x00{target}".encode(), digest_size=16).hexdigest()
    return f"dsp-{partition}-{digest}"


def carry_decisions(host: PartitionSet, carried: Sequence[CarriedDecision], now: datetime) -> int:
    """On the target side: each decision as a resolved dispute of the target whose members are the
    copies' ids and whose winner is the chosen claim's copy, by the same person, at the same time,
    with a `dispute_resolved` event naming where it came from. Returns the decisions recorded
    (0 for a repeat)."""
    written = 0
    for part, mine in _by_partition(host, carried, lambda c: c.target_entity):
        with part.lock:
            txn = part.begin(now)
            for c in mine:
                d, res = c.dispute, c.dispute.resolution
                did = carried_id(d.id, c.target_entity, part.number)
                if res is None or did in txn.disputes or part.log.get_dispute(did) is not None:
                    continue
                copy = c.copies.get
                plan = f" by merge plan {c.plan}" if c.plan else ""
                note = f"carried over from dispute {d.id} on {d.entity}{plan}" + (f": {res.note}" if res.note else "")
                moved = replace(d, id=did, entity=c.target_entity, challenger=copy(d.challenger, d.challenger),
                                incumbents=tuple(copy(i, i) for i in d.incumbents),
                                supporters=tuple(copy(i, i) for i in d.supporters),
                                resolution=replace(res, winner=None if res.winner is None else copy(res.winner, res.winner),
                                                   note=note))
                txn.put_dispute(moved, "dispute_resolved", agent=MERGED_BY, claim_id=moved.resolution.winner,  # type: ignore[union-attr]
                                decided_by=res.decided_by, note=note, from_entity=d.entity, from_dispute=d.id)
                written += 1
            part.commit(txn)
    return written


def retire_merged(host: PartitionSet, records: Sequence[MergeRecord], now: datetime) -> int:
    """On the source side: each merged claim still live is superseded by its successor
    (with an `entity_merged` event), and open disputes left with no live claim on the
    merged entity are closed. Returns the claims retired (0 for a repeat)."""
    retired = 0
    for part, mine in _by_partition(host, records, lambda r: r.source_entity):
        with part.lock:
            txn = part.begin(now)
            for r in mine:
                if not txn.known(r.source) or not txn.claim(r.source).status.live:
                    continue
                reason = f"entity {r.source_entity} merged into {r.target_entity}{_plan(r)}"
                txn.event(r.source_entity, "entity_merged", claim_id=r.source, agent=MERGED_BY,
                          to_entity=r.target_entity, to_claim=r.successor, reason=reason, **r.detail)
                txn.set_status(r.source, Status.SUPERSEDED, r.successor, agent=MERGED_BY, reason=reason)
                retired += 1
            for entity in sorted({r.source_entity for r in mine}):
                _close_emptied_disputes(txn, entity, next(r.target_entity for r in mine if r.source_entity == entity))
            part.commit(txn)
    return retired


def _plan(r: MergeRecord) -> str:
    plan = r.detail.get("plan")
    return f" by merge plan {plan}" + (f" ({r.detail['found_by']})" if r.detail.get("found_by") else "") if plan else ""


def _close_emptied_disputes(txn: Txn, entity: str, target: str) -> None:
    if txn.live_on(entity):
        return
    note = f"entity merged into {target}: its claims were re-keyed there, where they met conflict detection again"
    for d in txn.open_disputes_on(entity):
        closed = replace(d, status=DisputeStatus.RESOLVED, resolution=Resolution(None, MERGED_BY, note, txn.now))
        txn.put_dispute(closed, "dispute_resolved", agent=MERGED_BY, claim_id=None, decided_by=MERGED_BY, note=note)


def _by_partition(host: PartitionSet, records: Sequence[Any],
                  entity_of: Callable[[Any], str]) -> list[tuple[Partition, list[Any]]]:
    groups: dict[int, list[Any]] = {}
    for r in records:
        groups.setdefault(partition_of(entity_of(r), host.partitions), []).append(r)
    out = []
    for p in sorted(groups):
        part = host.open(p, create=True)
        assert part is not None
        out.append((part, groups[p]))
    return out
