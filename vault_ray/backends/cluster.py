"""`ClusterBackend`: the Backend protocol over shard actors (cluster mode), and
`join`, what `Vault.connect` calls to reach a running cluster-mode store.

Every request is routed by partition through the assignment the control actor
stores: one call per owning shard with the partitions it should serve, in
parallel. A shard that refuses a partition (moved by a rebalance) makes the client
refresh its routes and ask again; a shard that died is restarted by Ray and asked
again. Writes retry safely because claim ids are fixed in the front before the
first attempt and a partition answers a claim id it already applied with the
decision it took then (its receipts table).

Ray's errors stop at one boundary (`ray_calls._get`, through `ClusterBulk._answer`): errors
of ours raised in an actor come out as themselves, anything else as ClusterError.

The client needs only the actors' names (routing.py), never their classes:
creating a cluster's actors is `vault_ray.actors` (`vault-ray up`).
"""

from __future__ import annotations

import heapq
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import ray

from vault_ray.storage.layout import partition_of

from ..engine.partitions import Groups, dispute_partition
from ..engine.receipts import writers
from ..engine.reuse import refused_reuse, with_known
from ..engine.views import Scored, merge_top, newest
from ..errors import ClaimNotFound, ClusterError, DisputeError, DisputeNotFound, VaultError
from ..models import Claim, Decision, Dispute, DisputeStatus, EntityView, Event
from ..policy import Policy
from ..registry import EntityRegistry
from .base import StoreInfo
from .cluster_bulk import ClusterBulk
from .ray_calls import _Retry

RETRY_TIMEOUT_S = 60.0
CONTROL_TTL_S = 1.0
INLINE_BYTES = 64 * 1024


