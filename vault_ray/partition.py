"""A partition: the one writer for its share of the entity space.

It owns a claim log (DuckDB) and a vector index (FAISS) over its active claims.
Every state change goes through `_commit`: the log transaction first, then the
in-memory state and the index follow. The same class runs in-process (embedded
mode) and inside a Ray shard actor (cluster mode).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from vault_ray.storage import ClaimLog, Event, VectorIndex

from . import strategies
from .errors import ClaimNotFound, DisputeCapExceeded, DisputeError, DisputeNotFound
from .models import (
    Claim,
    Decision,
    Dispute,
    DisputeStatus,
    EntityView,
    Kind,
    Op,
    Outcome,
    Resolution,
    Status,
)
from .policy import Policy
from .reasoners.base import JudgeCase, OwnVerdict, Reasoner
from .reasoners.rules import contradicts, normalized_value
from .strategies import Action, Verdict
from .timeline import entity_view
from .txn import Txn, WriteItem, decision_from_json, decision_to_json


class Partition:
    def __init__(self, path: str | os.PathLike[str], *, number: int, dim: int) -> None:
        self.number = number
        self.dim = dim
        self.path = str(path)
        self.lock = threading.RLock()
        self.log = ClaimLog(path, dim=dim)
        self.index = VectorIndex(dim)
        self._load()

    # -- state ------------------------------------------------------------------
    def _load(self) -> None:
        claims, rids, vectors, disputes = self.log.load_live()
        self.claims: dict[str, Claim] = {}
        self.rid_of: dict[str, int] = {}
        self.by_rid: dict[int, str] = {}
        self.by_entity: dict[str, set[str]] = {}
        self.open_disputes: dict[str, Dispute] = {d.id: d for d in disputes}
        self.disputes_by_entity: dict[str, set[str]] = {}
        # every entity with a claim of any status: `has_entity` must not scan the log per new label
        self.known_entities: set[str] = self.log.entity_keys()
        for d in disputes:
            self.disputes_by_entity.setdefault(d.entity, set()).add(d.id)
        self.index.reset()
        active_rows = []
        for i, (claim, rid) in enumerate(zip(claims, rids, strict=True)):
            self.claims[claim.id] = claim  # load_live attaches vectors to disputed claims only
            self.rid_of[claim.id] = rid
            self.by_entity.setdefault(claim.entity, set()).add(claim.id)
            if claim.status == Status.ACTIVE:
                self.by_rid[rid] = claim.id
                active_rows.append(i)
        if active_rows:
            self.index.add([rids[i] for i in active_rows], vectors[active_rows])

    def close(self) -> None:
        with self.lock:
            self.log.close()
            self.index.close()

    def active_count(self) -> int:
        return len(self.by_rid)

    # -- the write path -----------------------------------------------------------
    def write(self, items: Sequence[WriteItem], policy: Policy, reasoner: Reasoner, now: datetime) -> list[Decision]:
        """Decide and apply a batch in one transaction. Any error leaves the partition unchanged."""
        with self.lock:
            txn, decisions = self.prepare(items, policy, reasoner, now)
            self.commit(txn)
            return decisions

    def prepare(
        self, items: Sequence[WriteItem], policy: Policy, reasoner: Reasoner, now: datetime
    ) -> tuple[Txn, list[Decision]]:
        """Decide a batch without applying it (hold `lock` until `commit`)."""
        receipts = self.log.receipts([i.id for i in items])
        txn = Txn(self, now)
        out = []
        for item in items:
            if item.id in receipts:
                out.append(decision_from_json(receipts[item.id]))
            elif item.id in txn.decided:
                out.append(txn.decided[item.id])
            else:
                decision = self._write_one(txn, item, policy, reasoner)
                if decision.superseded:
                    self._settle_withdrawn(txn, item.entity, item.cardinality, policy)
                txn.decided[item.id] = decision
                txn.changes.receipts[item.id] = decision_to_json(decision)
                out.append(decision)
        return txn, out

    def commit(self, txn: Txn) -> None:
        self._commit(txn)

    def _write_one(self, txn: Txn, item: WriteItem, policy: Policy, reasoner: Reasoner) -> Decision:
        incoming = Claim(
            id=item.id, entity=item.entity, text=item.text, value=item.value, kind=Kind(item.kind), agent=item.agent,
            session=item.session, observed_at=item.observed_at, recorded_at=txn.now, status=Status.ACTIVE,
            confidence=item.confidence, meta=item.meta, aligned_from=item.aligned_from, embedding=item.vector,
        )
        txn.cardinality[item.entity] = item.cardinality
        live = txn.live_on(item.entity)
        own = [c for c in live if c.agent == item.agent and c.status == Status.ACTIVE]
        own_verdict = reasoner.classify(incoming, own, item.cardinality) if own else OwnVerdict(Op.ADD, (), "new for this agent")
        op = own_verdict.op
        base = {"entity": item.entity, "aligned_from": item.aligned_from}
        if op == Op.NOOP:
            known = own_verdict.targets[0] if own_verdict.targets else own[0].id
            txn.event(item.entity, "noop", claim_id=known, agent=item.agent, incoming=item.id, reason=own_verdict.reason)
            return Decision(op=op, outcome=Outcome.NOOP, claim_id=known, reason=own_verdict.reason, **base)
        targets = [txn.claim(t) for t in own_verdict.targets]
        newest_own = max(targets, key=lambda c: c.observed_at, default=None)
        if newest_own is not None and incoming.observed_at < newest_own.observed_at:
            return self._store_late(txn, incoming, newest_own.id, op, "late arrival: older than this agent's own claim", base)
        others = [c for c in live if c.agent != item.agent and c.status == Status.ACTIVE]
        conflicting_ids = reasoner.conflicts(incoming, others, item.cardinality) if others and (op == Op.ADD or targets) else []
        conflicting = [c for c in others if c.id in set(conflicting_ids)]
        pass_detail = {"pass": 1 if op != Op.ADD else 2, "op": str(op), "own_reason": own_verdict.reason}
        if not conflicting:
            txn.add(incoming, **pass_detail, reason=own_verdict.reason)
            self._supersede(txn, targets, incoming, reason=f"{op}: {own_verdict.reason}")
            return Decision(op=op, outcome=Outcome.ACTIVE, claim_id=incoming.id,
                            superseded=tuple(t.id for t in targets), reason=own_verdict.reason, **base)
        repeat = self._repeated_challenge(txn, incoming, conflicting)
        if repeat is not None:
            return self._count_challenge(txn, incoming, repeat, op, targets, policy, base)
        # the claims this agent just retracted (pass-1 targets) no longer count as its support
        retracted = {t.id for t in targets}
        verdict = strategies.decide(incoming, conflicting, policy, pool=[c for c in live if c.id not in retracted])
        if verdict.action == Action.ASK_JUDGE:
            case = JudgeCase(incoming, tuple(conflicting), verdict.weights)
            verdict = strategies.from_judgement(incoming, conflicting, reasoner.judge(case), verdict)
        return self._apply_verdict(txn, incoming, op, targets, conflicting, verdict, policy, pass_detail, base)

    def _apply_verdict(self, txn: Txn, incoming: Claim, op: Op, targets: list[Claim], conflicting: list[Claim],
                       verdict: Verdict, policy: Policy, pass_detail: dict[str, Any], base: dict[str, Any]) -> Decision:
        detail = {**pass_detail, "pass": 2, "strategy": verdict.strategy, "reason": verdict.reason,
                  "weights": verdict.weights, "rationale": verdict.rationale}
        if verdict.action == Action.LOSE:
            assert verdict.winner is not None
            return self._store_late(txn, incoming, verdict.winner, op, verdict.reason, base, detail)
        if verdict.action == Action.WIN:
            txn.add(incoming, **detail)
            self._supersede(txn, [*targets, *conflicting], incoming, reason=verdict.reason, strategy=verdict.strategy)
            return Decision(op=op, outcome=Outcome.ACTIVE, claim_id=incoming.id, strategy=verdict.strategy,
                            superseded=tuple(c.id for c in [*targets, *conflicting]), reason=verdict.reason, **base)
        mine = [d for d in txn.open_disputes_on(incoming.entity) if d.challenger_agent == incoming.agent]
        if len(mine) >= policy.max_open_disputes:
            raise DisputeCapExceeded(incoming.agent, incoming.entity, policy.max_open_disputes)
        txn.add(replace(incoming, status=Status.DISPUTED), **detail)
        self._supersede(txn, targets, incoming, reason=f"{op}: retracted by its agent")
        dispute = Dispute(
            id=f"dsp-{self.number}-{incoming.id}", entity=incoming.entity, challenger=incoming.id,
            incumbents=tuple(c.id for c in conflicting), reason=verdict.reason, status=DisputeStatus.OPEN,
            needs_user=verdict.needs_user, challenges=1, opened_at=txn.now, challenger_agent=incoming.agent,
        )
        txn.put_dispute(dispute, "dispute_opened", agent=incoming.agent, claim_id=incoming.id, **detail)
        return Decision(op=op, outcome=Outcome.DISPUTED, claim_id=incoming.id, dispute_id=dispute.id,
                        strategy=verdict.strategy, superseded=tuple(t.id for t in targets), reason=verdict.reason, **base)

    def _store_late(self, txn: Txn, incoming: Claim, winner: str, op: Op, reason: str, base: dict[str, Any],
                    detail: dict[str, Any] | None = None) -> Decision:
        detail = {"op": str(op), "reason": reason, **(detail or {})}
        strategy = detail.get("strategy")
        txn.add(replace(incoming, status=Status.SUPERSEDED, superseded_by=winner), **detail)
        return Decision(op=op, outcome=Outcome.SUPERSEDED, claim_id=incoming.id, strategy=strategy, reason=reason, **base)

    def _supersede(self, txn: Txn, claims: Sequence[Claim], by: Claim, **detail: Any) -> None:
        for c in claims:
            txn.set_status(c.id, Status.SUPERSEDED, by.id, agent=by.agent, **detail)

    def _repeated_challenge(self, txn: Txn, incoming: Claim, conflicting: list[Claim]) -> Dispute | None:
        value = normalized_value(incoming)
        incumbents = {c.id for c in conflicting}
        for d in txn.open_disputes_on(incoming.entity):
            if set(d.incumbents) & incumbents and normalized_value(txn.claim(d.challenger)) == value:
                return d
        return None

    def _count_challenge(self, txn: Txn, incoming: Claim, d: Dispute, op: Op, targets: list[Claim], policy: Policy,
                         base: dict[str, Any]) -> Decision:
        agents = {d.challenger_agent} | {txn.claim(s).agent for s in d.supporters}
        supporters = d.supporters
        claim_id = d.challenger
        if incoming.agent not in agents:
            txn.add(replace(incoming, status=Status.DISPUTED), op=str(op), dispute=d.id,
                    reason="supports an open dispute's challenger")
            supporters = (*supporters, incoming.id)
            agents.add(incoming.agent)
            claim_id = incoming.id
        self._supersede(txn, targets, txn.claim(claim_id), reason=f"{op}: retracted by its agent")
        # a dispute on a high-stakes entity waits for the user however it was opened
        updated = replace(d, challenges=d.challenges + 1, supporters=supporters,
                          needs_user=d.needs_user or policy.is_high_stakes(d.entity))
        txn.put_dispute(updated, "dispute_challenged", agent=incoming.agent, claim_id=incoming.id,
                        challenges=updated.challenges, agents=sorted(agents))
        settled = self._settle_repeat(txn, incoming, updated, len(agents), policy)
        if settled is not None:
            decided_by, note, extra = settled
            self._resolve(txn, updated, d.challenger, decided_by, note, keep_both=False, **extra)
            return Decision(op=op, outcome=Outcome.ACTIVE, claim_id=claim_id, dispute_id=d.id,
                            strategy=extra.get("strategy"), reason=f"dispute settled by {decided_by}: {note}", **base)
        return Decision(op=op, outcome=Outcome.DISPUTED, claim_id=claim_id, dispute_id=d.id,
                        reason=f"repeats an open challenge ({updated.challenges} so far)", **base)

    def _settle_repeat(self, txn: Txn, incoming: Claim, d: Dispute, n_agents: int,
                       policy: Policy) -> tuple[str, str, dict[str, Any]] | None:
        """Whether a repeated challenge settles its dispute for the challenger: by the
        `reasserted_by` rule, or because the entity's strategy now lets it win (consensus
        counting the supporters; a re-assertion observed clearly later under recency; a
        heavier supporter under authority). The judge is not asked again: it rules once
        per dispute. High-stakes disputes never settle here."""
        if policy.is_high_stakes(d.entity):
            return None
        n = policy.rules.reasserted_by
        if n is not None and n_agents >= n:
            return f"rule:reasserted_by_{n}", f"challenger value asserted by {n_agents} distinct agents", {}
        incumbents = [txn.claim(c) for c in d.incumbents if self._known(txn, c)]
        incumbents = [c for c in incumbents if c.status == Status.ACTIVE]
        if not incumbents:
            return None
        verdict = strategies.decide(incoming, incumbents, policy, pool=txn.live_on(d.entity))
        if verdict.action != Action.WIN:
            return None
        extra = {"strategy": verdict.strategy, "weights": verdict.weights}
        return f"strategy:{verdict.strategy}", verdict.reason, extra

    # -- dispute lifecycle ---------------------------------------------------------
    def resolve_dispute(self, dispute_id: str, winner: str | None, *, decided_by: str, note: str, keep_both: bool,
                        cardinality: str, now: datetime) -> Dispute:
        with self.lock:
            d = self.open_disputes.get(dispute_id)
            if d is None:
                stored = self.log.get_dispute(dispute_id)
                if stored is None:
                    raise DisputeNotFound(dispute_id)
                raise DisputeError(f"dispute {dispute_id!r} is already resolved", dispute_id=dispute_id)
            if keep_both and cardinality != "many":
                raise DisputeError(f"keep_both needs a 'many' entity; {d.entity!r} is 'one'", dispute_id=dispute_id)
            if not keep_both and winner not in {d.challenger, *d.incumbents, *d.supporters}:
                raise DisputeError(f"claim {winner!r} is not part of dispute {dispute_id!r}", dispute_id=dispute_id)
            if not keep_both and winner not in self.claims:
                # an incumbent its own agent replaced while the dispute was open
                gone = self.log.get_claims([winner])[winner]
                raise DisputeError(f"claim {winner!r} of dispute {dispute_id!r} was since superseded by "
                                   f"{gone.superseded_by!r}; name a live claim of the dispute", dispute_id=dispute_id)
            if not decided_by or not isinstance(decided_by, str):
                raise DisputeError("decided_by must name who decided", dispute_id=dispute_id)
            txn = Txn(self, now)
            txn.cardinality[d.entity] = cardinality
            resolved = self._resolve(txn, d, winner, decided_by, note, keep_both=keep_both)
            self._commit(txn)
            return resolved

    def _resolve(self, txn: Txn, d: Dispute, winner: str | None, decided_by: str, note: str, *, keep_both: bool,
                 **extra: Any) -> Dispute:
        members = [txn.claim(c) for c in (d.challenger, *d.incumbents, *d.supporters) if self._known(txn, c)]
        detail = {"decided_by": decided_by, "note": note, "winner": winner, "keep_both": keep_both, **extra}
        status_detail = {**detail, "dispute": d.id}
        if keep_both:
            for c in members:
                if c.status != Status.ACTIVE:
                    txn.set_status(c.id, Status.ACTIVE, None, agent=decided_by, **status_detail)
        else:
            assert winner is not None
            win_value = normalized_value(txn.claim(winner))
            member_ids = {m.id for m in members}
            # Active claims outside the dispute lose only if they contradict the winner: on a
            # 'many' entity other values (likes:chess beside likes:jazz) stay. Unknown
            # cardinality (the stale rule, which keeps an incumbent) touches members only.
            card = txn.cardinality.get(d.entity)
            rivals = {c.id: c for c in txn.live_on(d.entity)
                      if c.status == Status.ACTIVE and card is not None and contradicts(normalized_value(c), win_value, card)}
            rivals.update({c.id: c for c in members})
            for c in rivals.values():
                if normalized_value(c) == win_value:
                    if c.status != Status.ACTIVE:
                        txn.set_status(c.id, Status.ACTIVE, None, agent=decided_by, **status_detail)
                elif c.id in member_ids or c.status == Status.ACTIVE:
                    txn.set_status(c.id, Status.SUPERSEDED, winner, agent=decided_by, **status_detail)
        resolved = replace(d, status=DisputeStatus.RESOLVED,
                           resolution=Resolution(winner, decided_by, note, txn.now, keep_both))
        txn.put_dispute(resolved, "dispute_resolved", agent=decided_by, claim_id=winner, **detail)
        return resolved

    def _settle_withdrawn(self, txn: Txn, entity: str, cardinality: str, policy: Policy) -> None:
        """A dispute whose incumbents were all withdrawn, while the entity's current value
        now agrees with the challenger, has nothing left to decide: the challenger wins
        (decided_by "rule:incumbents_withdrawn"). High-stakes disputes still wait for the user."""
        if policy.is_high_stakes(entity):
            return
        active = [c for c in txn.live_on(entity) if c.status == Status.ACTIVE]
        for d in txn.open_disputes_on(entity):
            if any(txn.claim(i).status == Status.ACTIVE for i in d.incumbents if self._known(txn, i)):
                continue
            value = normalized_value(txn.claim(d.challenger))
            if any(normalized_value(c) == value for c in active) and not any(
                contradicts(normalized_value(c), value, cardinality) for c in active
            ):
                self._resolve(txn, d, d.challenger, "rule:incumbents_withdrawn",
                              "every incumbent was withdrawn and the current value agrees with the challenger",
                              keep_both=False)

    def _known(self, txn: Txn, cid: str) -> bool:
        return cid in txn.claims or cid in self.claims

    def expire_disputes(self, policy: Policy, now: datetime) -> list[Dispute]:
        """Auto-resolve rule: close stale, never re-asserted disputes keeping the incumbent."""
        limit = policy.rules.stale_after_s
        if limit is None:
            return []
        with self.lock:
            txn = Txn(self, now)
            done = []
            for d in list(self.open_disputes.values()):
                age = (now - d.opened_at).total_seconds()
                if age < limit or d.challenges > 1 or d.supporters or policy.is_high_stakes(d.entity):
                    continue
                keep = next((c for c in d.incumbents if c in self.claims), None)
                if keep is None:
                    continue
                done.append(self._resolve(txn, d, keep, "rule:stale", f"open {age:.0f}s without re-assertion",
                                          keep_both=False))
            self._commit(txn)
            return done

    # -- commit: log first, then memory and index ----------------------------------
    def _commit(self, txn: Txn) -> None:
        if not txn.changes:
            return
        self.log.commit(txn.changes)
        leaving: list[int] = []  # one remove_ids per commit: each call is O(index size)
        joining: list[tuple[int, np.ndarray]] = []  # and one add: faiss copies its buffer per call
        self.known_entities.update(c.entity for c in txn.changes.new_claims)
        for cid, claim in txn.claims.items():
            rid = self.rid_of.get(cid, txn.changes.rids.get(cid))
            assert rid is not None
            before = self.claims.get(cid)
            vector = claim.embedding if claim.embedding is not None else (before.embedding if before else None)
            was_active = before is not None and before.status == Status.ACTIVE
            if claim.status == Status.SUPERSEDED:
                self.claims.pop(cid, None)
                self.rid_of.pop(cid, None)
                self.by_entity.get(claim.entity, set()).discard(cid)
            else:
                keep_vec = claim.status == Status.DISPUTED
                self.claims[cid] = replace(claim, embedding=vector if keep_vec else None)
                self.rid_of[cid] = rid
                self.by_entity.setdefault(claim.entity, set()).add(cid)
            if was_active and claim.status != Status.ACTIVE:
                leaving.append(rid)
                self.by_rid.pop(rid, None)
            elif not was_active and claim.status == Status.ACTIVE:
                if vector is None:
                    vector = self.log.get_claims([cid], with_vectors=True)[cid].embedding
                joining.append((rid, np.asarray(vector, dtype=np.float32)))
                self.by_rid[rid] = cid
        self.index.remove(leaving)
        if joining:
            self.index.add([r for r, _ in joining], np.stack([v for _, v in joining]))
        for did, d in txn.disputes.items():
            if d.status == DisputeStatus.OPEN:
                self.open_disputes[did] = d
                self.disputes_by_entity.setdefault(d.entity, set()).add(did)
            else:
                self.open_disputes.pop(did, None)
                self.disputes_by_entity.get(d.entity, set()).discard(did)

    # -- reads ------------------------------------------------------------------------
    def search(self, vectors: np.ndarray, k: int) -> list[list[tuple[float, Claim]]]:
        with self.lock:
            scores, rids = self.index.search(vectors, k)
            claims, by_rid = self.claims, self.by_rid
            return [
                [(s, claims[by_rid[r]]) for s, r in zip(srow, rrow, strict=True) if r >= 0]
                for srow, rrow in zip(scores.tolist(), rids.tolist(), strict=True)
            ]

    def entity_keys(self) -> set[str]:
        with self.lock:
            return {e for e, ids in self.by_entity.items() if ids}

    def has_entity(self, entity: str) -> bool:
        with self.lock:
            return entity in self.known_entities

    def view(self, entity: str, policy: Policy) -> EntityView:
        with self.lock:
            live = [self.claims[i] for i in self.by_entity.get(entity, ())]
            disputes = [self.open_disputes[d] for d in self.disputes_by_entity.get(entity, ())]
            return entity_view(entity, live, disputes, policy)

    def history(self, entity: str) -> list[Claim]:
        with self.lock:
            return self.log.claims_for_entity(entity)

    def get_claim(self, claim_id: str) -> Claim:
        with self.lock:
            found = self.log.get_claims([claim_id])
            if claim_id not in found:
                raise ClaimNotFound(claim_id)
            return found[claim_id]

    def disputes(self, status: str | None) -> list[Dispute]:
        with self.lock:
            return self.log.disputes(status=status)

    def get_dispute(self, dispute_id: str) -> Dispute | None:
        with self.lock:
            return self.open_disputes.get(dispute_id) or self.log.get_dispute(dispute_id)

    def events(self, **filters: Any) -> list[Event]:
        with self.lock:
            return self.log.events(**filters)

    def index_matches_log(self) -> bool:
        """Invariant 3: the index holds exactly the active claims of the log."""
        with self.lock:
            active = {c.id for c in self.log.all_claims() if c.status == Status.ACTIVE}
            indexed = {self.by_rid[r] for r in self.index.ids()}
            return active == indexed and len(self.index) == len(active)


def strip(claim: Claim) -> Claim:
    return claim if claim.embedding is None else replace(claim, embedding=None)
