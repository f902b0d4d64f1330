"""The bulk jobs' calls (BulkBackend) in cluster mode: each goes to the shard owning
the partitions it names, through `ClusterBackend._routed` (so a moved partition or a
restarting shard is retried like any other call). Mixed into `ClusterBackend`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import ray

from vault_ray.storage.layout import partition_of

from ..engine.bulk import CarriedDecision, MergeRecord
from ..engine.suggest import MAX_SUGGESTIONS, Similar, merged
from ..errors import RestoreUnfinished, VaultError
from ..models import Claim, Retraction
from ..policy import Policy
from ..registry import EntityRegistry
from .ray_calls import _get
from .unfinished import refusal, target_of

SETTLE_LEASE_S = 60.0
"""How long a reindex's commit keeps writes frozen at most (should its caller die)."""


class ClusterBulk:
    partitions: int
    store: str
    namespace: str
    _control_at: float
    _restore_seen = False
    """Whether this client saw the store's record of an unfinished restore (`restore_refusal`)."""

    def _routed(self, partitions: Iterable[int], call: Callable[[Any, list[int]], Any]) -> list[Any]: ...
    def _call_control(self, method: str, *args: Any) -> Any: ...
    def _all(self) -> range: ...

    def _one(self, partition: int, call: Callable[[Any], Any]) -> Any:
        (found,) = self._routed([partition], lambda s, ps: call(s))
        return found

    def retract(self, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                now: datetime) -> list[Retraction]:
        """At the entity's owner; a retry after a lost answer finds them retracted (`Retraction.already`)."""
        p = partition_of(entity, self.partitions)
        return self._one(p, lambda s: s.retract.remote(p, entity, list(claim_ids), decided_by=decided_by,  # type: ignore[no-any-return]
                                                        note=note, now=now))

    def erase(self, entity: str, *, decided_by: str, note: str, now: datetime,
              ids: Sequence[str] | None = None) -> list[Retraction]:
        """At the entity's owner, then its claims' source messages at every shard, then the owner's
        record of the erasure goes (engine/erase.py); a retry after a lost answer erases again
        (idempotent). Should this process die in between, the control actor finishes it."""
        p = partition_of(entity, self.partitions)
        some = None if ids is None else list(ids)
        done, sources = self._one(p, lambda s: s.erase.remote(p, entity, decided_by=decided_by, note=note, now=now,
                                                              ids=some))
        if sources:
            self._routed(self._all(), lambda s, ps: s.drop_sources.remote(ps, sources, decided_by, note))
            self._one(p, lambda s: s.erasures_done.remote(p, [entity], sources))
        return done  # type: ignore[no-any-return]

    def similar_entities(self, entities: Iterable[str], n: int = MAX_SUGGESTIONS) -> dict[str, Similar]:
        """A read off the hot path (an empty view's "did you mean"): every shard's best, merged."""
        entities = list(entities)
        per_shard = self._routed(self._all(), lambda s, ps: s.similar_entities.remote(ps, entities, n))
        return {e: merged([found[e] for found in per_shard], n) for e in entities}

    def dump_partition(self, partition: int) -> dict[str, pa.Table]:
        return self._one(partition, lambda s: s.dump_partition.remote(partition))  # type: ignore[no-any-return]

    def restore_partition(self, partition: int, tables: dict[str, pa.Table]) -> dict[str, int]:
        ref = ray.put(tables)
        return self._one(partition, lambda s: s.restore_partition.remote(partition, ref))  # type: ignore[no-any-return]

    def row_counts(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for found in self._routed(range(self.partitions), lambda s, ps: s.row_counts.remote(ps)):
            out.update(found)
        return dict(sorted(out.items()))

    def restoring(self) -> dict[str, Any] | None:
        """Asked of the control actor, which holds the store directory (and remembered: `restore_refusal`)."""
        marker = self._call_control("restoring")
        self._restore_seen = marker is not None
        return marker  # type: ignore[no-any-return]

    def refuse_while_restoring(self, action: str = "this write") -> None:
        """RestoreUnfinished if the store's restore is unfinished (asked of the control actor; the
        shards refuse the writes themselves: this is a call's first check, before its reads)."""
        error = self._refusal(self.restoring(), action)
        if error is not None:
            raise error

    def restore_refusal(self, action: str = "this write") -> RestoreUnfinished | None:
        """The write path's early check: no round trip while this client has not seen the record
        (the shards refuse the writes themselves); once it has (the warning at open, a shard's or
        the control actor's refusal, its own import), asked again, so a restore that another
        client finishes lets this one write at once."""
        return self._refusal(self.restoring(), action) if self._restore_seen else None

    def _answer(self, ref: Any) -> Any:
        """A call's answer (`ray_calls._get`): every call to a shard or the control actor comes through
        here, so a refusal for an unfinished restore, of whatever call (a resolution, a rule run, a
        retraction, an erasure, a policy or registry edit), teaches this client (`_learned`)."""
        try:
            return _get(ref)
        except RestoreUnfinished as exc:
            raise self._learned(exc) from None

    def _learned(self, error: VaultError) -> VaultError:
        """A shard's or the control actor's refusal, noted if it is for an unfinished restore (as an
        answer of `write`, or raised: `_answer`): this client's next writes are refused before their front
        work (`restore_refusal`)."""
        self._restore_seen = self._restore_seen or isinstance(error, RestoreUnfinished)
        return error

    def _refusal(self, marker: dict[str, Any] | None, action: str) -> RestoreUnfinished | None:
        return None if marker is None else refusal(marker, self.store, target_of("cluster", self.store, self.namespace),
                                                   action)

    def mark_restoring(self, marker: dict[str, Any] | None) -> None:
        """Kept by the control actor, which tells the shards: they refuse writes while it is there."""
        self._call_control("mark_restoring", marker)
        self._restore_seen = marker is not None

    def restore_control(self, policy: Policy, registry: EntityRegistry) -> None:
        self._call_control("restore_control", policy, registry)
        self._control_at = 0.0  # this client's next write reads them

    def claim_columns(self, partition: int, columns: Sequence[str]) -> pa.Table | None:
        return self._one(partition, lambda s: s.claim_columns.remote(partition, list(columns)))  # type: ignore[no-any-return]

    def present_claims(self, ids: dict[int, list[str]]) -> set[str]:
        found: set[str] = set()
        for part in self._routed(ids, lambda s, ps: s.present_claims.remote({p: ids[p] for p in ps})):
            found |= part
        return found

    def unstaged(self, partition: int, embedder: str, dim: int) -> pa.Table | None:
        return self._one(partition, lambda s: s.unstaged.remote(partition, embedder, dim))  # type: ignore[no-any-return]

    def stage_vectors(self, partition: int, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int:
        ids = list(ids)
        return self._one(partition, lambda s: s.stage_vectors.remote(partition, embedder, dim, ids, vectors))  # type: ignore[no-any-return]

    def drop_staged(self, keep: tuple[str, int] | None) -> int:
        return sum(self._routed(range(self.partitions), lambda s, ps: s.drop_staged.remote(ps, keep)))

    def commit_embedder(self, embedder: str, dim: int, hold: bool = False) -> dict[int, int]:
        """The control actor freezes writes, checks every shard's staging, names the new
        embedder in vault.json and has every shard reopen its partitions (`hold`: gaps
        found keep writes frozen, under the lease, while the caller embeds them)."""
        return self._call_control("commit_embedder", embedder, dim, SETTLE_LEASE_S, hold)  # type: ignore[no-any-return]

    def live_claims(self, entity: str) -> list[Claim]:
        p = partition_of(entity, self.partitions)
        return self._one(p, lambda s: s.live_claims.remote(entity))  # type: ignore[no-any-return]

    def note_merged(self, records: Sequence[MergeRecord], now: datetime) -> int:
        return self._merge_side("note_merged", records, lambda r: r.target_entity, now)

    def carry_decisions(self, carried: Sequence[CarriedDecision], now: datetime) -> int:
        return self._merge_side("carry_decisions", carried, lambda c: c.target_entity, now)

    def retire_merged(self, records: Sequence[MergeRecord], now: datetime) -> int:
        return self._merge_side("retire_merged", records, lambda r: r.source_entity, now)

    def _merge_side(self, method: str, records: Sequence[Any], entity_of: Callable[[Any], str],
                    now: datetime) -> int:
        by_p: dict[int, list[Any]] = {}
        for r in records:
            by_p.setdefault(partition_of(entity_of(r), self.partitions), []).append(r)
        mine = lambda ps: [r for p in ps for r in by_p[p]]  # noqa: E731
        return sum(self._routed(by_p, lambda s, ps: getattr(s, method).remote(ps, mine(ps), now)))
