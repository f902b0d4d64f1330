"""`Vault`: the public entry point. Embedded mode (`Vault.open`) and cluster mode
(`Vault.connect`) share this class; only the backend differs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from . import front, timeline
from .backend import Backend, LocalBackend
from .builtin_entities import NOTES_ENTITY
from .embedders import Embedder, LocalEmbedder
from .errors import InvalidFact, InvalidInput
from .explain import Explanation, explain_claim
from .models import AddResult, Claim, Dispute, EntityView, Fact, Hit, as_utc, utcnow, validate_entity
from .policy import Policy
from .ratelimit import RateLimiter
from .reasoners.base import Message, Reasoner, as_messages, extract_with_report, latest_turn
from .reasoners.rules import RuleReasoner
from .registry import EntityRegistry, RegistryEntry


class Vault:
    """Shared memory for agents. Use `Vault.open(path)` (one process) or
    `Vault.connect(...)` (a Ray cluster); both are context managers."""

    def __init__(self, backend: Backend, embedder: Embedder, reasoner: Reasoner) -> None:
        self.backend = backend
        self.embedder = embedder
        self.reasoner = reasoner
        self._limiter = RateLimiter()
        self._closed = False

    @classmethod
    def open(
        cls, path: str | Path, *, partitions: int | None = None, embedder: Embedder | None = None,
        reasoner: Reasoner | None = None, policy: Policy | None = None, registry: EntityRegistry | None = None,
    ) -> Vault:
        """Open (or create) an embedded store at `path`. `partitions` is fixed when the
        store is created (16 by default). Raises StoreLocked if another process holds it."""
        embedder = embedder if embedder is not None else LocalEmbedder()
        reasoner = reasoner if reasoner is not None else RuleReasoner(embedder)
        backend = LocalBackend(
            path, partitions=partitions, dim=embedder.dim, embedder_name=embedder.name,
            reasoner=reasoner, policy=policy, registry=registry,
        )
        return cls(backend, embedder, reasoner)

    @classmethod
    def connect(cls, address: str = "auto", **options: Any) -> Vault:
        """Join (or start) a cluster-mode store on Ray; see `vault_ray.actors.connect`.

        Ray is imported only here: the core runs without it."""
        from vault_ray.actors import connect  # noqa: PLC0415  (cluster mode is optional)

        return connect(address, **options)

    # -- lifecycle ---------------------------------------------------------------
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.backend.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- policy --------------------------------------------------------------------
    @property
    def policy(self) -> Policy:
        return self.backend.control()[0]

    @property
    def registry(self) -> EntityRegistry:
        return self.backend.control()[1]

    def set_policy(self, policy: Policy) -> None:
        if not isinstance(policy, Policy):
            raise InvalidInput(f"expected a Policy, got {type(policy).__name__}")
        self.backend.set_policy(policy)

    def set_authority(self, agent: str, pattern: str, weight: float) -> None:
        self.set_policy(self.policy.with_authority(agent, pattern, weight))

    def set_strategy(self, pattern: str, strategy: str) -> None:
        self.set_policy(self.policy.with_strategy(pattern, strategy))

    def set_cardinality(self, pattern: str, cardinality: str) -> None:
        self.set_policy(self.policy.with_cardinality(pattern, cardinality))

    def register(self, entry: RegistryEntry) -> None:
        """Add or replace an entity registry entry."""
        registry = EntityRegistry(dict(self.registry.entries))
        registry.add(entry)
        self.backend.set_registry(registry)

    # -- writes ----------------------------------------------------------------------
    def agent(self, name: str) -> AgentMemory:
        if not isinstance(name, str) or not name.strip() or len(name) > 128:
            raise InvalidInput(f"agent name must be a non-empty string of at most 128 characters, got {name!r}")
        return AgentMemory(self, name)

    def _write(self, agent: str, facts: Sequence[Fact], *, session: str | None, vectors: object | None,
               resolve: bool) -> AddResult:
        policy, registry = self.backend.control()
        facts = front.validate_batch(facts, policy)
        vecs = front.embed_batch(facts, self.embedder, vectors)
        self._limiter.take(agent, len(facts), policy.rate_limit)
        now = utcnow()
        if resolve:
            alignments = front.resolve_entities(facts, vecs, backend=self.backend, reasoner=self.reasoner,
                                                policy=policy, registry=registry, embedder=self.embedder)
        else:
            alignments = [front.Alignment(f.entity, None) for f in facts]
        groups = front.build_items(facts, vecs, alignments, agent=agent, session=session, policy=policy,
                                   registry=registry, now=now, partitions=self.backend.partitions)
        decided = self.backend.write(groups, now)
        # positions are unique even when a batch repeats a claim id
        by_pos = {pos: d for p, items in groups.items() for (pos, _), d in zip(items, decided[p], strict=True)}
        return AddResult(tuple(by_pos[i] for i in range(len(facts))))

    # -- reads ------------------------------------------------------------------------
    def search(self, query: str, *, k: int = 5, agent: str | None = None, entity: str | None = None,
               as_of: datetime | float | None = None) -> list[Hit]:
        """Semantic search over active claims, scored cosine x recency decay. Hits on an
        entity with an open dispute are `contested` and carry the competing claims.

        `as_of` (a datetime or epoch seconds) searches the claims active at that moment,
        replayed from the event log, with decay and dispute flags as they stood then."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        if entity is not None:
            validate_entity(entity)
        at = as_utc(as_of, field_name="as_of")
        vector = self.embedder.embed([query])
        policy = self.policy
        fetch = k * 4 if agent is None and entity is None else k * 50
        raw = self.backend.search(vector, fetch)[0] if at is None else timeline.search_as_of(self.backend, vector, fetch, at)[0]
        raw = [(s, c) for s, c in raw if (agent is None or c.agent == agent) and (entity is None or c.entity == entity)]
        return self._hits(raw, k, policy, at)

    def _hits(self, raw: list[tuple[float, Claim]], k: int, policy: Policy, at: datetime | None = None) -> list[Hit]:
        now = at or utcnow()
        half_life = policy.half_life_days * 86400.0
        scored = sorted(
            ((s * 0.5 ** (max(0.0, (now - c.observed_at).total_seconds()) / half_life), c) for s, c in raw),
            key=lambda h: h[0], reverse=True,
        )[:k]
        entities = {c.entity for _, c in scored}
        if at is None:
            views = self.backend.views(entities)
        else:
            views = {e: timeline.view_as_of(self.backend, e, at, policy) for e in entities}
        hits = []
        for score, claim in scored:
            view = views[claim.entity]
            alternatives = tuple(x.claim for x in view.candidates if x.claim.id != claim.id) if view.contested else ()
            hits.append(Hit(claim, float(score), view.contested, alternatives))
        return hits

    def get(self, entity: str, *, as_of: datetime | float | None = None) -> EntityView:
        """The current view: active claim(s); with an open dispute, every competing value.

        `as_of` (a datetime or epoch seconds) answers as the store stood then, replayed
        from the event log; before the first write that is an empty view."""
        validate_entity(entity)
        at = as_utc(as_of, field_name="as_of")
        if at is not None:
            return timeline.view_as_of(self.backend, entity, at, self.policy)
        return self.backend.views([entity])[entity]

    def explain(self, claim_id: str) -> Explanation:
        """The chain of decisions behind a claim's status (pass, op, strategy, weights,
        judge rationale, dispute, resolution); `str()` of the answer reads as text."""
        return explain_claim(self.backend, claim_id)

    def history(self, entity: str) -> list[Claim]:
        """Every claim ever made on `entity`, with status and provenance."""
        validate_entity(entity)
        return self.backend.history(entity)

    def claim(self, claim_id: str) -> Claim:
        return self.backend.claim(claim_id)

    def disputes(self, status: str | None = "open") -> list[Dispute]:
        if status not in (None, "open", "resolved"):
            raise InvalidInput(f"status must be 'open', 'resolved' or None, got {status!r}")
        return self.backend.disputes(status)

    def dispute(self, dispute_id: str) -> Dispute:
        return self.backend.dispute(dispute_id)

    def resolve_dispute(self, dispute_id: str, winner: str | None = None, *, decided_by: str, note: str = "",
                        keep_both: bool = False) -> Dispute:
        """Settle a dispute: `winner` (a claim id in it) becomes active and the others are
        superseded, or `keep_both=True` on a 'many' entity keeps every value."""
        if winner is None and not keep_both:
            raise InvalidInput("name a winner claim id, or pass keep_both=True")
        return self.backend.resolve_dispute(dispute_id, winner, decided_by=decided_by, note=note,
                                            keep_both=keep_both, now=utcnow())

    def apply_rules(self, now: datetime | None = None) -> list[Dispute]:
        """Run the time-based auto-resolve rule (policy.rules.stale_after_s) now."""
        return self.backend.expire_disputes(as_utc(now) or utcnow())

    def export(self, directory: str | Path) -> list[str]:
        """Write every partition's tables to Parquet under `directory`."""
        return self.backend.export_parquet(str(directory))