class ClusterBackend(ClusterBulk):
    """Reaches the partitions of a cluster-mode store through its shard actors."""

    atomic = False  # a call over several shards is committed per shard

    def __init__(self, control: Any, info: dict[str, Any], *, retry_timeout: float = RETRY_TIMEOUT_S) -> None:
        self.control_actor = control
        self.namespace: str = info["namespace"]
        self.store: str = info["store"]
        self.partitions: int = info["partitions"]
        self.dim: int = info["dim"]
        self.embedder_name: str = info["embedder"]
        self.index: str = info.get("index", "flat")
        self.retry_timeout = retry_timeout
        self._lock = threading.Lock()
        self._epoch = -1
        self._assignment: dict[int, str] = {}
        self._handles: dict[str, Any] = {}
        self._control: tuple[int, Policy, EntityRegistry] | None = None
        self._control_at = 0.0
        self._shard_control = -1
        """The newest policy version a shard answered a write with."""
        self._closed = False
        self.retries: Counter[str] = Counter()
        """Calls asked again: 'reroute' (a shard refused a partition), 'restart' (a shard was down)."""
        self._refresh_routes()

    # -- plumbing ----------------------------------------------------------------------
    def _call_control(self, method: str, *args: Any) -> Any:
        """A control actor call, retried while the actor restarts."""
        if self._closed:
            raise ClusterError("this vault was closed")
        deadline = time.monotonic() + self.retry_timeout
        while True:
            try:
                return self._answer(getattr(self.control_actor, method).remote(*args))
            except _Retry as exc:
                if exc.dead or time.monotonic() > deadline:
                    raise ClusterError(f"the vault-ray cluster in namespace {self.namespace!r} is gone "
                                       f"(stopped with `vault-ray down`?): {exc}") from None
                time.sleep(0.1)

    def _refresh_routes(self) -> None:
        epoch, assignment = self._call_control("assignment")
        with self._lock:
            if epoch >= self._epoch:
                self._epoch, self._assignment = epoch, assignment
                self._handles = {n: h for n, h in self._handles.items() if n in set(assignment.values())}

    def _handle(self, name: str) -> Any:
        with self._lock:
            handle = self._handles.get(name)
        if handle is None:
            try:
                handle = ray.get_actor(name, namespace=self.namespace)
            except ValueError:
                raise _Retry(f"no actor named {name}", reroute=True) from None
            with self._lock:
                self._handles[name] = handle
        return handle

    def _routed(self, partitions: Iterable[int], call: Callable[[Any, list[int]], Any]) -> list[Any]:
        """`call(shard, its partitions)` once per owning shard, in parallel; partitions a
        shard refused or could not serve go again to their (maybe new) owner."""
        pending = set(partitions)
        results: list[Any] = []
        deadline = time.monotonic() + self.retry_timeout
        pause = 0.02
        while pending:
            if self._closed:
                raise ClusterError("this vault was closed")
            with self._lock:
                by_shard: dict[str, list[int]] = {}
                for p in sorted(pending):
                    by_shard.setdefault(self._assignment[p], []).append(p)
            refs, failures = {}, []
            for name, parts in by_shard.items():
                try:
                    refs[name] = call(self._handle(name), parts)
                except _Retry as exc:
                    failures.append(exc)
            for name, ref in refs.items():
                try:
                    results.append(self._answer(ref))
                    pending -= set(by_shard[name])
                except _Retry as exc:
                    failures.append(exc)
                    if exc.dead:  # a retired shard's name may come back as a new actor
                        with self._lock:
                            self._handles.pop(name, None)
            self.retries.update("reroute" if f.reroute else "restart" for f in failures)
            if not pending:
                break
            if time.monotonic() > deadline:
                raise ClusterError(f"partitions {sorted(pending)} could not be reached within "
                                   f"{self.retry_timeout:.0f}s: {failures[-1] if failures else ''}")
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
            if any(f.reroute for f in failures):
                self._refresh_routes()
        return results

    def _all(self) -> range:
        return range(self.partitions)

    def _by_partition(self, entities: Iterable[str]) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for e in dict.fromkeys(entities):
            out.setdefault(partition_of(e, self.partitions), []).append(e)
        return out

    def info(self) -> StoreInfo:
        return StoreInfo("cluster", self.store, self.partitions, self.dim, self.embedder_name, self.namespace,
                         self.index)

    # -- control ----------------------------------------------------------------------
    def control(self, fresh: bool = True, reading: bool = False) -> tuple[Policy, EntityRegistry]:
        """The policy and registry. Fresh: asked of the control actor (one round trip).
        For the write path (`fresh=False`): the cached ones, unless a shard answered a
        write with a newer version than the cache, or the cache is older than
        CONTROL_TTL_S; so a policy changed by another client reaches this client's front
        stage within CONTROL_TTL_S, or on the write after one a shard answered with the
        newer version (the shards decide with the new one at once)."""
        cached = self._control
        if (not fresh and cached is not None and self._shard_control <= cached[0]
                and time.monotonic() - self._control_at < CONTROL_TTL_S):
            return cached[1], cached[2]
        known = cached[0] if cached else -1
        version, policy, registry = self._call_control("control", known, None if reading else self.embedder_name)
        if policy is not None and registry is not None:
            self._control = (version, policy, registry)
        self._control_at = time.monotonic()
        assert self._control is not None
        return self._control[1], self._control[2]

    def set_policy(self, policy: Policy, if_version: int | None = None) -> None:
        self._call_control("set_policy", policy, if_version)
        self._control_at = 0.0  # this client's next write reads the new version

    def set_registry(self, registry: EntityRegistry) -> None:
        self._call_control("set_registry", registry)
        self._control_at = 0.0

    # -- writes --------------------------------------------------------------------------
    def write_many(self, calls: Sequence[Groups], now: datetime) -> list[dict[int, list[Decision]] | VaultError]:
        """Each shard decides and commits its share of every call in one step; a call spanning
        shards, per shard: if one refuses it (a dispute cap), the others' shares stay applied
        and the call gets the error. A reused claim id is found first and refuses the whole
        call. A retry resends the same claim ids: a partition that applied one answers with
        the decision it took then."""
        touched = sorted({p for call in calls for p in call})
        given = sorted({i.id for call in calls for items in call.values() for i in items if i.digest})
        refused: list[VaultError | None] = [None] * len(calls)
        if given and len(set(self._assignment.values())) > 1:  # a given id's receipt may live on another shard
            held = {i: r for found in self._routed(self._all(), lambda s, ps: s.receipts_held.remote(ps, given))
                    for i, r in found.items()}
            refused = refused_reuse(calls, held)  # a reused id refuses the whole call, before any shard writes
            calls = with_known([{} if no else call for call, no in zip(calls, refused, strict=True)], held)
        out: list[dict[int, list[Decision]] | VaultError] = [no or {} for no in refused]
        def send(shard: Any, ps: list[int]) -> Any:
            mine = set(ps)
            return shard.write.remote([{p: items for p, items in call.items() if p in mine} for call in calls], now,
                                      self.embedder_name)

        for version, answer in self._routed(touched, send):
            self._shard_control = max(self._shard_control, version)
            for i, result in enumerate(answer):
                current = out[i]
                if isinstance(result, VaultError):
                    out[i] = current if isinstance(current, VaultError) else self._learned(result)
                elif isinstance(current, dict):
                    current.update(result)
        return [r if isinstance(r, VaultError) else {p: r[p] for p in sorted(r)} for r in out]

    def written_by(self, ids: Sequence[str]) -> dict[str, str | None]:
        given = list(ids)
        return writers({i: r for found in self._routed(self._all(), lambda s, ps: s.receipts_held.remote(ps, given))
                        for i, r in found.items()})

    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, now: datetime) -> Dispute:
        p = self._dispute_partition(dispute_id)
        try:
            (found,) = self._routed([p], lambda s, ps: s.resolve_dispute.remote(
                p, dispute_id, winner, decided_by=decided_by, note=note, keep_both=keep_both, now=now))
            return found  # type: ignore[no-any-return]
        except DisputeError:
            # A retry after a lost answer finds the dispute already resolved, by this very call.
            done = self.dispute(dispute_id)
            res = done.resolution
            if (done.status == DisputeStatus.RESOLVED and res is not None and res.at == now
                    and res.winner == winner and res.decided_by == decided_by):
                return done
            raise

    def expire_disputes(self, now: datetime) -> list[Dispute]:
        return [d for part in self._routed(self._all(), lambda s, ps: s.expire_disputes.remote(ps, now)) for d in part]

    # -- reads ---------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int, *, agent: str | None = None,
               entity: str | None = None) -> list[Scored]:
        """One scatter for the whole batch of queries (to the entity's owner only, with an
        entity filter), then merge the shards' top-k."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        arg = ray.put(vectors) if vectors.nbytes > INLINE_BYTES else vectors
        where = [partition_of(entity, self.partitions)] if entity is not None else self._all()
        per_shard = self._routed(where, lambda s, ps: s.search.remote(ps, arg, k, agent, entity, self.embedder_name))
        return merge_top(per_shard, len(vectors), k)

    def nearest_entities(self, vectors: np.ndarray, k: int) -> list[list[tuple[float, str]]]:
        """Entity resolution's one scatter for a batch of labels; merged per query."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        arg = ray.put(vectors) if vectors.nbytes > INLINE_BYTES else vectors
        per_shard = self._routed(self._all(), lambda s, ps: s.nearest_entities.remote(ps, arg, k))
        return [heapq.nlargest(k, (hit for shard in per_shard for hit in shard[q]), key=lambda h: h[0])
                for q in range(len(vectors))]

    def search_as_of(self, vectors: np.ndarray, k: int, at: datetime, *, agent: str | None = None,
                     entity: str | None = None) -> list[Scored]:
        """`search(as_of=...)`: the same scatter over the claims found at `at`, with the same filters."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        per_shard = self._routed(self._all(), lambda s, ps: s.search_as_of.remote(ps, vectors, k, at, agent, entity))
        return merge_top(per_shard, len(vectors), k)

    def entities_present(self, entities: Iterable[str]) -> set[str]:
        groups = self._by_partition(entities)
        if not groups:
            return set()
        found = self._routed(groups, lambda s, ps: s.entities_present.remote([e for p in ps for e in groups[p]]))
        return set().union(*found)

    def aligned_to(self, labels: Iterable[str]) -> dict[str, tuple[float, str]]:
        labels = list(labels)
        return newest(self._routed(self._all(), lambda s, ps: s.aligned_to.remote(ps, labels)))

    def views(self, entities: Iterable[str]) -> dict[str, EntityView]:
        groups = self._by_partition(entities)
        out: dict[str, EntityView] = {}
        if groups:
            for answer in self._routed(groups, lambda s, ps: s.views.remote([e for p in ps for e in groups[p]])):
                out.update(answer)
        return out

    def history(self, entity: str) -> list[Claim]:
        (found,) = self._routed([partition_of(entity, self.partitions)], lambda s, ps: s.history.remote(entity))
        return found  # type: ignore[no-any-return]

    def claim(self, claim_id: str) -> Claim:
        for found in self._routed(self._all(), lambda s, ps: s.find_claim.remote(ps, claim_id)):
            if found is not None:
                return found  # type: ignore[no-any-return]
        raise ClaimNotFound(claim_id)

    def disputes(self, status: str | None) -> list[Dispute]:
        found = self._routed(self._all(), lambda s, ps: s.disputes.remote(ps, status))
        return sorted((d for part in found for d in part), key=lambda d: d.opened_at)

    def dispute(self, dispute_id: str) -> Dispute:
        p = self._dispute_partition(dispute_id)
        (found,) = self._routed([p], lambda s, ps: s.get_dispute.remote(p, dispute_id))
        if found is None:
            raise DisputeNotFound(dispute_id)
        return found  # type: ignore[no-any-return]

    def _dispute_partition(self, dispute_id: str) -> int:
        p = dispute_partition(dispute_id) if isinstance(dispute_id, str) else None
        if p is None or p >= self.partitions:
            raise DisputeNotFound(dispute_id)
        return p

    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]:
        if entity is not None:
            (found,) = self._routed([partition_of(entity, self.partitions)],
                                    lambda s, ps: s.events.remote(ps, entity=entity))
            return found  # type: ignore[no-any-return]
        found = self._routed(self._all(), lambda s, ps: s.events.remote(ps, claim_id=claim_id))
        return sorted((e for part in found for e in part), key=lambda e: e.ts)

    def events_from(self, positions: dict[int, int], limit: int) -> list[tuple[int, int, Event]]:
        found = self._routed(self._all(), lambda s, ps: s.events_from.remote(ps, positions, limit))
        return [row for part in found for row in part]

    def event_heads(self) -> dict[int, int]:
        return {p: h for found in self._routed(self._all(), lambda s, ps: s.event_heads.remote(ps)) for p, h in found.items()}

    def all_claims(self) -> list[Claim]:
        return [c for part in self._routed(self._all(), lambda s, ps: s.all_claims.remote(ps)) for c in part]

    def check(self) -> dict[int, bool]:
        """Per partition: does its vector index hold exactly its log's active claims?"""
        return dict(sorted(kv for found in self._routed(self._all(), lambda s, ps: s.check.remote(ps)) for kv in found.items()))

    def export_parquet(self, directory: str) -> list[str]:
        found = self._routed(self._all(), lambda s, ps: s.export_parquet.remote(ps, directory))
        return sorted(p for part in found for p in part)

    # -- cluster operations (not in the Backend protocol) ---------------------------------
    def rebalance(self, shards: int) -> dict[str, Any]:
        """Move partitions so `shards` shard actors own them; see docs/cluster.md."""
        result: dict[str, Any] = self._call_control("rebalance", shards)
        self._refresh_routes()
        return result

    def shard_infos(self) -> list[dict[str, Any]]:
        return self._call_control("shard_infos")  # type: ignore[no-any-return]

    def reasoner_calls(self) -> Counter[str]:
        """The shards' reasoner calls (passes 1 and 2 run there), when it counts them."""
        total: Counter[str] = Counter()
        for info in self.shard_infos():
            total.update(info["reasoner_calls"] or {})
        return total

    def note_head(self, head: dict[str, Any]) -> None:
        """Record the Ray head `vault-ray up` started, for `vault-ray down`."""
        self._call_control("set_head", head)

    def routes(self) -> tuple[int, dict[int, str]]:
        with self._lock:
            return self._epoch, dict(self._assignment)

    def close(self) -> None:
        """Leave the cluster; the actors keep running for other clients."""
        self._closed = True
