"""`Vault`: the public entry point. Embedded mode (`Vault.open`) and cluster mode
(`Vault.connect`) share this class; only the backend differs."""

from __future__ import annotations

import numbers
import os
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, overload

import numpy as np

from .agent_memory import AgentMemory
from .backends import Backend, EmbeddedBackend, StoreInfo
from .backends.unfinished import warn_unfinished
from .embedders import Embedder, LocalEmbedder, an_embedder
from .engine import front, gcpause
from .engine.control import check_narrowing, registered, unmerged_aliases
from .engine.disputes import check_resolution
from .engine.explain import Explanation, explain_claim
from .engine.hits import ranked_hits
from .engine.policy_edits import PolicyEdits
from .engine.receipts import charged
from .engine.request_checks import check_unstaged, keyed_refusal, user_turn
from .engine.retract import Retractions
from .engine.suggest import listed
from .engine.txn import WriteItem
from .errors import InvalidInput, StoreClosed, VaultError
from .events import DEFAULT_LIMIT, EventFilter, EventPage, read_events
from .models import (
    MAX_QUERY,
    AddResult,
    Claim,
    Dispute,
    EntityView,
    Event,
    Fact,
    Found,
    Hit,
    Unextracted,
    WriteRequest,
    as_utc,
    keyed_id,
    utcnow,
)
from .policy import Policy
from .ratelimit import RateLimiter
from .reasoners.base import Message, Reasoner, a_reasoner, extract_with_report
from .reasoners.recorded import on_record
from .reasoners.rules import RuleReasoner
from .registry import NOTES_ENTITY, EntityRegistry, RegistryEntry
from .texts import check_agent, check_string
from .transfer import Transfers

MAX_FETCH = 4096
"""Most candidates a search asks the index for while agreeing claims fold into fewer than k hits."""


def _let_go(backend: Backend, pid: int) -> None:
    if os.getpid() == pid:  # a forked child's copy shares the parent's lock: closing it would unlock the parent's
        backend.close()


