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
could see. A read that raced a change does not keep what it read (`generation`)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable

from vault_ray.models import Claim

SIZE = 2048
"""How many claims a log keeps at most (about 0.9 KB each: under 2 MB a partition, 28 MB for 16); the oldest go first."""


class ClaimCache:
    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._claims: dict[str, Claim] = {}
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

    def drop(self, ids: Iterable[str], then: dict[str, Claim] | None = None) -> None:
        """Forget these claims: a commit changed them; `then`: claims as the commit left them, kept."""
        with self._lock:
            self._generation += 1
            for cid in ids:
                self._claims.pop(cid, None)
            self._add(then or {})

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

    def __len__(self) -> int:
        return len(self._claims)
