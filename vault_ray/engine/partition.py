"""A partition: the one writer for its share of the entity space.

It owns a claim log and a vector index over its active claims, both injected (a
`ClaimLog` and a `VectorIndex` from `vault_ray.storage`). Opening loads the log's
image (a fresh snapshot with the saved index, or DuckDB; the index is rebuilt from
the log's vectors when none was saved). Writes are decided into a `Txn` (pass 1
against the agent's own claims, pass 2 by the entity's strategy) and applied by
`commit`: the log's durable commit first, then the in-memory state and the index
follow. The same class runs in-process (embedded mode) and inside a Ray shard
actor (cluster mode); callers hold `lock` from `begin` to `commit`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vault_ray.storage import ClaimLog, VectorIndex

from .. import strategies
from ..errors import ClaimNotFound, DisputeCapExceeded, DisputeError, DisputeNotFound
from ..models import Claim, Decision, Dispute, DisputeStatus, EntityView, Event, Kind, Op, Outcome, Status
from ..policy import Policy
from ..reasoners.base import JudgeCase, Reasoner
from ..reasoners.rules import kept_denial
from ..roles import clashing_holders
from ..strategies import Action, Verdict
from . import asked, backing, disputes, episodic, outlived, tally, waiting
from .decided import Decided, guard, revision_waits
from .new_entity import NEW, NEW_DETAIL, untouched, write_new
from .receipts import same_fact as _same_fact
from .state import PartitionState
from .suggest import KeyIndex, ranked
from .txn import Txn, WriteItem, decision_from_json, decision_to_json
from .views import Scored, as_live, entity_view


class Partition:
    def __init__(self, number: int, log: ClaimLog, index: VectorIndex) -> None:
        self.number, self.log, self.lock = number, log, threading.RLock()
        self.clock: datetime | None = None
        """The recording time of the last change committed here: the next is later (`after`)."""
        self.index = index
        self._keys: KeyIndex | None = None
        """The live entity keys, sorted for `near_entities`: built on a miss, dropped by a commit changing them."""
        self.decided = Decided(lambda: self.log.disputes(status="resolved"))
        preloaded = len(index) > 0  # a host that restored its saved HNSW graph holds our rows already
        image = log.load(with_vectors=not preloaded)
        self.state = PartitionState(image)
        representatives = self.state.representatives()  # straight into the tagged subset
        if image.vectors is not None:
            index.add(*image.vectors, tagged=representatives)
        del image
        if len(index) != self.state.active_count():
            index.reset()
            index.add(*log.active_vectors(), tagged=representatives)
        if preloaded:  # a restored HNSW graph holds the rows already, untagged
            index.tag(representatives, True)

    def close(self) -> None:
        """Flush the log and save the partition's image (with its active vectors) beside it."""
        with self.lock:
            try:
                rids = self.state.indexed_rids()
                self.log.close((rids, self.index.vectors(rids)))
            finally:
                self.index.close()

    def active_count(self) -> int:
        return self.state.active_count()

    # -- the write path -----------------------------------------------------------
    def begin(self, now: datetime) -> Txn:
        txn = Txn(self.state, self.log.allocate_rid, self.after(now), self.log.entity_log, self.log.stored, self.decided.on)
        txn.decided_disputes = self.decided.disputes_on
        return txn

    def after(self, now: datetime) -> datetime:
        """`now`, or just after the last change committed here: a write whose clock was read
        before another's (before embedding, outside the lock) still records after it, so the
        partition's history, and an `as_of` view of it, is a sequence of states it was in."""
        return now if self.clock is None or now > self.clock else self.clock + timedelta(microseconds=1)

    def decide(self, txn: Txn, items: Sequence[WriteItem], policy: Policy, reasoner: Reasoner,
               elsewhere: Mapping[str, str] | None = None) -> list[Decision]:
        """Decide a batch into `txn`. A claim id already applied (a receipt, here or in
        `elsewhere`: another partition's, when a retry's label resolved otherwise, or earlier
        in this txn) answers with the decision taken then: retries apply once. The same id
        from another agent, or for a fact that says something else, is refused."""
        receipts = {**(elsewhere or {}), **{i.id: i.known for i in items if i.known},
                    **self.log.receipts([i.id for i in items if i.id not in txn.decided])}
        out = []
        for item in items:
            if item.id in receipts:
                decision, agent, digest = decision_from_json(receipts[item.id])
                _same_fact(item, agent, digest, decision)
                out.append(txn.valued(decision, item))  # a receipt written before decisions carried it
            elif item.id in txn.decided:
                _same_fact(item, *txn.writers[item.id])
                out.append(txn.decided[item.id])
            else:
                # a new entity (most of a bulk load) is decided as the general path would: new_entity.py
                txn.decided[item.id] = decision = (write_new(txn, item) if untouched(self.state, txn, item)
                                                   else self._decide_one(txn, item, policy, reasoner))
                txn.writers[item.id] = (item.agent, item.digest)
                txn.receipts[item.id] = decision_to_json(decision, item.agent, item.digest)
                out.append(decision)
        return out

    def _decide_one(self, txn: Txn, item: WriteItem, policy: Policy, reasoner: Reasoner) -> Decision:
        """One new item's decision: its own parked claims withdrawn, the write, what it outlived, flags."""
        takes_back = item.kind != Kind.EPISODIC  # an event withdraws no claim
        asked.flag_for(txn, item, policy)  # (a store written before every such dispute was flagged)
        withdrawn = disputes.withdraw_challenge(txn, item, policy) if takes_back else ()
        decision = self._write_one(txn, item, policy, reasoner)
        if withdrawn:  # its own parked claims, taken back by the claim that stands for this write
            decision = disputes.withdrawn_by(txn, withdrawn, decision, item)
        if decision.superseded:  # withdrawn incumbents, or ones whose place it took (outlived.py)
            decision = outlived.after_write(txn, decision, item.cardinality, policy, reasoner, self.find_claim)
        asked.flag_for(txn, item, policy)  # a dispute it opened or flagged may ask about others' items
        return txn.valued(decision, item)

    def _write_one(self, txn: Txn, item: WriteItem, policy: Policy, reasoner: Reasoner) -> Decision:
        txn.cardinality[item.entity] = item.cardinality
        live = txn.live_on(item.entity)
        fresh = not live and not txn.decided_disputes(item.entity)  # else a value a person rejected may wait
        incoming = Claim(
            id=item.id, entity=item.entity, text=item.text, value=item.value, kind=Kind(item.kind), agent=item.agent,
            session=item.session, observed_at=item.observed_at, recorded_at=txn.now, status=Status.ACTIVE,
            confidence=item.confidence, meta=item.meta, aligned_from=item.aligned_from,
            embedding=None if fresh else item.vector, source=item.source,
        )
        if incoming.kind == Kind.EPISODIC:  # an event: it happened whatever else did; it contradicts nothing
            return episodic.record(txn, replace(incoming, embedding=None), item.vector, item.aligned_from, policy)
        if fresh:  # a new entity (most of a bulk load): what the steps below come to with nothing to compare
            txn.add(incoming, NEW_DETAIL, vector=item.vector)  # the vector beside the claim: memory keeps none
            return Decision(op=Op.ADD, outcome=Outcome.ACTIVE, claim_id=incoming.id, reason=NEW.reason,
                            entity=item.entity, aligned_from=item.aligned_from)
        own = [c for c in live if c.agent == item.agent and c.status == Status.ACTIVE]
        own_verdict = reasoner.classify(incoming, own, item.cardinality) if own else NEW
        op = own_verdict.op
        base = {"entity": item.entity, "aligned_from": item.aligned_from}
        if op == Op.NOOP:
            known = own_verdict.targets[0] if own_verdict.targets else own[0].id
            txn.event(item.entity, "noop", claim_id=known, agent=item.agent, incoming=item.id, reason=own_verdict.reason)
            return Decision(op=op, outcome=Outcome.NOOP, claim_id=known, reason=own_verdict.reason, **base)
        targets = [txn.claim(t) for t in own_verdict.targets]
        newest_own = max(targets, key=strategies.ordered_at, default=None)
        if newest_own is not None and strategies.ordered_at(incoming) < strategies.ordered_at(newest_own):
            return self._store_late(txn, incoming, newest_own.id, op, "late arrival: older than this agent's own claim", base)
        others = [c for c in live if c.agent != item.agent and c.status == Status.ACTIVE]
        conflicting_ids = reasoner.conflicts(incoming, others, item.cardinality) if others and (op == Op.ADD or targets) else []
        conflicting = [c for c in others if c.id in set(conflicting_ids)]
        pass_detail = {"pass": 1 if op != Op.ADD else 2, "op": str(op), "own_reason": own_verdict.reason}
        if not conflicting and (held := waiting.hold(txn, incoming, op, targets, policy, base)) is not None:
            return held  # a dispute on the entity waits for a person with no standing value: held in it
        if not conflicting and (waits := revision_waits(txn, incoming, targets, policy.strategy_for(item.entity))):
            return self._apply_verdict(txn, incoming, op, [], targets, waits, policy, pass_detail, base)
        if not conflicting:
            txn.add(replace(incoming, supersedes=tuple(t.id for t in targets)) if targets else incoming, **pass_detail,
                    reason=own_verdict.reason)
            disputes.supersede(txn, targets, incoming, reason=f"{op}: {own_verdict.reason}")
            settled, gone, joined = backing.back_and_settle(txn, incoming, policy)  # it may back a side; its support may win
            return backing.backing(disputes.with_settlement(Decision(op=op, outcome=Outcome.ACTIVE, claim_id=incoming.id,
                superseded=tuple(t.id for t in targets) + gone, reason=own_verdict.reason, **base), settled), joined)
        repeat = disputes.repeated_challenge(txn, incoming, conflicting, targets)
        if repeat is not None:
            return disputes.count_challenge(txn, incoming, repeat, op, targets, policy, base)
        # the claims this agent just retracted (pass-1 targets) no longer count as its support
        retracted = {t.id for t in targets}
        verdict = strategies.decide(incoming, conflicting, policy, pool=tally.pool(txn, incoming, live, retracted, policy),
                                    cardinality=item.cardinality)
        if verdict.action == Action.ASK_JUDGE:
            case = JudgeCase(incoming, tuple(conflicting), verdict.weights, item.cardinality)
            verdict = strategies.from_judgement(incoming, conflicting, strategies.judged(reasoner, case), verdict)
        verdict = asked.wait(guard(verdict, conflicting, txn, incoming), incoming, conflicting, txn, policy)
        return self._apply_verdict(txn, incoming, op, targets, conflicting, verdict, policy, pass_detail, base)

    def _apply_verdict(self, txn: Txn, incoming: Claim, op: Op, targets: list[Claim], conflicting: list[Claim],
                       verdict: Verdict, policy: Policy, pass_detail: dict[str, Any], base: dict[str, Any]) -> Decision:
        detail = {**pass_detail, "pass": 2, "strategy": verdict.strategy, "reason": verdict.reason,
                  "weights": verdict.weights, "rationale": verdict.rationale}
        if verdict.action == Action.LOSE:
            assert verdict.winner is not None
            return self._store_late(txn, incoming, verdict.winner, op, verdict.reason, base, detail, retracted=targets)
        if verdict.action == Action.WIN:
            beaten = [*targets, *conflicting]
            txn.add(replace(incoming, supersedes=tuple(c.id for c in beaten)), **detail)
            disputes.supersede(txn, beaten, incoming, reason=verdict.reason, strategy=verdict.strategy)
            if verdict.strategy == "consensus":
                tally.flipped(txn, incoming, conflicting, verdict.reason)
            return Decision(op=op, outcome=Outcome.ACTIVE, claim_id=incoming.id, strategy=verdict.strategy,
                            superseded=tuple(c.id for c in beaten), reason=verdict.reason, **base)
        mine = [d for d in txn.open_disputes_on(incoming.entity) if d.challenger_agent == incoming.agent]
        if len(mine) >= policy.max_open_disputes:
            raise DisputeCapExceeded(incoming.agent, incoming.entity, policy.max_open_disputes, claim_id=incoming.id)
        txn.add(replace(incoming, status=Status.DISPUTED, supersedes=tuple(t.id for t in targets)), **detail)
        disputes.supersede(txn, targets, incoming, reason=f"{op}: retracted by its agent")
        dispute = Dispute(
            id=f"dsp-{self.number}-{incoming.id}", entity=incoming.entity, challenger=incoming.id,
            incumbents=tuple(c.id for c in conflicting), reason=verdict.reason, status=DisputeStatus.OPEN,
            needs_user=verdict.needs_user, challenges=1, opened_at=txn.now, challenger_agent=incoming.agent,
        )
        txn.put_dispute(dispute, "dispute_opened", agent=incoming.agent, claim_id=incoming.id, **detail)
        return Decision(op=op, outcome=Outcome.DISPUTED, claim_id=incoming.id, dispute_id=dispute.id,
                        strategy=verdict.strategy, superseded=tuple(t.id for t in targets), reason=verdict.reason, **base)

    def _store_late(self, txn: Txn, incoming: Claim, winner: str, op: Op, reason: str, base: dict[str, Any],
                    detail: dict[str, Any] | None = None, retracted: Sequence[Claim] = ()) -> Decision:
        """`incoming` stored superseded by `winner`. `retracted`: the agent's own claims its write
        took back (pass-1 targets of a write that lost): superseded by it, as when it is parked."""
        detail = {"op": str(op), "reason": reason, **(detail or {})}
        strategy = detail.get("strategy")
        txn.add(replace(incoming, status=Status.SUPERSEDED, superseded_by=winner,
                        supersedes=tuple(t.id for t in retracted)), **detail)
        txn.link(winner, incoming.id)
        disputes.supersede(txn, retracted, incoming, reason=f"{op}: retracted by its agent")
        return Decision(op=op, outcome=Outcome.SUPERSEDED, claim_id=incoming.id, strategy=strategy,
                        superseded=tuple(t.id for t in retracted), reason=reason, **base)

    # -- dispute lifecycle ---------------------------------------------------------
    def resolve_dispute(self, txn: Txn, dispute_id: str, winner: str | None, *, decided_by: str, note: str,
                        keep_both: bool, cardinality: str) -> Dispute:
        d = txn.disputes.get(dispute_id) or self.state.open_disputes.get(dispute_id)
        if d is None or d.status != DisputeStatus.OPEN:
            closed = d or self.log.get_dispute(dispute_id)
            if closed is None:
                raise DisputeNotFound(dispute_id)
            raise DisputeError(f"dispute {dispute_id!r} is already resolved{disputes.how_closed(closed)}; nothing changed",
                               dispute_id=dispute_id)
        if keep_both and cardinality != "many":
            raise DisputeError(f"keep_both needs a 'many' entity; {d.entity!r} is 'one'", dispute_id=dispute_id,
                               keep_both=True)
        if keep_both:
            self._no_two_holders(txn, d)
        else:
            winner = disputes.pick_winner(txn, d, winner, self.find_claim)  # type: ignore[arg-type]
        txn.cardinality[d.entity] = cardinality
        resolved = disputes.resolve(txn, d, winner, decided_by, note, keep_both=keep_both)
        waiting.after_decision(txn, resolved)  # a dispute that waited with no standing value now has one
        asked.flag(txn, d.entity, None, decided_by)
        return resolved

    def _no_two_holders(self, txn: Txn, d: Dispute) -> None:
        """DisputeError when keeping every value would leave two holders of one single-valued role
        (`wife:Anna` and `wife:Sarah` on a `many` entity), or a value and its denial (`peanuts` and
        `not:peanuts`): pass 1 calls either a contradiction, so a person picks one (docs/policies.md)."""
        members = [txn.claim(i) if txn.known(i) else self.find_claim(i) for i in (*d.incumbents, d.challenger, *d.supporters)]
        live = [c for c in members if c is not None and c.status in (Status.ACTIVE, Status.DISPUTED)]
        if (clash := clashing_holders(c.value if c.value is not None else c.text for c in live)) is not None:
            raise DisputeError(f"keep_both would leave two holders of the single-valued role {clash[0]!r} on {d.entity!r} "
                               f"({clash[1]!r} and {clash[2]!r}): one person holds it at a time, so pick the winner",
                               dispute_id=d.id)
        if (denial := kept_denial(live)) is not None:
            raise DisputeError(f"keep_both would keep {denial[1]!r} and its denial {denial[0]!r} on {d.entity!r}: both "
                               "cannot be true, so pick the winner", dispute_id=d.id)

    def expire_disputes(self, txn: Txn, policy: Policy, at: datetime) -> list[Dispute]:
        return disputes.expire(txn, list(self.state.open_disputes.values()), policy, at, self.find_claim)

    # -- commit: log first, then memory and index ----------------------------------
    def commit(self, txn: Txn) -> set[str]:
        """Apply `txn` (durable when this returns); returns the entities it touched."""
        if not txn:
            return set()
        self.log.commit(txn.changes())
        self.decided.note(txn.dispute_rows.values())
        self.clock = txn.now if self.clock is None or txn.now > self.clock else self.clock
        leaving, joining = self.state.apply(txn.claims, txn.rids, txn.disputes, self._stored_vector, txn.vectors)
        touched = {c.entity for c in txn.claims.values()}
        if self._keys is not None and not self._keys.holds(touched, self.state.has_entity):
            self._keys = None
        off, on = self.state.split_rids(touched)
        self.index.remove(leaving)
        if joining:  # an entity's new representative joins the tagged subset as it is added
            self.index.add([r for r, _ in joining], np.array([v for _, v in joining], np.float32), tagged=on)
        self.index.tag(off, False)
        self.index.tag(on, True)
        return touched

    def _stored_vector(self, cid: str) -> np.ndarray:
        return self.log.get_claims([cid], with_vectors=True)[cid].embedding  # type: ignore[no-any-return]

    # -- reads ------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int) -> list[Scored]:
        with self.lock:
            scores, rids = self.index.search(vectors, k)
            claim_at = self.state.claim_at
            return [
                [(s, claim_at(r)) for s, r in zip(srow, rrow, strict=True) if r >= 0]  # type: ignore[misc]
                for srow, rrow in zip(scores.tolist(), rids.tolist(), strict=True)
            ]

    def claim_at(self, rid: int) -> Claim | None:
        """The active claim at an index row, or None if it left the index meanwhile."""
        with self.lock:
            return self.state.claim_at(rid)

    def entities_at(self, rids: Iterable[int]) -> dict[int, str | None]:
        """The entity of the active claim at each index row (None: it left meanwhile), under
        one hold of the lock (entity resolution asks for a batch's hits)."""
        with self.lock:
            entity_at = self.state.entity_at
            return {rid: entity_at(rid) for rid in rids}

    def filtered_rids(self, *, agent: str | None, entity: str | None) -> list[int]:
        """Index rows of the active claims of `entity` and/or by `agent`."""
        with self.lock:
            rids = self.state.active_rids(entity) if entity is not None else self.state.agent_rids(agent or "")
            if entity is not None and agent is not None:
                rids = [r for r in rids if (c := self.state.claim_at(r)) is not None and c.agent == agent]
            return rids

    def score(self, vectors: np.ndarray, rids: list[int]) -> list[Scored]:
        """Exact cosine of every query against these active rows (a filtered search), best first."""
        with self.lock:
            if not rids:
                return [[] for _ in range(len(vectors))]
            scores = np.asarray(vectors, dtype=np.float32) @ self.index.vectors(rids).T
            claims = [self.state.claim_at(r) for r in rids]  # rows of active claims (under the lock)
            return [sorted(zip(row.tolist(), claims, strict=True), key=lambda h: -h[0]) for row in scores]

    def has_entity(self, entity: str) -> bool:
        with self.lock:
            return self.state.has_entity(entity)

    def near_entities(self, entity: str, n: int) -> list[tuple[float, str]]:
        """The `n` entity keys here (with any claim, live or history only) most like `entity`
        ("did you mean", engine/suggest.py)."""
        with self.lock:
            if self._keys is None:
                self._keys = KeyIndex(self.state.stored_entities())
            near = self._keys.near(entity)
        return ranked(entity, near, n)

    def view(self, entity: str, policy: Policy) -> EntityView:
        with self.lock:
            live = [self.state.claims[i] for i in self.state.live_ids(entity)]
            open_ = [self.state.open_disputes[d] for d in self.state.open_dispute_ids(entity)]
            return entity_view(entity, live, open_, policy, self.find_claim)

    def history(self, entity: str) -> list[Claim]:
        with self.lock:
            return self.log.claims_for_entity(entity)

    def find_claim(self, claim_id: str) -> Claim | None:
        with self.lock:
            return self.log.get_claims([claim_id]).get(claim_id)

    def get_claim(self, claim_id: str) -> Claim:
        found = self.find_claim(claim_id)
        if found is None:
            raise ClaimNotFound(claim_id)
        return found

    def disputes(self, status: str | None) -> list[Dispute]:
        with self.lock:
            return [as_live(d, self.state.claims, self.find_claim) for d in self.log.disputes(status=status)]

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        with self.lock:
            found = self.state.open_disputes.get(dispute_id) or self.log.get_dispute(dispute_id)
            return found and as_live(found, self.state.claims, self.find_claim)

    def events(self, **filters: Any) -> list[Event]:
        with self.lock:
            return self.log.events(**filters)

    def events_from(self, seq: int, limit: int) -> list[tuple[int, Event]]:
        with self.lock:
            return self.log.events_from(seq, limit)

    def event_head(self) -> int:
        with self.lock:
            return self.log.event_head()

    def all_claims(self, *, with_vectors: bool = False) -> list[Claim]:
        with self.lock:
            return self.log.all_claims(with_vectors=with_vectors)

    def index_matches_log(self) -> bool:
        """Invariant 3: the index holds exactly the active claims of the log."""
        with self.lock:
            active = {c.id for c in self.log.all_claims() if c.status == Status.ACTIVE}
            indexed = self.state.indexed_ids(self.index.ids())
            return active == indexed and len(self.index) == len(active) == self.state.active_count()
