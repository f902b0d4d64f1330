"""`Vault.explain(claim_id)`: why a claim has the status it has.

The answer is built from the claim's entity's event log: every step that touched
the claim (recorded, superseded, reinstated, parked, re-asserted) with the pass,
op, strategy, authority weights, reason and judge rationale the store recorded,
the disputes it took part in and how they ended. A step caused by another claim
(a newer claim superseding this one) carries that claim's decision as `cause`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from ..models import Claim, Dispute, Event, from_epoch
from .dispute_replay import STATE

STEP_TITLES = {
    "claim_added": "recorded",
    "status_changed": "status changed",
    "dispute_opened": "dispute opened",
    "dispute_challenged": "challenge repeated",
    "dispute_changed": "dispute members changed (one left, or a value joined), its reason (a claim took an incumbent's place, "
                       "or a side's claims changed), or who decides it (a policy change)",
    "dispute_resolved": "dispute resolved",
    "noop": "re-asserted by its agent (nothing changed)",
    "entity_merged": "entity merged (vault-ray normalize)",
    "consensus_flipped": "consensus flipped the entity's value to this claim's",
}

_LEFT = ("retracted", "withdrawn", "settling")
"""Detail keys of dispute events naming claims that took part without being members: those
that left the dispute, and the claim whose write settled it for the incumbents."""


@dataclass(frozen=True)
class Step:
    """One recorded decision or state change."""

    at: datetime
    kind: str
    claim_id: str | None
    agent: str | None
    status: str | None = None
    """The claim's status after this step (claim steps only)."""
    superseded_by: str | None = None
    dispute_id: str | None = None
    pass_no: int | None = None
    op: str | None = None
    strategy: str | None = None
    weights: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    rationale: str = ""
    decided_by: str | None = None
    note: str = ""
    cause: Step | None = None
    """For a status change another claim caused: that claim's own decision."""


@dataclass(frozen=True)
class Explanation:
    """The chain of decisions that led to `claim.status`; `str()` reads as text."""

    claim: Claim
    steps: tuple[Step, ...]
    disputes: tuple[Dispute, ...]

    @property
    def decided_by(self) -> Step | None:
        """What settled the status: the last step carrying a strategy or a resolution (for a
        claim another one superseded, that claim's decision)."""
        for step in reversed(self.steps):
            for s in (step.cause, step):
                if s is not None and (s.strategy or s.decided_by):
                    return s
        return None

    def text(self) -> str:
        return render(self)

    def __str__(self) -> str:
        return render(self)


def step_from_event(e: Event) -> Step:
    d: dict[str, Any] = e.detail or {}
    return Step(
        at=from_epoch(e.ts), kind=e.kind, claim_id=e.claim_id, agent=e.agent, status=e.status,
        superseded_by=e.superseded_by, dispute_id=e.dispute_id or d.get("dispute"),
        pass_no=d.get("pass"), op=d.get("op"), strategy=d.get("strategy"),
        weights={str(k): float(v) for k, v in (d.get("weights") or {}).items()},
        reason=d.get("reason") or d.get("own_reason") or "", rationale=d.get("rationale") or "",
        decided_by=d.get("decided_by"), note=d.get("note") or "",
    )


def _named(cid: str, rec: Any) -> bool:
    """Whether a dispute event's record (the dispute as stored then) names `cid` among its members: a
    dispute that named the claim once still lists it after its incumbents changed (QA8 F4)."""
    return isinstance(rec, dict) and cid in (rec.get("challenger"), *(rec.get("incumbents") or ()),
                                             *(rec.get("supporters") or ()))


def build(claim: Claim, events: list[Event], disputes: list[Dispute]) -> Explanation:
    """Pick the claim's steps out of its entity's events (in log order)."""
    # a member that left (retracted, withdrawn), or the claim that settled it: its events name them
    # or a member once, whose place a newer claim took (today's read names that one): each event's record
    left = {e.dispute_id for e in events if e.dispute_id and e.kind.startswith("dispute_")
            and (e.claim_id == claim.id or any(claim.id in (e.detail.get(k) or ()) for k in _LEFT)
                 or _named(claim.id, e.detail.get(STATE)))}
    mine = tuple(d for d in disputes if d.id in left or claim.id in (d.challenger, *d.incumbents, *d.supporters))
    dispute_ids = {d.id for d in mine}
    added = {e.claim_id: step_from_event(e) for e in events if e.kind == "claim_added"}
    resolved = {e.dispute_id: step_from_event(e) for e in events if e.kind == "dispute_resolved"}
    steps = []
    for e in events:
        touches = e.claim_id == claim.id or (e.kind.startswith("dispute_") and e.dispute_id in dispute_ids)
        if e.kind == "noop" and e.claim_id != claim.id:
            touches = False
        if not touches:
            continue
        step = step_from_event(e)
        if e.kind == "status_changed":
            step = _with_cause(step, added, resolved)
        steps.append(step)
    return Explanation(claim, tuple(steps), mine)