class AgentMemory:
    """One agent's handle on a vault: everything it writes carries its name."""

    def __init__(self, vault: Vault, name: str) -> None:
        self.vault = vault
        self.name = name

    def add(self, messages: Sequence[Message] | str, *, session: str | None = None,
            observed_at: datetime | float | None = None, resolve: bool = True) -> AddResult:
        """Extract facts from the latest user turn and write them.

        `AddResult.unextracted` lists each part of the turn that reads as a statement
        about the user but gave no fact, with the reason; with `Policy.unextracted_notes`
        each is also kept as a free-text note on `user.notes`."""
        msgs = as_messages(messages)
        user, _ = latest_turn(msgs)
        if not user.strip():
            raise InvalidFact("no user message to extract from")
        policy, registry = self.vault.backend.control()
        if len(user) > policy.max_text * 10:
            raise InvalidFact(f"message is {len(user)} characters; extraction takes at most {policy.max_text * 10}")
        relevant = registry.relevant(self.vault.embedder.embed([user])[0], self.vault.embedder.embed)
        extraction = extract_with_report(self.vault.reasoner, msgs, relevant)
        facts = list(extraction.facts)
        missed = list(extraction.unextracted)
        notes = [Fact(NOTES_ENTITY, u.text[: policy.max_text], value=u.text[: policy.max_text]) for u in missed]
        if not policy.unextracted_notes:
            notes = []
        if not facts and not notes:
            return AddResult((), tuple(missed))
        when = as_utc(observed_at)
        if when is not None:
            facts = [f if f.observed_at is not None else _with_time(f, when) for f in facts]
            notes = [_with_time(f, when) for f in notes]
        written = self.vault._write(self.name, facts + notes, session=session, vectors=None, resolve=resolve)
        decisions = written.decisions[: len(facts)]
        noted = written.decisions[len(facts):]
        if noted:
            missed = [replace(u, note_id=d.claim_id) for u, d in zip(missed, noted, strict=True)]
        return AddResult(decisions, tuple(missed))

    def add_facts(self, facts: Sequence[Fact] | Fact, *, session: str | None = None, vectors: object | None = None,
                  resolve: bool = True) -> AddResult:
        """Write facts directly (no extraction). `vectors` may carry precomputed embeddings."""
        if isinstance(facts, Fact):
            facts = [facts]
        return self.vault._write(self.name, list(facts), session=session, vectors=vectors, resolve=resolve)

    def search(self, query: str, *, k: int = 5, mine: bool = False, **kw: Any) -> list[Hit]:
        return self.vault.search(query, k=k, agent=self.name if mine else None, **kw)


def _with_time(fact: Fact, when: datetime) -> Fact:
    return replace(fact, observed_at=when)

