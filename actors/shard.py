"""`Shard`: the plain class a shard actor wraps. It owns a set of partitions.

The partitions are hosted by the very same `PartitionSet` embedded mode uses; a
shard adds only ownership and epochs. It serves a partition only while the stored
assignment gives it to this shard and its claim log is open here, and refuses any
other with `NotOwner`, so the client re-routes. It holds the policy and registry the
control actor last pushed, and the reasoner it was created with (passes 1 and 2 run
here; embedding and extraction run in the caller).

On (re)start it reads the assignment and the policy from the store and reopens its
partitions from their logs: an acknowledged write was committed to a log, so it
survives. A partition whose log is still held by its previous owner (a rebalance
in flight) stays pending and is opened on first use.

Calls may run concurrently (the actor is threaded): concurrent writes share one
commit (`GroupCommit`), reads run beside them under the partitions' locks, and the
ownership changes (`assign`, `open_pending`, `close_all`) wait until no call is
inside (`Ownership`, a shared/exclusive lock).

No Ray import here: the class is unit-tested in-process, and no torch either.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from vault_ray.backends.routing import NotOwner
from vault_ray.backends.unfinished import RestoreGuard, refuses_writes, target_of
from vault_ray.engine.commits import GroupCommit
from vault_ray.engine.control import ControlFile
from vault_ray.engine.erase import drop_sources, erase_entity, erasures_done, finish_erasures, waiting_erasures
from vault_ray.engine.partitions import Groups, PartitionSet
from vault_ray.engine.receipts import receipts_held
from vault_ray.engine.retract import retract_claims
from vault_ray.engine.stakes import all_read, announce_policy, as_read, views_read
from vault_ray.engine.suggest import similar_entities
from vault_ray.engine.txn import WriteItem
from vault_ray.engine.views import Scored
from vault_ray.errors import VaultError
from vault_ray.models import Claim, Decision, Dispute, EntityView, Event, Retraction
from vault_ray.policy import Policy
from vault_ray.reasoners.base import Reasoner
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.registry import EntityRegistry
from vault_ray.storage import new_index, vector_index
from vault_ray.storage.layout import StoreMeta, partition_of, read_meta
from vault_ray.storage.restoring import read_restoring

from .assignment import load_state
from .ownership import Ownership, shared
from .shard_bulk import ShardBulk

HANDOVER = "waiting for its previous owner to close it"


@refuses_writes  # while the store's restore is unfinished (backends/unfinished.py)
class Shard(ShardBulk, RestoreGuard):
    def __init__(self, store: str, name: str, reasoner: Reasoner | None = None, namespace: str | None = None) -> None:
        # One OpenMP thread: several shards share a node's cores, and FAISS's default
        # (one thread per core in every process) oversubscribes them badly.
        vector_index.set_threads(1)
        self.root = str(store)
        self.name = name
        self.reasoner = reasoner if reasoner is not None else RuleReasoner()
        meta = read_meta(store)
        if meta is None:
            raise VaultError(f"{store!r} is not a vault-ray store (no vault.json)")
        self.host = self._new_host(meta)
        self.partitions = meta.partitions
        self.ownership = Ownership()
        self._commits = GroupCommit(lambda calls, nows: self.host.write_many(calls, self.policy, self.reasoner, nows))
        self.writing = 0
        """Write calls inside the shard now (waiting for their group, or in it)."""
        state = load_state(store)
        self.epoch = state.epoch if state else 0
        self.owned: set[int] = set(state.partitions_of(name)) if state else set()
        self.policy, self.registry = ControlFile(store).load()
        # the control actor tells of a restore that starts or ends (`set_restoring`)
        self.unfinished, self.restore_where = read_restoring(store), (self.root, target_of("cluster", self.root, namespace))
        self.control_version = state.control_version if state else 0
        self._control_lock = threading.Lock()  # one policy change at a time (`set_control`)
        self.pending: dict[int, str] = {}
        """Owned partitions not served yet: handed over but not released, or not openable."""
        # at once: a saved HNSW graph of exactly these is restored. A failure (typically a
        # log its previous owner still holds) leaves them to be opened one by one below.
        with contextlib.suppress(VaultError):
            self.host.open_many(self.owned)
        for p in sorted(self.owned):
            self._open(p, create=False)
        # those a crash cut short (engine/erase.py); the other shards' part is the control actor's
        finish_erasures(self.host, self.policy, self._cardinality, others=True)

    def _new_host(self, meta: StoreMeta) -> PartitionSet:
        return PartitionSet(self.root, partitions=meta.partitions, dim=meta.dim, name=self.name,
                            new_index=lambda: new_index(meta.index, meta.dim))

    # -- ownership ------------------------------------------------------------------
    def _open(self, p: int, *, create: bool) -> None:
        try:
            self.host.open(p, create=create)
        except VaultError as exc:  # typically: the previous owner still holds the log
            self.pending[p] = str(exc)
            return
        self.pending.pop(p, None)

    def assign(self, epoch: int, owned: Iterable[int]) -> dict[str, Any]:
        """Step 1 of a hand-over: take the assignment of `epoch`. Partitions given away
        are closed now (after every call queued before this one: the actor runs calls
        in order); partitions received wait for `open_pending`, which the control
        actor calls once every previous owner has closed them. An older epoch is ignored."""
        with self.ownership.alone():
            return self._assign(epoch, owned)

    def _assign(self, epoch: int, owned: Iterable[int]) -> dict[str, Any]:
        if epoch >= self.epoch:
            owned = set(owned)
            for p in sorted(set(self.host.parts) - owned):
                self.host.close(p)
            self.pending = {p: why for p, why in self.pending.items() if p in owned}
            self.pending.update(dict.fromkeys(owned - self.owned, HANDOVER))
            self.epoch, self.owned = epoch, owned
        return self.info()

    def open_pending(self) -> list[int]:
        """Step 2 of a hand-over: serve the received partitions; returns those still not servable."""
        with self.ownership.alone():
            for p in sorted(self.pending):
                del self.pending[p]
                self._open(p, create=False)
            return sorted(self.pending)

    def close_all(self) -> None:
        with self.ownership.alone():
            self.host.close_all()
            self.owned = set()
            self.pending.clear()

    def _serve(self, partitions: Iterable[int], *, create: bool = False) -> list[int]:
        """The partitions asked for, checked and opened (a partition with no log yet is
        simply empty). NotOwner, before anything is done, if any is not this shard's or
        not servable yet."""
        wanted = sorted(set(partitions))
        for p in wanted:
            if p not in self.owned:
                raise NotOwner(self.name, p, self.epoch)
            if self.pending.get(p) == HANDOVER:
                raise NotOwner(self.name, p, self.epoch, HANDOVER)
        for p in wanted:
            if p not in self.host.parts:
                self._open(p, create=create)
            if p in self.pending:
                raise NotOwner(self.name, p, self.epoch, self.pending[p])
        return wanted

    def set_control(self, version: int, policy: Policy, registry: EntityRegistry) -> int:
        with self.ownership.shared(), self._control_lock:  # the partitions announced stay open meanwhile
            if version >= self.control_version:
                old, was = self.policy, self.registry
                self.control_version, self.policy, self.registry = version, policy, registry
                # the disputes it makes read otherwise (engine/stakes.py) or closes (engine/widen.py)
                announce_policy(self.host, old, policy, registries=(was, registry))
            return self.control_version

    def set_restoring(self, marker: dict[str, Any] | None) -> None:
        """The store's record of an unfinished restore, as the control actor just wrote it (None: gone)."""
        self.unfinished = marker

    def _cardinality(self, entity: str) -> str:
        return self.policy.cardinality_for(entity, self.registry.cardinality(entity))

    def _entity_partitions(self, entities: Iterable[str]) -> list[int]:
        return self._serve(partition_of(e, self.partitions) for e in entities)

    # -- writes -------------------------------------------------------------------------
    def write_many(self, calls: Sequence[Groups], now: datetime,
                   embedder: str | None = None) -> list[dict[int, list[Decision]] | VaultError]:
        """Decide the calls in order, one commit per partition, together with the other
        callers' calls that arrive meanwhile (group commit: see PartitionSet.write_many)."""
        return self.write(calls, now, embedder)[1]

    def write(self, calls: Sequence[Groups], now: datetime,
              embedder: str | None = None) -> tuple[int, list[dict[int, list[Decision]] | VaultError]]:
        """`write_many`, answered with the policy version the shard decided with (the
        client refreshes its cached policy when it is newer). Each item's cardinality is
        the shard's policy's: the front may have read an older policy. `embedder` names
        the client's: vectors of another than the store's are refused."""
        with self.ownership.shared():
            if (refused := self.restore_refusal()) is not None:
                return self.control_version, [refused] * len(calls)
            self.check_writable({p for call in calls for p in call}, embedder)
            self._serve({p for call in calls for p in call}, create=True)
            self.writing += 1
            try:
                version = self.control_version
                calls = [{p: [self._current(i) for i in items] for p, items in call.items()} for call in calls]
                return version, self._commits.submit(calls, now)
            finally:
                self.writing -= 1

    def _current(self, item: WriteItem) -> WriteItem:
        card = self._cardinality(item.entity)
        return item if card == item.cardinality else item._replace(cardinality=card)  # a NamedTuple

    @shared
    def resolve_dispute(self, partition: int, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute:
        self._serve([partition])
        return self.host.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both,
                                         cardinality=self._cardinality, now=now)

    @shared
    def retract(self, partition: int, entity: str, claim_ids: list[str], *, decided_by: str, note: str,
                now: datetime) -> list[Retraction]:
        self._serve([partition])
        return retract_claims(self.host, entity, claim_ids, decided_by=decided_by, note=note, policy=self.policy,
                              cardinality=self._cardinality(entity), now=now)

    @shared
    def erase(self, partition: int, entity: str, *, decided_by: str, note: str,
              now: datetime, ids: list[str] | None = None) -> tuple[list[Retraction], list[str]]:
        self._serve([partition])
        return erase_entity(self.host, entity, decided_by=decided_by, note=note, policy=self.policy,
                            cardinality=self._cardinality(entity), now=now, others=True, ids=ids)

    @shared
    def drop_sources(self, partitions: list[int], sources: list[str], decided_by: str = "erase", note: str = "") -> int:
        return drop_sources(self.host, sources, self._serve(partitions), decided_by=decided_by, note=note)

    @shared
    def erasures_waiting(self, partitions: list[int] | None = None) -> dict[int, list[dict[str, Any]]]:
        """The erasures of its partitions (all it serves, or `partitions`) done here whose source
        messages the other shards must still drop (engine/erase.py)."""
        return waiting_erasures(self.host, self._serve(self.owned if partitions is None else partitions))

    @shared
    def erasures_done(self, partition: int, entities: list[str], dropped: list[str]) -> list[str]:
        """Every shard dropped `dropped`: the records of these erasures of `partition` go."""
        self._serve([partition])
        return erasures_done(self.host, partition, entities, dropped)

    @shared
    def expire_disputes(self, partitions: list[int], now: datetime) -> list[Dispute]:
        return self.host.expire_disputes(self.policy, now, self._serve(partitions))

    # -- reads ----------------------------------------------------------------------------
    @shared
    def search(self, partitions: list[int], vectors: np.ndarray, k: int, agent: str | None = None,
               entity: str | None = None, embedder: str | None = None) -> list[Scored]:
        self.check_embedder(embedder)
        return self.host.search(vectors, k, self._serve(partitions), agent=agent, entity=entity)

    @shared
    def nearest_entities(self, partitions: list[int], vectors: np.ndarray, k: int) -> list[list[tuple[float, str]]]:
        return self.host.nearest_entities(vectors, k, self._serve(partitions))

    @shared
    def search_as_of(self, partitions: list[int], vectors: np.ndarray, k: int, at: datetime, agent: str | None = None,
                     entity: str | None = None) -> list[Scored]:
        """Top-k over the claims found at `at`, replayed from the logs (audits, not the hot path)."""
        return self.host.search_as_of(vectors, k, at, self._serve(partitions), agent=agent, entity=entity)

    @shared
    def receipts_held(self, partitions: list[int], ids: list[str]) -> dict[str, tuple[int, str]]:
        """The receipts of these ids its partitions hold (a write's question, cluster.py)."""
        served = set(self._serve(partitions))
        return receipts_held({p: part for p, part in self.host.parts.items() if p in served}, ids)

    @shared
    def aligned_to(self, partitions: list[int], labels: list[str]) -> dict[str, tuple[float, str]]:
        return self.host.aligned_to(labels, self._serve(partitions))

    @shared
    def similar_entities(self, partitions: list[int], entities: list[str], n: int) -> dict[str, list[tuple[float, str]]]:
        return similar_entities(self.host, entities, n, self._serve(partitions))

    @shared
    def entities_present(self, entities: list[str]) -> set[str]:
        self._entity_partitions(entities)
        return self.host.entities_present(entities)

    @shared
    def views(self, entities: list[str]) -> dict[str, EntityView]:
        self._entity_partitions(entities)
        return views_read(self.host.views(entities, self.policy), self.policy)

    @shared
    def history(self, entity: str) -> list[Claim]:
        self._entity_partitions([entity])
        return self.host.history(entity)

    @shared
    def find_claim(self, partitions: list[int], claim_id: str) -> Claim | None:
        return self.host.find_claim(claim_id, self._serve(partitions))

    @shared
    def disputes(self, partitions: list[int], status: str | None) -> list[Dispute]:
        return all_read(self.host.disputes(status, self._serve(partitions)), self.policy)

    @shared
    def get_dispute(self, partition: int, dispute_id: str) -> Dispute | None:
        self._serve([partition])
        found = self.host.get_dispute(dispute_id)
        return found and as_read(found, self.policy)

    @shared
    def events(self, partitions: list[int], entity: str | None = None, claim_id: str | None = None) -> list[Event]:
        if entity is not None:
            self._entity_partitions([entity])
        return self.host.events(entity=entity, claim_id=claim_id, partitions=self._serve(partitions))

    @shared
    def events_from(self, partitions: list[int], positions: dict[int, int], limit: int) -> list[tuple[int, int, Event]]:
        return self.host.events_from(positions, limit, self._serve(partitions))

    @shared
    def event_heads(self, partitions: list[int]) -> dict[int, int]:
        return self.host.event_heads(self._serve(partitions))

    @shared
    def all_claims(self, partitions: list[int], with_vectors: bool = False) -> list[Claim]:
        return self.host.all_claims(self._serve(partitions), with_vectors=with_vectors)

    @shared
    def export_parquet(self, partitions: list[int], directory: str) -> list[str]:
        return self.host.export_parquet(directory, self._serve(partitions))

    # -- health -----------------------------------------------------------------------------
    @shared
    def check(self, partitions: list[int]) -> dict[int, bool]:
        """Invariant 3 per partition (trivially true for a partition with no log yet)."""
        return self.host.check(self._serve(partitions))

    def info(self) -> dict[str, Any]:
        calls = getattr(self.reasoner, "calls", None)
        return {
            "name": self.name, "pid": os.getpid(), "epoch": self.epoch, "owned": sorted(self.owned),
            "open": sorted(self.host.parts), "pending": dict(self.pending), "control_version": self.control_version,
            "policy_version": self.policy.version,  # what GET /v1/policy answers (and PATCH expects)
            "active": self.host.active_count(), "torch_loaded": "torch" in sys.modules,
            "reasoner_calls": dict(calls) if isinstance(calls, Counter) else None,
            "writing": self.writing, "commit_groups": self._commits.groups, "commit_calls": self._commits.calls,
        }