def retracted_from(events: list[Event], dispute_id: str) -> list[tuple[str, str]]:
    """(claim id, who retracted it) of the members dispute `dispute_id` went on without or closed
    over because a person retracted them, from its events (in log order)."""
    out: dict[str, str] = {}
    for e in events:
        if e.dispute_id == dispute_id and e.kind.startswith("dispute_"):
            for cid in e.detail.get("retracted") or ():
                out.setdefault(cid, str(e.detail.get("retracted_by") or e.agent or ""))
    return list(out.items())


def _with_cause(step: Step, added: dict[str | None, Step], resolved: dict[str | None, Step]) -> Step:
    if step.decided_by and step.dispute_id in resolved:
        return replace(step, cause=resolved[step.dispute_id])
    if step.superseded_by in added:
        return replace(step, cause=added[step.superseded_by])
    return step


class ClaimLogReads(Protocol):
    """The reads `explain_claim` needs (every backend has them)."""

    def claim(self, claim_id: str) -> Claim: ...
    def events(self, entity: str | None = None, claim_id: str | None = None) -> list[Event]: ...
    def dispute(self, dispute_id: str) -> Dispute: ...


def explain_claim(reads: ClaimLogReads, claim_id: str) -> Explanation:
    """The claim, its entity's events, and the disputes named there."""
    claim = reads.claim(claim_id)
    events = reads.events(entity=claim.entity)
    ids = sorted({e.dispute_id for e in events if e.dispute_id})
    return build(claim, events, [reads.dispute(i) for i in ids])


# -- text ---------------------------------------------------------------------------------
def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S") + f".{at.microsecond // 1000:03d}Z"


def _weights(weights: dict[str, float]) -> str:
    return ", ".join(f"{agent} {w:.2f}" for agent, w in sorted(weights.items()))


def _describe(step: Step) -> list[str]:
    head = STEP_TITLES.get(step.kind, step.kind)
    if step.kind == "claim_added" and step.status:
        head += f" as {step.status}"
    elif step.kind == "status_changed" and step.status:
        head = f"became {step.status}"
        if step.superseded_by:
            head += f" (superseded by {step.superseded_by})"
    if step.dispute_id and step.kind.startswith("dispute_"):
        head += f" [{step.dispute_id}]"
    if step.agent:
        head += f" by {step.agent}"
    lines = [head]
    facts = []
    if step.pass_no is not None:
        facts.append(f"pass {step.pass_no}")
    if step.op:
        facts.append(f"op {step.op}")
    if step.strategy:
        facts.append(f"strategy {step.strategy}")
    if facts:
        lines.append(", ".join(facts))
    if step.weights:
        lines.append(f"weights: {_weights(step.weights)}")
    if step.reason:
        lines.append(f"reason: {step.reason}")
    if step.rationale:
        lines.append(f"judge: {step.rationale}")
    if step.decided_by:
        lines.append(f"decided by {step.decided_by}" + (f": {step.note}" if step.note else ""))
    elif step.note:  # a change no one decided (a policy change: engine/stakes.py)
        lines.append(step.note)
    return lines


def render(ex: Explanation) -> str:
    c = ex.claim
    out = [
        f"claim {c.id}: {c.text!r}" + (f" (value {c.value!r})" if c.value else ""),
        f"  entity {c.entity}" + (f" (aligned from {c.aligned_from})" if c.aligned_from else "")
        + f", agent {c.agent}" + (f", session {c.session}" if c.session else "") + f", observed {_when(c.observed_at)}",
        f"  status now: {c.status}" + (f", superseded by {c.superseded_by}" if c.superseded_by else ""),
    ]
    if c.source:
        out.insert(1, f"  said: {c.source!r}")
    for i, step in enumerate(ex.steps, 1):
        first, *rest = _describe(step)
        out.append(f"{i}. {_when(step.at)}  {first}")
        out += [f"     {line}" for line in rest]
        if step.cause is not None and step.cause.kind == "claim_added":  # a resolution is its own step
            cause_first, *cause_rest = _describe(step.cause)
            out.append(f"     because claim {step.cause.claim_id} was {cause_first}")
            out += [f"       {line}" for line in cause_rest]
    for d in ex.disputes:
        against = ", ".join(d.incumbents) or "no standing claim (the other side was retracted or withdrawn)"
        line = f"dispute {d.id}: {d.status}, challenger {d.challenger} vs {against}"
        line += f"; {d.challenges} challenge(s)" + ("; needs the user" if d.needs_user else "")
        if d.resolution is not None:
            r = d.resolution
            line += f"; resolved by {r.decided_by}: " + ("kept both" if r.keep_both else f"winner {r.winner}")
            line += f" ({r.note})" if r.note else ""
        out.append(line)
    return "\n".join(out)
