"""`Shard`: the plain class a shard actor wraps. It owns a set of partitions.

Everything a partition decides is decided by the very same `Partition` class
embedded mode uses; a shard only adds ownership. It serves a partition only while
the stored assignment gives it to this shard and its claim log is open here, and
refuses any other with `NotOwner`, so the client re-routes. It holds the policy
and registry the control actor last pushed, and the reasoner it was created with
(passes 1 and 2 run here; embedding and extraction run in the caller).

On (re)start it reads the assignment and the policy from the store and reopens its
partitions from their logs: an acknowledged write was committed to a log, so it
survives. A partition whose log is still held by its previous owner (a rebalance
in flight) stays pending and is opened on first use.

No Ray import here: the class is unit-tested in-process, and no torch either.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from vault_ray.storage import Event

from vault_ray.backend import ControlFile, Scored, merge_top
from vault_ray.errors import ClaimNotFound, DisputeNotFound, VaultError
from vault_ray.layout import StoreMeta, partition_of, partition_path, read_json
from vault_ray.models import Claim, Decision, Dispute, EntityView
from vault_ray.partition import Partition
from vault_ray.policy import Policy
from vault_ray.reasoners.base import Reasoner
from vault_ray.reasoners.rules import RuleReasoner
from vault_ray.registry import EntityRegistry
from vault_ray.timeline import partition_search_as_of
from vault_ray.txn import WriteItem

from .assignment import load_state


class NotOwner(Exception):
    """This shard does not serve `partition` (not, or not yet, or no longer its own).

    Not a user-facing error: the client refreshes its routes and retries."""

    def __init__(self, shard: str, partition: int, epoch: int, opening: str = "") -> None:
        super().__init__(shard, partition, epoch, opening)
        self.shard, self.partition, self.epoch, self.opening = shard, partition, epoch, opening

    def __str__(self) -> str:
        why = f"its log is not open yet ({self.opening})" if self.opening else "it is not assigned to this shard"
        return f"shard {self.shard} (epoch {self.epoch}) does not serve partition {self.partition}: {why}"


HANDOVER = "waiting for its previous owner to close it"


class Shard:
    def __init__(self, store: str, name: str, reasoner: Reasoner | None = None) -> None:
        # One OpenMP thread: several shards share a node's cores, and FAISS's default
        # (one thread per core in every process) oversubscribes them badly.
        faiss.omp_set_num_threads(1)
        self.root = str(store)
        self.name = name
        self.reasoner = reasoner if reasoner is not None else RuleReasoner()
        meta = StoreMeta(**(read_json(Path(store) / "vault.json") or {}))
        self.partitions, self.dim = meta.partitions, meta.dim
        state = load_state(store)
        self.epoch = state.epoch if state else 0
        self.owned: set[int] = set(state.partitions_of(name)) if state else set()
        policy, registry = ControlFile(store).load()
        self.policy = policy or Policy()
        self.registry = registry or EntityRegistry.builtin()
        self.control_version = state.control_version if state else 0
        self.parts: dict[int, Partition] = {}
        self.pending: dict[int, str] = {}
        """Owned partitions not served yet: handed over but not released, or not openable."""
        for p in sorted(self.owned):
            self._open(p, create=False)

    # -- ownership ------------------------------------------------------------------
    def _open(self, p: int, *, create: bool) -> Partition | None:
        """Open partition `p`'s log if it has one (or `create`); None if it has none yet.
        Like embedded mode, a partition gets a file only once something is written to it."""
        if p in self.parts:
            return self.parts[p]
        path = partition_path(self.root, p)
        if not create and not path.exists():
            return None
        try:
            self.parts[p] = Partition(path, number=p, dim=self.dim)
        except VaultError as exc:  # typically: the previous owner still holds the log
            self.pending[p] = str(exc)
            return None
        self.pending.pop(p, None)
        return self.parts[p]

    def assign(self, epoch: int, owned: Iterable[int]) -> dict[str, Any]:
        """Step 1 of a hand-over: take the assignment of `epoch`. Partitions given away
        are closed now (after every call queued before this one: the actor runs calls
        in order); partitions received wait for `open_pending`, which the control
        actor calls once every previous owner has closed them. An older epoch is ignored."""
        if epoch >= self.epoch:
            owned = set(owned)
            for p in sorted(set(self.parts) - owned):
                self.parts.pop(p).close()
            self.pending = {p: why for p, why in self.pending.items() if p in owned}
            self.pending.update(dict.fromkeys(owned - self.owned, HANDOVER))
            self.epoch, self.owned = epoch, owned
        return self.info()

    def open_pending(self) -> list[int]:
        """Step 2 of a hand-over: serve the received partitions; returns those still not servable."""
        for p in sorted(self.pending):
            del self.pending[p]
            self._open(p, create=False)
        return sorted(self.pending)

    def close_all(self) -> None:
        for part in self.parts.values():
            part.close()
        self.parts.clear()
        self.owned = set()
        self.pending.clear()

    def _serve(self, partitions: Iterable[int], *, create: bool = False) -> dict[int, Partition | None]:
        """The partitions asked for (None: no log yet, so nothing in it). NotOwner, before
        anything is done, if any is not this shard's or not servable yet."""
        wanted = sorted(set(partitions))
        for p in wanted:
            if p not in self.owned:
                raise NotOwner(self.name, p, self.epoch)
            if self.pending.get(p) == HANDOVER:
                raise NotOwner(self.name, p, self.epoch, HANDOVER)
        out = {p: self._open(p, create=create) for p in wanted}
        for p in wanted:
            if p in self.pending:
                raise NotOwner(self.name, p, self.epoch, self.pending[p])
        return out

    def _live(self, partitions: Iterable[int]) -> list[Partition]:
        return [part for part in self._serve(partitions).values() if part is not None]

    def set_control(self, version: int, policy: Policy, registry: EntityRegistry) -> int:
        if version >= self.control_version:
            self.control_version, self.policy, self.registry = version, policy, registry
        return self.control_version

    # -- writes -------------------------------------------------------------------------
    def write(self, groups: dict[int, list[WriteItem]], now: datetime) -> dict[int, list[Decision]]:
        """Decide every partition's share, then commit: a deciding error leaves this
        shard's partitions unchanged (the same two steps as embedded mode)."""
        parts = self._serve(groups, create=True)
        order = sorted(groups)
        with ExitStack() as stack:
            for p in order:
                stack.enter_context(parts[p].lock)  # type: ignore[union-attr]
            prepared = {p: parts[p].prepare(groups[p], self.policy, self.reasoner, now)  # type: ignore[union-attr]
                        for p in order}
            for p in order:
                parts[p].commit(prepared[p][0])  # type: ignore[union-attr]
        return {p: prepared[p][1] for p in order}

    def resolve_dispute(self, partition: int, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute:
        part = self._serve([partition])[partition]
        found = part.get_dispute(dispute_id) if part is not None else None
        if part is None or found is None:
            raise DisputeNotFound(dispute_id)
        cardinality = self.policy.cardinality_for(found.entity, self.registry.cardinality(found.entity))
        return part.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both,
                                    cardinality=cardinality, now=now)

    def expire_disputes(self, partitions: list[int], now: datetime) -> list[Dispute]:
        return [d for part in self._live(partitions) for d in part.expire_disputes(self.policy, now)]

    # -- reads ----------------------------------------------------------------------------
    def search(self, partitions: list[int], vectors: np.ndarray, k: int) -> list[Scored]:
        live = [part for part in self._live(partitions) if part.active_count()]
        return merge_top([part.search(vectors, k) for part in live], len(vectors), k)

    def search_as_of(self, partitions: list[int], vectors: np.ndarray, k: int, at: datetime) -> list[Scored]:
        """Top-k over the claims active at `at`, replayed from the logs (audits, not the hot path)."""
        per_part = [partition_search_as_of(part, vectors, k, at) for part in self._live(partitions)]
        return merge_top(per_part, len(vectors), k)

    def entities_present(self, entities: list[str]) -> set[str]:
        parts = self._serve(partition_of(e, self.partitions) for e in entities)
        return {e for e in entities if (part := parts[partition_of(e, self.partitions)]) and part.has_entity(e)}

    def views(self, entities: list[str]) -> dict[str, EntityView]:
        parts = self._serve(partition_of(e, self.partitions) for e in entities)
        out = {}
        for e in entities:
            part = parts[partition_of(e, self.partitions)]
            out[e] = part.view(e, self.policy) if part is not None else EntityView(e, (), False, (), ())
        return out

    def history(self, entity: str) -> list[Claim]:
        p = partition_of(entity, self.partitions)
        part = self._serve([p])[p]
        return part.history(entity) if part is not None else []

    def find_claim(self, partitions: list[int], claim_id: str) -> Claim | None:
        for part in self._live(partitions):
            try:
                return part.get_claim(claim_id)
            except ClaimNotFound:
                continue
        return None

    def disputes(self, partitions: list[int], status: str | None) -> list[Dispute]:
        return [d for part in self._live(partitions) for d in part.disputes(status)]

    def get_dispute(self, partition: int, dispute_id: str) -> Dispute | None:
        part = self._serve([partition])[partition]
        return part.get_dispute(dispute_id) if part is not None else None

    def events(self, partitions: list[int], entity: str | None = None, claim_id: str | None = None) -> list[Event]:
        if entity is not None:
            return [e for part in self._live(partitions) for e in part.events(entity=entity)]
        return [e for part in self._live(partitions) for e in part.events(claim_id=claim_id)]

    def all_claims(self, partitions: list[int], with_vectors: bool = False) -> list[Claim]:
        return [c for part in self._live(partitions) for c in part.log.all_claims(with_vectors=with_vectors)]

    def export_parquet(self, partitions: list[int], directory: str) -> list[str]:
        paths: list[str] = []
        for part in self._live(partitions):
            with part.lock:
                paths += part.log.export_parquet(Path(directory) / f"p{part.number:04d}").values()
        return paths

    # -- health -----------------------------------------------------------------------------
    def check(self, partitions: list[int]) -> dict[int, bool]:
        """Invariant 3 per partition: its index holds exactly its log's active claims
        (trivially so for a partition with no log yet)."""
        parts = self._serve(partitions)
        return {p: part is None or part.index_matches_log() for p, part in sorted(parts.items())}

    def info(self) -> dict[str, Any]:
        calls = getattr(self.reasoner, "calls", None)
        return {
            "name": self.name, "pid": os.getpid(), "epoch": self.epoch, "owned": sorted(self.owned),
            "open": sorted(self.parts), "pending": dict(self.pending), "control_version": self.control_version,
            "active": sum(part.active_count() for part in self.parts.values()),
            "torch_loaded": "torch" in sys.modules,
            "reasoner_calls": dict(calls) if isinstance(calls, Counter) else None,
        }
