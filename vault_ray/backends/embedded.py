"""Embedded mode: every partition of a store in this process, one writer per
partition (its lock), the store held by this process alone (STORE/.lock).
Concurrent writers (threads) share commits (`GroupCommit`)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray.storage import label_vectors
from vault_ray.storage import new_index as make_index
from vault_ray.storage.layout import StoreLock, init_store, set_embedder
from vault_ray.storage.restoring import mark_restoring, read_restoring

from ..engine import bulk
from ..engine.commits import GroupCommit
from ..engine.control import ControlFile, check_narrowing
from ..engine.erase import erase_entity, finish_erasures
from ..engine.partitions import Groups, IndexFactory, LogFactory, PartitionSet
from ..engine.receipts import receipts_held, writers
from ..engine.retract import retract_claims
from ..engine.stakes import all_read, announce_policy, as_read, views_read
from ..engine.suggest import MAX_SUGGESTIONS, Similar, similar_entities
from ..engine.views import Scored
from ..errors import ClaimNotFound, DisputeNotFound, InvalidInput, VaultError
from ..models import Claim, Decision, Dispute, EntityView, Event, Retraction
from ..policy import Policy, check_version
from ..reasoners.base import Reasoner
from ..reasoners.labels import LabelMatcher
from ..registry import EntityRegistry
from .base import StoreInfo
from .unfinished import RestoreGuard, refuses_writes


@refuses_writes  # while a restore is unfinished (unfinished.py)
class EmbeddedBackend(RestoreGuard):
    atomic = True  # a failed call is rolled back in every partition before any commits
    def __init__(self, root: str | Path, *, partitions: int | None, dim: int, embedder_name: str,
                 reasoner: Reasoner, policy: Policy | None, registry: EntityRegistry | None,
                 open_log: LogFactory | None = None, new_index: IndexFactory | None = None,
                 index: str | None = None) -> None:
        if not isinstance(root, str | os.PathLike) or not str(root).strip():
            raise InvalidInput(f"a store is a directory path, got {root!r}")
        self.root = str(root)
        fresh = _created_by_us(Path(root))
        self._lock = StoreLock(root)
        self._control_lock = threading.Lock()
        host = None
        try:
            meta = init_store(root, partitions=partitions, dim=dim, embedder=embedder_name, index=index)
            self.partitions, self.dim, self.embedder_name, self.index = meta.partitions, dim, embedder_name, meta.index
            self.reasoner = reasoner
            self.unfinished, self.restore_where = read_restoring(root), (self.root, f"--store {self.root}")
            self._control = ControlFile(root)
            saved = self._control.load()
            given = policy is not None or registry is not None
            self.policy, self.registry = self._control.load(policy, registry) if given else saved
            if (self.policy, self.registry) != saved:  # a change of them: a write
                self.refuse_while_restoring("opening the store with another policy or registry")
            host = PartitionSet(root, partitions=meta.partitions, dim=dim, open_log=open_log,
                                new_index=new_index or (lambda: make_index(meta.index, dim)))
            host.open_many(range(meta.partitions))
            self.host = host
            check_narrowing(self, saved, (self.policy, self.registry))  # a policy given to open changes it too
            self._control.save(self.policy, self.registry)
            self._load_label_vectors()
            finish_erasures(host, self.policy, self._cardinality)  # those a crash cut short (engine/erase.py)
            announce_policy(host, saved[0], self.policy, registries=(saved[1], self.registry))  # a change too
        except BaseException:
            try:  # everything this open took is let go of: an open right after is not refused (StoreLocked)
                if host is not None:
                    host.close_all()
            finally:  # and leaves the directory as it was: no lock file of its own
                self._lock.release(discard=True)
                if fresh is not None:  # a store refused at creation (bad settings) leaves no directory behind
                    shutil.rmtree(fresh, ignore_errors=True)
            raise
        self._commits = GroupCommit(lambda calls, nows: self.host.write_many(calls, self.policy, self.reasoner, nows))

    def info(self) -> StoreInfo:
        return StoreInfo("embedded", self.root, self.partitions, self.dim, self.embedder_name, index=self.index)

    # -- control --------------------------------------------------------------------
    def control(self, fresh: bool = True, reading: bool = False) -> tuple[Policy, EntityRegistry]:
        return self.policy, self.registry

    def set_policy(self, policy: Policy, if_version: int | None = None) -> None:
        with self._control_lock:
            check_version(self.policy, if_version)
            self._control.save(policy, self.registry)
            old, self.policy = self.policy, policy
            # the disputes it makes read otherwise (engine/stakes.py) or closes (widen.py)
            announce_policy(self.host, old, policy, registries=(self.registry, self.registry))

    def change_policy(self, change: Callable[[Policy], Policy]) -> Policy:
        """`change` of the policy, read and stored under one lock (engine/control.py)."""
        with self._control_lock:
            new = change(self.policy)
            if new is not self.policy:
                self._control.save(new, self.registry)
                old, self.policy = self.policy, new
                announce_policy(self.host, old, new, registries=(self.registry, self.registry))
            return new

    def set_registry(self, registry: EntityRegistry) -> None:
        self._control.save(self.policy, registry)
        old, self.registry = self.registry, registry
        announce_policy(self.host, self.policy, self.policy, registries=(old, registry))  # widen.py

    def restore_control(self, policy: Policy, registry: EntityRegistry) -> None:
        """A restore's policy and registry, the export's (not a write: taken while the restore is unfinished)."""
        with self._control_lock:
            self._control.save(policy, registry)
            (old, was), (self.policy, self.registry) = (self.policy, self.registry), (policy, registry)
            announce_policy(self.host, old, policy, registries=(was, registry))

    def _cardinality(self, entity: str) -> str:
        return self.policy.cardinality_for(entity, self.registry.cardinality(entity))

    # -- writes -----------------------------------------------------------------------
    def write_many(self, calls: Sequence[Groups], now: datetime) -> list[dict[int, list[Decision]] | VaultError]:
        refused = self.restore_refusal()
        return [refused] * len(calls) if refused is not None else self._commits.submit(calls, now)

    def written_by(self, ids: Sequence[str]) -> dict[str, str | None]:
        return writers(receipts_held(self.host.parts, list(ids)))

    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute:
        return self.host.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both,
                                         cardinality=self._cardinality, now=now)

    def expire_disputes(self, now: datetime) -> list[Dispute]:
        return self.host.expire_disputes(self.policy, now)

    def retract(self, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                now: datetime) -> list[Retraction]:
        return retract_claims(self.host, entity, claim_ids, decided_by=decided_by, note=note, policy=self.policy,
                              cardinality=self._cardinality(entity), now=now)

    def erase(self, entity: str, *, decided_by: str, note: str, now: datetime,
              ids: Sequence[str] | None = None) -> list[Retraction]:
        return erase_entity(self.host, entity, decided_by=decided_by, note=note, policy=self.policy,
                            cardinality=self._cardinality(entity), now=now, ids=ids)[0]  # sources dropped in every partition

    # -- reads ---------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int, *, agent: str | None = None,
               entity: str | None = None) -> list[Scored]:
        return self.host.search(vectors, k, agent=agent, entity=entity)

    def nearest_entities(self, vectors: np.ndarray, k: int) -> list[list[tuple[float, str]]]:
        return self.host.nearest_entities(vectors, k)

    def search_as_of(self, vectors: np.ndarray, k: int, at: datetime, *, agent: str | None = None,
                     entity: str | None = None) -> list[Scored]:
        return self.host.search_as_of(vectors, k, at, agent=agent, entity=entity)

    def entities_present(self, entities: Iterable[str]) -> set[str]:
        return self.host.entities_present(entities)

    def aligned_to(self, labels: Iterable[str]) -> dict[str, tuple[float, str]]:
        return self.host.aligned_to(labels)

    def similar_entities(self, entities: Iterable[str], n: int = MAX_SUGGESTIONS) -> dict[str, Similar]:
        return similar_entities(self.host, entities, n)

    def views(self, entities: Iterable[str]) -> dict[str, EntityView]:
        return views_read(self.host.views(entities, self.policy), self.policy)

    def history(self, entity: str) -> list[Claim]:
        return self.host.history(entity)

    def claim(self, claim_id: str) -> Claim:
        found = self.host.find_claim(claim_id)
        if found is None:
            raise ClaimNotFound(claim_id)
        return found

    def disputes(self, status: str | None) -> list[Dispute]:
        return all_read(self.host.disputes(status), self.policy)  # high stakes by the policy now

    def dispute(self, dispute_id: str) -> Dispute:
        found = self.host.get_dispute(dispute_id)
        if found is None:
            raise DisputeNotFound(dispute_id)
        return as_read(found, self.policy)

    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]:
        return self.host.events(entity=entity, claim_id=claim_id)

    def events_from(self, positions: dict[int, int], limit: int) -> list[tuple[int, int, Event]]:
        return self.host.events_from(positions, limit)

    def event_heads(self) -> dict[int, int]:
        return self.host.event_heads()

    def all_claims(self) -> list[Claim]:
        return self.host.all_claims()

    def export_parquet(self, directory: str) -> list[str]:
        return self.host.export_parquet(directory)

    def check(self) -> dict[int, bool]:
        return self.host.check(range(self.partitions))

    # -- bulk jobs (BulkBackend; the functions are engine/bulk.py's) ---------------------
    def dump_partition(self, partition: int) -> dict[str, pa.Table]:
        return bulk.dump_partition(self.host, partition)

    def restore_partition(self, partition: int, tables: dict[str, pa.Table]) -> dict[str, int]:
        return bulk.restore_partition(self.host, partition, tables)

    def row_counts(self) -> dict[int, dict[str, int]]:
        return bulk.row_counts(self.host, range(self.partitions))

    def restoring(self) -> dict[str, Any] | None:
        return read_restoring(self.root)

    def mark_restoring(self, marker: dict[str, Any] | None) -> None:
        mark_restoring(self.root, marker)
        self.unfinished = marker  # writes are refused from now on, or again taken

    def claim_columns(self, partition: int, columns: Sequence[str]) -> pa.Table | None:
        return bulk.claim_columns(self.host, partition, columns)

    def present_claims(self, ids: dict[int, list[str]]) -> set[str]:
        return bulk.present_claims(self.host, ids)

    def unstaged(self, partition: int, embedder: str, dim: int) -> pa.Table | None:
        return bulk.unstaged(self.host, partition, embedder, dim)

    def stage_vectors(self, partition: int, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int:
        return bulk.stage_vectors(self.host, partition, embedder, dim, ids, vectors)

    def drop_staged(self, keep: tuple[str, int] | None) -> int:
        return bulk.drop_staged(self.host, keep, range(self.partitions))

    def commit_embedder(self, embedder: str, dim: int, hold: bool = False) -> dict[int, int]:
        """This process holds the store: no write can slip in between the check and the
        switch. vault.json is the commit point; the logs adopt their staged vectors
        as they reopen here (and on any later open, had this one crashed first)."""
        gaps = {p: n for p, n in bulk.staging_gaps(self.host, embedder, dim, range(self.partitions)).items() if n}
        if gaps:
            return gaps
        set_embedder(self.root, embedder, dim)
        self.host.close_all()
        self.dim, self.embedder_name = dim, embedder
        self.host = PartitionSet(self.root, partitions=self.partitions, dim=dim,
                                 new_index=lambda: make_index(self.index, dim))
        self.host.open_many(range(self.partitions))
        return {}

    def live_claims(self, entity: str) -> list[Claim]:
        return bulk.live_claims(self.host, entity)

    def note_merged(self, records: Sequence[bulk.MergeRecord], now: datetime) -> int:
        return bulk.note_merged(self.host, records, now)

    def carry_decisions(self, carried: Sequence[bulk.CarriedDecision], now: datetime) -> int:
        return bulk.carry_decisions(self.host, carried, now)

    def retire_merged(self, records: Sequence[bulk.MergeRecord], now: datetime) -> int:
        return bulk.retire_merged(self.host, records, now)

    def close(self) -> None:
        try:
            with ExitStack() as closing:  # each step runs even if one before it failed (a full disk)
                closing.callback(self.host.close_all)
                closing.callback(self._save_label_vectors)
        finally:
            self._lock.release()

    # -- the label vectors entity resolution compared (storage/label_vectors.py) --------
    def _labels(self) -> LabelMatcher | None:
        labels = getattr(self.reasoner, "labels", None)
        return labels if isinstance(labels, LabelMatcher) and labels.embedder.dim == self.dim else None

    def _load_label_vectors(self) -> None:
        labels = self._labels()
        found = label_vectors.load(self.root, self.embedder_name, self.dim) if labels is not None else None
        if labels is not None and found is not None:
            labels.remember(*found)
            labels.changed = False

    def _save_label_vectors(self) -> None:
        labels = self._labels()
        if labels is not None and labels.changed:
            label_vectors.save(self.root, self.embedder_name, self.dim, *labels.kept())
            labels.changed = False


def _created_by_us(root: Path) -> Path | None:
    """The topmost directory opening `root` will create (None when `root` exists)."""
    top = root.absolute()
    if top.exists():
        return None
    while not top.parent.exists():
        top = top.parent
    return top
