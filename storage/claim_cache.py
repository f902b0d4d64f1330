"""Stored claims read by id, kept in memory until something changes them.

A write that supersedes claims asks again about the open disputes on its entity, and walks each
incumbent's chain of replacements to the claim that stands for it now (engine/outlived.py,
engine/sides.py). The claims on those chains are superseded ones: no longer in the partition's
memory, so each hop was a read of the claim log, and a read first applies the journal's pending
records to DuckDB (one transaction) and then scans the claims table. Four agents writing
contradicting values to 20 entities spent 86% of a shard's write time there.

The cache keeps what such reads returned (claims without their vectors), and the claims a commit
leaves superseded or retracted as the commit left them (`ChangeSet.left`): the next write's walk
finds them without a read. The claim log drops an id when a commit changes that claim (its status,
what it supersedes) and drops everything when it changes claims another way (a restore, an
erasure, a reindex's switch): a read never answers from a claim older than the last change it
could see. A read that raced a change does not keep what it read (`generation`).

It keeps each entity's log as well (its claims and events, as `claims_for_entity` and `events(entity=)`
read them): a consensus write counts every agent's standing claim on the entity from it
(engine/tally.py), and an `as_of` read replays it (engine/timeline.py). A commit drops the entities
it adds claims or events to and those of the claims it changes; the rest stay."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable

from vault_ray.models import Claim, Event

SIZE = 2048
"""How many claims a log keeps at most (about 0.9 KB each: under 2 MB a partition, 28 MB for 16); the oldest go first."""
ENTITIES = 256
"""How many entities' logs it keeps at most (the oldest go first), each of ENTITY_ROWS claims and events at most."""
ENTITY_ROWS = 512


class ClaimCache:
    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._claims: dict[str, Claim] = {}
        self._entities: dict[str, tuple[list[Claim], list[Event]]] = {}
        self._owner: dict[str, str] = {}  # claim id -> its entity, for the entities kept
        self._big: set[str] = set()  # entities whose log was too large to keep (a log only grows)
        self._generation = 0
        self._lock = threading.Lock()

    def split(self, ids: list[str]) -> tuple[dict[str, Claim], list[str], int]:
        """(the claims of `ids` held here, the ids to read, the generation to hand to `keep`)."""
        with self._lock:
            held = {i: c for i in ids if (c := self._claims.get(i)) is not None}
            return held, [i for i in ids if i not in held], self._generation

    def keep(self, claims: dict[str, Claim], generation: int) -> None:
        """Keep `claims` (read from the log), unless something changed since `generation`."""
        with self._lock:
            if generation == self._generation:
                self._add(claims)

    def drop(self, ids: Iterable[str], then: dict[str, Claim] | None = None, entities: Iterable[str] = ()) -> None:
        """Forget these claims: a commit changed them; `then`: claims as the commit left them, kept.
        Forget the logs of `entities` (the commit added to them) and of the entities of `ids`."""
        with self._lock:
            self._generation += 1
            gone = set(entities)
            for cid in ids:
                self._claims.pop(cid, None)
                if (entity := self._owner.get(cid)) is not None:
                    gone.add(entity)
            for entity in gone:
                self._forget_entity(entity)
            self._add(then or {})

    def entity(self, entity: str) -> tuple[tuple[list[Claim], list[Event]] | None, int]:
        """(the entity's claims and events if kept, else None; the generation to hand to `keep_entity`)."""
        with self._lock:
            return self._entities.get(entity), self._generation

    def too_large(self, entity: str) -> bool:
        """Whether the entity's log was too large to keep: a read asks only for the part it needs."""
        return entity in self._big

    def keep_entity(self, entity: str, claims: list[Claim], events: list[Event], generation: int) -> None:
        """Keep an entity's log (read from the log), unless something changed since `generation`."""
        with self._lock:
            if len(claims) + len(events) > ENTITY_ROWS:
                self._big.add(entity)
            if generation != self._generation or entity in self._big:
                return
            if len(self._entities) >= ENTITIES:
                self._forget_entity(next(iter(self._entities)))
            self._entities[entity] = (claims, events)
            self._owner.update((c.id, entity) for c in claims)

    def _forget_entity(self, entity: str) -> None:  # (the lock held)
        for c in self._entities.pop(entity, ((), ()))[0]:
            self._owner.pop(c.id, None)

    def _add(self, claims: dict[str, Claim]) -> None:  # (the lock held)
        if len(claims) >= self.size:  # (a bulk write's): its last ones only
            self._claims = dict(itertools.islice(claims.items(), len(claims) - self.size, None))
            return
        over = len(self._claims) + len(claims) - self.size
        if over > 0:  # the oldest kept go first (a dict keeps its order of insertion)
            for cid in list(itertools.islice(self._claims, over)):
                del self._claims[cid]
        self._claims.update(claims)

    def clear(self) -> None:
        """Forget every claim: the log changed in another way."""
        with self._lock:
            self._generation += 1
            self._claims.clear()
            self._entities.clear()
            self._owner.clear()
            self._big.clear()

    def __len__(self) -> int:
        return len(self._claims)