class Vault(Transfers, Retractions, PolicyEdits):
    """Shared memory for agents. Use `Vault.open(path)` (one process) or
    `Vault.connect(...)` (a Ray cluster); both are context managers."""

    def __init__(self, backend: Backend, embedder: Embedder, reasoner: Reasoner) -> None:
        self._open_backend = backend
        self.embedder = embedder
        self.reasoner = reasoner
        self._limiter = RateLimiter()
        self._closed = False
        try:  # a restore cut short: reads partial, writes refused (UnfinishedRestoreWarning)
            warn_unfinished(backend)
        except BaseException:  # the store is let go of (its lock), as by close()
            backend.close()
            raise
        # dropped without close() (`Vault.open(p).agent("a").add(...)`): let go of when collected, else locked for good
        self._release = weakref.finalize(self, _let_go, backend, os.getpid())

    @classmethod
    def open(
        cls, path: str | Path, *, partitions: int | None = None, embedder: Embedder | None = None,
        reasoner: Reasoner | None = None, policy: Policy | None = None, registry: EntityRegistry | None = None,
        index: str | None = None) -> Vault:
        """Open (or create) an embedded store at `path`; `partitions` is fixed at creation
        (16 by default); `index`: "flat" (exact, default) or "hnsw" (approximate), kept in
        the store's settings (another one switches it). StoreLocked if a process holds it."""
        embedder = an_embedder(embedder) if embedder is not None else LocalEmbedder()
        reasoner = a_reasoner(reasoner) if reasoner is not None else RuleReasoner(embedder)
        backend = EmbeddedBackend(path, partitions=partitions, dim=embedder.dim, embedder_name=embedder.name,
                                  reasoner=reasoner, policy=policy, registry=registry, index=index)
        return cls(backend, embedder, reasoner)

    @classmethod
    def connect(cls, address: str | None = "auto", *, namespace: str = "vault", embedder: Embedder | None = None,
                reasoner: Reasoner | None = None, store: str | Path | None = None, partitions: int | None = None,
                retry_timeout: float | None = None) -> Vault:
        """Join the cluster-mode store served in `namespace` on the Ray cluster at `address`
        (start one with `vault-ray up --store PATH`). `store` and `partitions`, when given,
        are checked against the store's. Ray is imported only here: the core runs without it."""
        from .backends.connect import join  # noqa: PLC0415  (Ray is optional)

        embedder = an_embedder(embedder) if embedder is not None else LocalEmbedder()
        reasoner = a_reasoner(reasoner) if reasoner is not None else None
        options = {} if retry_timeout is None else {"retry_timeout": retry_timeout}
        backend = join(address, namespace=namespace, store=store, partitions=partitions, embedder=embedder, **options)
        return cls(backend, embedder, reasoner if reasoner is not None else RuleReasoner(embedder))

    # -- lifecycle ---------------------------------------------------------------
    @property
    def _backend(self) -> Backend:
        """The store, while the vault is open: every call after `close()` raises StoreClosed
        (a write would otherwise open the store's files again, and hold its lock)."""
        if self._closed:
            raise StoreClosed("this vault is closed; open the store again (Vault.open / Vault.connect)")
        return self._open_backend

    @property
    def closed(self) -> bool:
        """Whether `close()` was called: every call after it raises StoreClosed."""
        return self._closed

    def close(self) -> None:
        """Flush and release the store (idempotent)."""
        if not self._closed:
            self._closed = True
            self._release.detach()
            self._open_backend.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __reduce__(self) -> Any:  # else "cannot pickle '_thread.lock' object", from deep inside
        raise TypeError("a Vault cannot be pickled (sent to another process or a Ray task): open the store there "
                        "(embedded: one process at a time; cluster mode: Vault.connect(address, namespace=...))")

    def __repr__(self) -> str:
        info = self._open_backend.info()  # no store call: the settings it was opened with
        where = repr(info.store) if info.mode == "embedded" else f"namespace {info.namespace!r}"
        return f"<Vault {info.mode} {where}{' closed' if self._closed else ''}>"

    def info(self) -> StoreInfo:
        """What this vault is connected to: mode, store path, partitions, embedder, namespace."""
        return self._backend.info()

    # -- policy --------------------------------------------------------------------
    @property
    def policy(self) -> Policy:
        """The store's policy (read-only: `set_strategy`, `set_authority`, `patch_policy`, ... change it)."""
        return self._backend.control()[0]

    @property
    def registry(self) -> EntityRegistry:
        """A copy of the store's registry: `register(entry)` changes the store's."""
        return self._backend.control()[1].copy()

    def register(self, entry: RegistryEntry, *, check_claims: bool = True) -> None:
        """Add or replace a registry entry; a new alias holding live claims is InvalidInput (`vault-ray normalize` merges)."""
        self._backend.refuse_while_restoring()  # a store whose restore is unfinished: before checks that read it
        unmerged_aliases(self._backend, self.registry, entry, check_claims)
        new = registered(self.registry, self.policy, entry)
        check_narrowing(self._backend, (self.policy, self.registry), (self.policy, new))
        self._backend.set_registry(new)

    # -- writes ----------------------------------------------------------------------
    def agent(self, name: str) -> AgentMemory:
        """A handle whose writes carry `name` (an agent name is exact: "crm" and "CRM" are two agents)."""
        return AgentMemory(self, check_agent(name))

    @gcpause.for_bulk
    def write_batch(self, requests: Sequence[WriteRequest], *, rate_limit: bool = True) -> list[AddResult | VaultError]:
        """Several agents' writes decided together, as if one by one in this order: one embedding call and
        one commit per partition for the batch. Each request gets its own result or error (one bad request
        never fails its neighbours). `rate_limit=False`: no agent's budget is spent (bulk jobs replaying claims)."""
        if not all(isinstance(r, WriteRequest) for r in requests) or not isinstance(rate_limit, bool):
            raise InvalidInput("write_batch takes WriteRequest values (and rate_limit True or False)")
        policy, registry = self._backend.control(fresh=False)
        now, refused = utcnow(), self._backend.restore_refusal()  # a half-restored store: before extracting, embedding
        staged: list[front.Staged | VaultError | AddResult] = []
        for req in requests:
            try:
                staged.append(self._stage(req, policy, rate_limit, refused))
            except VaultError as exc:
                staged.append(exc)
        pending = {i: s for i, s in enumerate(staged) if isinstance(s, tuple)}
        texts = [f.text for facts, vectors, *_ in pending.values() if vectors is None for f in facts]
        labels = [f.entity for i, (fs, vs, *_) in pending.items() if vs is None and requests[i].resolve for f in fs]
        embedded = iter(front.embed_texts(self.embedder, self.reasoner, texts, labels, registry) if texts else ())
        calls, plans = [], []
        for i, (facts, vectors, *_) in pending.items():
            vecs = vectors if vectors is not None else np.stack([next(embedded) for _ in facts])
            try:
                # the time the backend records this call at (write_many: one microsecond per call)
                at = now + timedelta(microseconds=len(calls))
                groups = self._plan(requests[i], facts, vecs, policy, registry, at)
            except VaultError as exc:
                staged[i] = self._refused(requests[i], pending[i][4], exc, policy, rate_limit)
                continue
            calls.append({p: [item for _, item in items] for p, items in groups.items()})
            plans.append((i, groups, len(facts)))
        for (i, groups, n), decided in zip(plans, self._backend.write_many(calls, now), strict=True):
            if isinstance(decided, VaultError):
                whole = getattr(self._backend, "atomic", True) or len(groups) == 1  # else maybe stored in part (shards)
                staged[i] = self._refused(requests[i], pending[i][4] if whole else 0,
                                          front.placed(decided, groups, whole=whole), policy, rate_limit)
                continue
            by_pos = {pos: d for p, items in groups.items() for (pos, _), d in zip(items, decided[p], strict=True)}
            staged[i] = front.add_result(tuple(by_pos[j] for j in range(n)), *pending[i][2:4])
        return staged  # type: ignore[return-value]

    def _refused(self, req: WriteRequest, cost: int, exc: VaultError, policy: Policy, rate_limit: bool) -> VaultError:
        self._limiter.give_back(req.agent, cost, policy.rate_limit if rate_limit else None)  # nothing was written
        return keyed_refusal(req, exc)

    def _stage(self, req: WriteRequest, policy: Policy, rate_limit: bool = True,
               refused: VaultError | None = None) -> front.Staged | AddResult | VaultError:
        """Validate one request (extracting its facts from messages); spend its rate budget (what it cost: last). `refused`:
        every request's answer once its shape is checked (RestoreUnfinished: nothing extracted, embedded or spent)."""
        given = front.check_request(req)
        if refused is not None:  # the request's own mistakes first, then the store's refusal
            check_unstaged(req, given, policy, self.embedder.dim)
            return refused
        missed: tuple[Unextracted, ...] = ()
        notes: list[Fact] = []
        if given is None:
            facts, notes, missed = self._extract(req.messages, req.observed_at)
            if not facts and not notes:
                return AddResult((), missed)
        else:
            facts = given
        facts = front.validate_batch(facts + notes, policy)
        if req.key is not None:
            facts = [f if f.claim_id else replace(f, claim_id=keyed_id(req.agent, req.key, i)) for i, f in enumerate(facts)]
        vectors = None if req.vectors is None else front.embed_batch(facts, self.embedder, req.vectors)
        cost = charged(self._backend.written_by, req.agent, facts) if rate_limit and policy.rate_limit else 0
        self._limiter.take(req.agent, cost, policy.rate_limit if rate_limit else None)
        return facts, vectors, missed, len(notes), cost

    def _plan(self, req: WriteRequest, facts: list[Fact], vectors: np.ndarray, policy: Policy,
              registry: EntityRegistry, now: datetime) -> dict[int, list[tuple[int, WriteItem]]]:
        if req.resolve:
            alignments = front.resolve_entities(facts, vectors, backend=self._backend, reasoner=self.reasoner,
                                                policy=policy, registry=registry, embedder=self.embedder)
        else:
            alignments = front.aliases_only(facts, registry)
        return front.build_items(facts, vectors, alignments, agent=req.agent, session=req.session, policy=policy,
                                 registry=registry, now=now, partitions=self._backend.partitions, key=req.key)

    def _extract(self, messages: Sequence[Message] | str,
                 observed_at: datetime | float | None) -> tuple[list[Fact], list[Fact], tuple[Unextracted, ...]]:
        """The turn's facts, then (with `Policy.unextracted_notes`) one note per part of the
        turn that read as a statement about the user but gave no fact; and those parts."""
        policy, registry = self._backend.control(fresh=False)
        user, msgs = user_turn(messages, policy)
        relevant = registry.relevant(self.embedder.embed([user])[0], self.embedder.embed)
        extraction = on_record(extract_with_report(self.reasoner, msgs, relevant), lambda e: self.get(e).values, user)
        # provenance keeps what was said, beside the reasoner's rewrite
        facts, long = front.too_long([f if f.source is not None else replace(f, source=user) for f in extraction.facts],
                                     policy.max_text)
        missed = (*extraction.unextracted, *long)
        notes = [Fact(NOTES_ENTITY, u.text[: policy.max_text], value=u.text[: policy.max_text], meta={"note": True},
                      source=user) for u in missed] if policy.unextracted_notes else []
        when = as_utc(observed_at)
        if when is not None:
            facts, notes = ([f if f.observed_at is not None else replace(f, observed_at=when) for f in group]
                            for group in (facts, notes))
        return facts, notes, missed

    def _write_one(self, req: WriteRequest) -> AddResult:
        (result,) = self.write_batch([req])
        if isinstance(result, VaultError):
            raise result
        return result

    # -- reads ------------------------------------------------------------------------
    def search(self, query: str, *, k: int = 5, agent: str | None = None, entity: str | None = None,
               as_of: datetime | float | None = None) -> Found[Hit]:
        """Semantic search over active claims, scored cosine x recency decay. Hits on an entity with an open dispute
        are `contested` and carry the competing claims. With `agent`, that agent's claims parked in open disputes are
        found too (contested). `as_of` (a datetime or epoch seconds) searches as the store stood at that moment (the
        same filters, parked claims included), replayed from the event log, decay and flags then. No hit for an
        `entity` no claim was ever made on: `suggestions` name the stored keys like it (as `EntityView`'s)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        check_string(query, "query", limit=MAX_QUERY)
        if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:  # numpy's integers too
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        k = int(k)
        asked, entity = entity, None if entity is None else self._key(entity)
        agent = None if agent is None else check_agent(agent)
        at = as_utc(as_of, field_name="as_of")
        vector = self.embedder.embed([query])
        policy, registry = self._backend.control()
        fetch = k * 4 if at is None or (agent is None and entity is None) else k * 50  # filters: exact when selective
        while True:  # agreeing claims fold into one hit: fetch more while they leave fewer than k values
            raw = (self._backend.search(vector, fetch, agent=agent, entity=entity) if at is None
                   else self._backend.search_as_of(vector, fetch, at, agent=agent, entity=entity))[0]
            found = len(raw)
            raw = [(s, c) for s, c in raw if (agent is None or c.agent == agent) and (entity is None or c.entity == entity)]
            hits = ranked_hits(raw, k, policy, at, lambda entities: self.get_many(entities, as_of=at),
                               lambda e: policy.cardinality_for(e, registry.cardinality(e)))
            if len(hits) >= k or found < fetch or fetch >= MAX_FETCH:
                return listed(self._backend, asked, entity, hits)
            fetch = min(4 * fetch, MAX_FETCH)

    def get(self, entity: str, *, as_of: datetime | float | None = None) -> EntityView:
        """The current view: active claim(s); with an open dispute, every competing value. `as_of` (a datetime
        or epoch seconds) answers as the store stood then, replayed from the event log (before any write: empty)."""
        return self.get_many([entity], as_of=as_of)[entity]

    def get_many(self, entities: Sequence[str] | set[str], *, as_of: datetime | float | None = None) -> dict[str, EntityView]:
        """`get` for several entities at once (one call per partition owner)."""
        if isinstance(entities, str) or not isinstance(entities, Iterable):
            raise InvalidInput(f"get_many takes a collection of entity keys, got {type(entities).__name__}")
        at = as_utc(as_of, field_name="as_of")
        return front.read_views(self._backend, entities, at, self.policy if at is not None else None)

    def explain(self, claim_id: str) -> Explanation:
        """The chain of decisions behind a claim's status (pass, op, strategy, weights,
        judge rationale, dispute, resolution); `str()` of the answer reads as text."""
        return explain_claim(self._backend, check_string(claim_id, "claim_id", limit=128))

    def history(self, entity: str) -> Found[Claim]:
        """Every claim ever made on `entity`, with status and provenance (none: `suggestions`, as get's)."""
        key = self._key(entity)
        return listed(self._backend, entity, key, self._backend.history(key))

    def _key(self, entity: str) -> str:
        return front.read_key(self._backend, entity)

    def claim(self, claim_id: str) -> Claim:
        """One claim by id, whatever its status (ClaimNotFound if the store has none)."""
        return self._backend.claim(check_string(claim_id, "claim_id", limit=128))  # type: ignore[arg-type]

    def claims(self) -> list[Claim]:
        """Every claim in the store, of every status (a full scan: for audits and tools)."""
        return self._backend.all_claims()

    @overload
    def events(self, *, entity: str | None = None, claim_id: str | None = None) -> list[Event]: ...
    @overload
    def events(self, *, since: str, entity: str | None = None, kinds: Iterable[str] | None = None,
               needs_user: bool | None = None, limit: int = DEFAULT_LIMIT) -> EventPage: ...

    def events(self, *, entity: str | None = None, claim_id: str | None = None, since: str | None = None,
               kinds: Iterable[str] | None = None, needs_user: bool | None = None,
               limit: int = DEFAULT_LIMIT) -> list[Event] | EventPage:
        """Without `since`: the change log as recorded, oldest first; for one entity, or
        touching one claim. With `since` (a cursor, "start" or "now"): the public event
        stream after it (`vault_ray.events`), an `EventPage` whose `cursor` resumes after
        all it scanned, filtered by `kinds`, `needs_user` and `entity` (a key or pattern)."""
        if since is None:
            if kinds is not None or needs_user is not None:
                raise InvalidInput("kinds and needs_user filter the event stream: pass since= ('start', 'now' or a cursor)")
            claim_id = None if claim_id is None else check_string(claim_id, "claim_id", limit=128)
            return self._backend.events(entity=None if entity is None else self._key(entity), claim_id=claim_id)
        if claim_id is not None:
            raise InvalidInput("claim_id filters the change log, not the event stream: leave since= out")
        entity = self._key(entity) if isinstance(entity, str) and "*" not in entity else entity  # an alias reads its key
        return read_events(self._backend, since, EventFilter.of(kinds, needs_user, entity), limit)

    def disputes(self, status: str | None = "open") -> list[Dispute]:
        """Disputes by status: "open", "resolved", or None (or "all", the CLI's and HTTP's word) for all."""
        if status not in (None, "all", "open", "resolved"):
            raise InvalidInput(f"status must be 'open', 'resolved', 'all' or None, got {status!r}")
        return self._backend.disputes(None if status == "all" else status)

    def dispute(self, dispute_id: str) -> Dispute:
        """One dispute by id, open or resolved (DisputeNotFound if the store has none)."""
        return self._backend.dispute(check_string(dispute_id, "dispute_id", limit=128))  # type: ignore[arg-type]

    def resolve_dispute(self, dispute_id: str, winner: str | None = None, *, decided_by: str, note: str = "",
                        keep_both: bool = False) -> Dispute:
        """Settle a dispute: `winner` (a claim id in it) becomes active and the others are
        superseded, or `keep_both=True` on a 'many' entity keeps every value (one of the two:
        both is InvalidInput, and nothing changes)."""
        check_resolution(dispute_id, winner, decided_by, note, keep_both)
        return self._backend.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note,
                                             keep_both=keep_both, now=utcnow())

    def apply_rules(self, now: datetime | None = None) -> list[Dispute]:
        """Run the time-based auto-resolve rule (policy.rules.stale_after_s) now. `now`, when given (a datetime,
        naive = UTC, or epoch seconds), is the time disputes' ages are measured at; what closes is recorded at the clock."""
        return self._backend.expire_disputes(as_utc(now, field_name="now") or utcnow())

    def check(self) -> dict[int, bool]:
        """Per partition: does its vector index hold exactly its log's active claims (DESIGN invariant 3)? All True."""
        return self._backend.check()


__all__ = ["AgentMemory", "Vault"]
