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

What is left is the provenance skeleton: ids, the entity key, agents, sessions, times,
status `retracted`, supersedes links, and the erasure (its events, and each claim's `meta`:
`{"erased": {"by", "at", "note"}}`). Erasing again erases what a crash between the two steps
left (the second step runs every time) and records nothing new; an entity with no claims
answers [].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from vault_ray.storage.erase import ERASED, is_erased

from ..models import Retraction, Status, to_epoch
from ..policy import Policy
from .retract import retract_in

if TYPE_CHECKING:
    from .partitions import PartitionSet

__all__ = ["ERASED", "drop_sources", "erase_entity", "is_erased"]


def erase_entity(host: PartitionSet, entity: str, *, decided_by: str, note: str, policy: Policy,
                 cardinality: str, now: datetime) -> tuple[list[Retraction], list[str]]:
    """Erase every claim of `entity` (see the module docstring): one Retraction per claim, in
    history order, each claim as it stands now (the skeleton; `already`: retracted before), and
    the source messages the erased claims kept (for `drop_sources` on every partition)."""
    part = host.owner(entity)
    if part is None:
        return [], []
    with part.lock:
        claims = part.log.claims_for_entity(entity)
        if not claims:
            return [], []
        txn = part.begin(now)
        txn.cardinality[entity] = cardinality
        found = {c.id: txn.claim(c.id) if txn.known(c.id) else c for c in claims}
        done = dict(zip(found, retract_in(txn, part, entity, found, decided_by=decided_by, note=note, policy=policy,
                                          cardinality=cardinality), strict=True))
        fresh = [c for c in claims if not is_erased(c)]
        for c in fresh:
            txn.event(entity, "claim_erased", claim_id=c.id, agent=decided_by, status=str(Status.RETRACTED),
                      decided_by=decided_by, note=note)
        part.commit(txn)
        record = {"by": decided_by, "at": to_epoch(txn.now), "note": note}
        part.log.erase(entity, record)
        purge = getattr(part.index, "purge", None)
        if purge is not None:
            purge()
        skeleton = {c.id: c for c in part.log.claims_for_entity(entity)}
    sources = sorted({c.source for c in claims if c.source})
    return [replace(done[c.id], claim=skeleton.get(c.id, done[c.id].claim)) for c in claims], sources


def drop_sources(host: PartitionSet, sources: Sequence[str], partitions: Iterable[int] | None = None) -> int:
    """Remove these source messages from every claim of the host's partitions (or of `partitions`)
    that kept one, in the log and in memory: a message that gave an erased claim may have given
    claims of other entities too. Returns how many claims lost their source."""
    dropped = 0
    for part in host.opened(partitions) if sources else []:
        with part.lock:
            ids = part.log.drop_sources(list(sources))
            live = {cid: c for cid in ids if (c := part.state.get(cid)) is not None and c.status.live}
            if live:  # the same status: only the memory's copy changes (no index row moves)
                part.state.apply({cid: replace(c, source=None) for cid, c in live.items()}, {}, {}, part._stored_vector)
            dropped += len(ids)
    return dropped
