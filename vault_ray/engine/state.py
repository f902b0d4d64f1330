"""The live part of one partition, held in memory: its active and disputed claims,
the rid maps that tie claims to index rows, per-entity lookups and the open disputes.

Compact on purpose: the claims loaded when the partition opened stay in Arrow
columns (`ClaimColumns`) and become `Claim` values only when read; claims changed
since then are kept as values (`_changed`). A 100k-claim store holds columns and a
few maps instead of 100k objects (DESIGN's memory target). Disputed claims keep
their vector, so a later win needs no read.

`apply` brings it up to date after the claim log committed a transaction and says
which index rows leave and join; the partition then updates its index."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import fields

import numpy as np
import pyarrow as pa

from vault_ray.storage import PartitionImage
from vault_ray.storage.rows import LIVE_SCHEMA, ClaimColumns, live_table

from ..models import Claim, Dispute, DisputeStatus, Status

COMPACT_AT = 20_000
"""Claims changed since open (kept as objects) that make the state fold them back into columns."""

_CLAIM_VALUES = operator.attrgetter(*(f.name for f in fields(Claim)))
_EMBEDDING = [f.name for f in fields(Claim)].index("embedding")


def _with_embedding(claim: Claim, vector: object) -> Claim:
    """`replace(claim, embedding=vector)` at half its cost (it runs once per claim a bulk
    write keeps); the claim itself when it already holds that vector."""
    if claim.embedding is vector:
        return claim
    values = list(_CLAIM_VALUES(claim))
    values[_EMBEDDING] = vector
    return Claim(*values)


def _group(keys: list[str], values: list[str]) -> dict[str, list[str]]:
    """key -> its values in order (a reopen builds one per partition); one comprehension
    when every key is distinct (one live claim per entity, the common case)."""
    if len(set(keys)) == len(keys):
        return {k: [v] for k, v in zip(keys, values, strict=True)}
    out: dict[str, list[str]] = {}
    for k, v in zip(keys, values, strict=True):
        out.setdefault(k, []).append(v)
    return out


class PartitionState:
    def __init__(self, image: PartitionImage) -> None:
        self._base = ClaimColumns(image.live)
        self._row: dict[str, int] = dict(zip(self._base.ids, range(len(self._base)), strict=True))
        """claim id -> row of `_base`, for loaded claims not changed since."""
        self._changed: dict[str, tuple[Claim, int]] = {}
        """claim id -> (claim, rid), for live claims added or changed since the partition opened."""
        self._by_entity: dict[str, list[str]] = _group(self._base.entities, self._base.ids)
        """entity -> its live claim ids, in rid order."""
        self._cid_at = np.full(int(self._base.rids.max(initial=-1)) + 1, None, object)
        """rid -> claim id, for active claims only (what the index holds)."""
        active = self._base.active
        self._cid_at[self._base.rids[active]] = np.array(self._base.ids, object)[active] if len(active) else []
        self._active = int(active.sum())
        self._vectors = dict(zip(image.disputed[0].tolist(), image.disputed[1], strict=True))
        """rid -> vector of the loaded disputed claims."""
        self._gone: set[str] = set(image.gone)
        """Entities with claims, none of them live: `has_entity` must not read the log per new label."""
        self._aligned: dict[str, dict[str, str]] = {}
        """label as written -> {claim id: entity} of the live claims aligned from it, oldest first."""
        for cid, entity, label in self._base.aligned():
            self._aligned.setdefault(label, {})[cid] = entity
        self.open_disputes: dict[str, Dispute] = {}
        self.disputes_by_entity: dict[str, set[str]] = {}
        for d in image.disputes:
            self._put_dispute(d)
        self.claims = _LiveClaims(self)

    @classmethod
    def of(cls, claims: Iterable[tuple[Claim, int]], disputes: Iterable[Dispute] = ()) -> PartitionState:
        """A state from (claim, rid) values, as a partition would load them (tests, tools)."""
        claims = list(claims)
        pairs = sorted(((c, r) for c, r in claims if c.status.live), key=lambda p: p[1])
        held = [(r, np.asarray(c.embedding, np.float32)) for c, r in pairs
                if c.status == Status.DISPUTED and c.embedding is not None]
        vectors = np.stack([v for _, v in held]) if held else np.zeros((0, 0), np.float32)
        image = PartitionImage(live_table(pairs), list(disputes), (np.asarray([r for r, _ in held], np.int64), vectors),
                               gone=sorted({c.entity for c, _ in claims if not c.status.live}))
        return cls(image)

    # -- lookups ---------------------------------------------------------------------
    def get(self, cid: str) -> Claim | None:
        found = self._changed.get(cid)
        if found is not None:
            return found[0]
        row = self._row.get(cid)
        if row is None:
            return None
        rid = int(self._base.rids[row])
        return self._base.claim(row, None if self._base.active[row] else self._vectors.get(rid))

    def rid_of(self, cid: str) -> int | None:
        found = self._changed.get(cid)
        if found is not None:
            return found[1]
        row = self._row.get(cid)
        return None if row is None else int(self._base.rids[row])

    def claim_at(self, rid: int) -> Claim | None:
        """The active claim at an index row (None: no active claim there now)."""
        cid = self._cid_at[rid] if 0 <= rid < len(self._cid_at) else None
        return None if cid is None else self.get(cid)

    def entity_at(self, rid: int) -> str | None:
        cid = self._cid_at[rid] if 0 <= rid < len(self._cid_at) else None
        if cid is None:
            return None
        changed = self._changed.get(cid)
        return changed[0].entity if changed is not None else self._base.entities[self._row[cid]]

    def agent_rids(self, agent: str) -> list[int]:
        """Index rows of the agent's active claims."""
        mask = self._base.rows_of_agent(agent) & self._base.active
        ids, rids = self._base.ids, self._base.rids
        out = [int(rids[row]) for row in np.flatnonzero(mask).tolist() if ids[row] in self._row]
        out += [rid for claim, rid in self._changed.values() if claim.agent == agent and claim.status == Status.ACTIVE]
        return out

    def live_ids(self, entity: str) -> list[str]:
        return self._by_entity.get(entity, [])

    def representatives(self) -> list[int]:
        """The index row that stands for each entity in entity resolution (see `active_rids`)."""
        if self._changed:
            return [rids[-1] for e in self._by_entity if (rids := self.active_rids(e))]
        last: dict[str, int] = {}  # as loaded: rows are in rid order, so the last active row wins
        for entity, rid, active in zip(self._base.entities, self._base.rids.tolist(), self._base.active.tolist(),
                                       strict=True):
            if active:
                last[entity] = rid
        return list(last.values())

    def active_rids(self, entity: str) -> list[int]:
        """Index rows of the entity's active claims, oldest first. The last one, its most
        recently added active claim, represents the entity in entity resolution (the
        one place that chooses what represents an entity)."""
        ids = self.live_ids(entity)
        if len(ids) == 1:  # most entities (every new one of a bulk write): nothing to sort
            rid = self.rid_of(ids[0])
            return [rid] if rid is not None and rid < len(self._cid_at) and self._cid_at[rid] is not None else []
        rids = [self.rid_of(c) for c in ids]
        return sorted(r for r in rids if r is not None and r < len(self._cid_at) and self._cid_at[r] is not None)

    def split_rids(self, entities: Iterable[str]) -> tuple[list[int], list[int]]:
        """`active_rids` of each entity split in two: every row but the last (`off`) and the last
        (`on`, the entity's representative), in the order of `entities`."""
        off: list[int] = []
        on: list[int] = []
        by_entity, changed, cid_at = self._by_entity, self._changed, self._cid_at
        for entity in entities:
            ids = by_entity.get(entity)
            if ids is not None and len(ids) == 1 and (found := changed.get(ids[0])) is not None:  # (a new entity)
                if found[1] < len(cid_at) and cid_at[found[1]] is not None:
                    on.append(found[1])
                continue
            rids = self.active_rids(entity)
            off += rids[:-1]
            on += rids[-1:]
        return off, on

    def has_entity(self, entity: str) -> bool:
        return entity in self._by_entity or entity in self._gone

    def entities(self) -> Iterable[str]:
        """Entities with live claims."""
        return self._by_entity.keys()

    def stored_entities(self) -> set[str]:
        """Entities with any claim: live ones, and those with none live (history only)."""
        return set(self._by_entity) | self._gone

    def open_dispute_ids(self, entity: str) -> set[str]:
        return self.disputes_by_entity.get(entity, set())

    def active_count(self) -> int:
        return self._active

    def indexed_rids(self) -> np.ndarray:
        """The index rows of every active claim."""
        return np.flatnonzero(self._cid_at != None).astype(np.int64)  # noqa: E711  (elementwise on objects)

    def indexed_ids(self, rids: Iterable[int]) -> set[str]:
        return {self._cid_at[r] for r in rids}

    # -- changes -----------------------------------------------------------------------
    def apply(self, claims: dict[str, Claim], rids: dict[str, int], disputes: dict[str, Dispute],
              vector_of: Callable[[str], np.ndarray], vectors: dict[str, np.ndarray] | None = None,
              ) -> tuple[list[int], list[tuple[int, np.ndarray]]]:
        """Take a committed transaction's claims (their state after it) and disputes.
        `vectors`: the vectors of new claims whose objects carry none. Returns the index
        rows leaving (no longer active) and joining (newly active)."""
        leaving: list[int] = []
        joining: list[tuple[int, np.ndarray]] = []
        vectors = vectors or {}
        for cid, claim in claims.items():
            if claim.aligned_from is not None:
                self._note_aligned(cid, claim)
            if claim.embedding is None and claim.status == Status.ACTIVE and cid not in self._changed \
                    and cid not in self._row:
                self._join_new(cid, claim, rids[cid], vectors.get(cid), vector_of, joining)  # most of a bulk write
                continue
            rid = self.rid_of(cid)
            rid = rids.get(cid) if rid is None else rid
            assert rid is not None, f"claim {cid} has no index row"
            before = self.get(cid)
            vector = claim.embedding if claim.embedding is not None else vectors.get(cid)
            vector = vector if vector is not None else (before.embedding if before else None)
            was_active = before is not None and before.status == Status.ACTIVE
            self._row.pop(cid, None)
            if not claim.status.live:
                self._changed.pop(cid, None)
                self._drop_from_entity(claim.entity, cid)
            else:
                keep_vec = claim.status == Status.DISPUTED
                self._changed[cid] = (_with_embedding(claim, vector if keep_vec else None), rid)
                if before is None:
                    self._by_entity.setdefault(claim.entity, []).append(cid)
                    self._gone.discard(claim.entity)
            if was_active and claim.status != Status.ACTIVE:
                leaving.append(rid)
                self._cid_at[rid] = None
                self._active -= 1
            elif not was_active and claim.status == Status.ACTIVE:
                self._join(cid, rid, vector, vector_of, joining)
        for d in disputes.values():
            self._put_dispute(d)
        return leaving, joining

    def _note_aligned(self, cid: str, claim: Claim) -> None:
        held = self._aligned.setdefault(claim.aligned_from or "", {})
        if not claim.status.live:
            held.pop(cid, None)
            if not held:
                del self._aligned[claim.aligned_from or ""]
        else:
            held[cid] = claim.entity

    def aligned_to(self, label: str) -> tuple[float, str] | None:
        """(recorded_at, entity) of the newest live claim the write path aligned from `label`."""
        held = self._aligned.get(label)
        if not held:
            return None
        cid, entity = next(reversed(held.items()))
        claim = self.get(cid)
        return (claim.recorded_at.timestamp() if claim is not None else 0.0), entity

    def _join_new(self, cid: str, claim: Claim, rid: int, vector: np.ndarray | None,
                  vector_of: Callable[[str], np.ndarray], joining: list[tuple[int, np.ndarray]]) -> None:
        """`apply` for an active claim new to the partition, held as it came (no vector on it)."""
        self._changed[cid] = (claim, rid)
        self._by_entity.setdefault(claim.entity, []).append(cid)
        self._gone.discard(claim.entity)
        self._join(cid, rid, vector, vector_of, joining)

    def _join(self, cid: str, rid: int, vector: np.ndarray | None, vector_of: Callable[[str], np.ndarray],
              joining: list[tuple[int, np.ndarray]]) -> None:
        joining.append((rid, np.asarray(vector if vector is not None else vector_of(cid), dtype=np.float32)))
        if rid >= len(self._cid_at):
            grown = np.full(max(rid + 1, 2 * len(self._cid_at)), None, object)
            grown[: len(self._cid_at)] = self._cid_at
            self._cid_at = grown
        self._cid_at[rid] = cid
        self._active += 1

    # -- compaction ----------------------------------------------------------------------
    def needs_compaction(self) -> bool:
        return len(self._changed) >= max(COMPACT_AT, len(self._row))

    def compact(self) -> None:
        """Fold the claims changed since open back into columns: a long-running process
        keeps columns, not one object per claim it ever wrote (the caller holds the lock)."""
        kept = sorted(self._row.values())
        changed = sorted(self._changed.values(), key=lambda pair: pair[1])
        unchanged = self._base.table.take(pa.array(kept, pa.int64())).cast(LIVE_SCHEMA)
        table = pa.concat_tables([unchanged, live_table(changed)]).sort_by("rid")
        still = set(self._base.rids[kept].tolist())
        vectors = {rid: v for rid, v in self._vectors.items() if rid in still}
        vectors.update({rid: c.embedding for c, rid in changed if c.embedding is not None})
        self._base = ClaimColumns(table)
        self._row = dict(zip(self._base.ids, range(len(self._base)), strict=True))
        self._changed = {}
        self._vectors = vectors

    def _drop_from_entity(self, entity: str, cid: str) -> None:
        ids = self._by_entity.get(entity)
        if ids is not None and cid in ids:
            ids.remove(cid)
            if not ids:
                del self._by_entity[entity]
                self._gone.add(entity)
        elif ids is None:
            self._gone.add(entity)

    def _put_dispute(self, d: Dispute) -> None:
        if d.status == DisputeStatus.OPEN:
            self.open_disputes[d.id] = d
            self.disputes_by_entity.setdefault(d.entity, set()).add(d.id)
        else:
            self.open_disputes.pop(d.id, None)
            self.disputes_by_entity.get(d.entity, set()).discard(d.id)


class _LiveClaims:
    """`state.claims`: the live claims as a read-only mapping (id -> Claim)."""

    def __init__(self, state: PartitionState) -> None:
        self._state = state

    def get(self, cid: str, default: Claim | None = None) -> Claim | None:
        found = self._state.get(cid)
        return default if found is None else found

    def __getitem__(self, cid: str) -> Claim:
        found = self._state.get(cid)
        if found is None:
            raise KeyError(cid)
        return found

    def __contains__(self, cid: object) -> bool:
        return isinstance(cid, str) and (cid in self._state._changed or cid in self._state._row)
