"""Pass-2 strategies: pure functions from (incoming claim, contradicting claims,
policy) to a verdict. No I/O, no mutation. The partition applies the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .errors import ReasonerError, VaultError
from .models import Claim
from .policy import Policy
from .reasoners.base import JudgeCase, Judgement, Reasoner
from .reasoners.rules import normalized_value


class Action(StrEnum):
    WIN = "win"  # incoming becomes active, the contradicting claims are superseded
    LOSE = "lose"  # incoming is stored superseded by `winner`
    DISPUTE = "dispute"  # incoming is parked disputed and a dispute opens
    ASK_JUDGE = "ask_judge"  # the reasoner's judge must decide


@dataclass(frozen=True)
class Verdict:
    action: Action
    strategy: str
    reason: str
    winner: str | None = None
    needs_user: bool = False
    weights: dict[str, float] = field(default_factory=dict)
    rationale: str = ""


def weights_of(claims: Sequence[Claim], policy: Policy) -> dict[str, float]:
    return {c.agent: policy.weight(c.agent, c.entity) for c in claims}


def decide(
    incoming: Claim,
    conflicting: Sequence[Claim],
    policy: Policy,
    *,
    pool: Sequence[Claim] = (),
    strategy: str | None = None,
) -> Verdict:
    """Decide a contradiction. `pool` holds every active or disputed claim on the
    entity (consensus counts support in it)."""
    strategy = strategy or policy.strategy_for(incoming.entity)
    weights = weights_of([incoming, *conflicting], policy)
    if policy.is_high_stakes(incoming.entity):
        return Verdict(
            Action.DISPUTE, "high_stakes", "high-stakes entity: never auto-resolved, the user decides",
            needs_user=True, weights=weights,
        )
    if strategy == "recency":
        return recency(incoming, conflicting, policy, weights)
    if strategy == "authority":
        return authority(incoming, conflicting, weights)
    if strategy == "consensus":
        return consensus(incoming, conflicting, policy, pool, weights)
    return Verdict(Action.ASK_JUDGE, "judge", "the judge strategy decides every contradiction", weights=weights)


def ordered_at(c: Claim) -> datetime:
    """The time recency orders a claim by: when it was observed, but never later than when
    it was recorded. A future `observed_at` (clock skew, up to `MAX_FUTURE` is accepted)
    would otherwise outrank every write until then; the claim keeps what its agent sent."""
    return min(c.observed_at, c.recorded_at)


def recency(incoming: Claim, conflicting: Sequence[Claim], policy: Policy, weights: dict[str, float]) -> Verdict:
    window = policy.near_simultaneous_s
    mine = ordered_at(incoming)
    # an exact tie is no "newer" either, whatever the window (the default is none): arrival order would decide
    close = [c for c in conflicting if abs((mine - ordered_at(c)).total_seconds()) < window or ordered_at(c) == mine]
    if close:
        gap = min(abs((mine - ordered_at(c)).total_seconds()) for c in close)
        reason = (f"near-simultaneous: observed {gap:.1f}s apart, inside the {window:g}s window" if gap
                  else "observed at the same moment")
        if policy.on_ambiguous_for(incoming.entity) == "judge":
            return Verdict(Action.ASK_JUDGE, "recency", reason, weights=weights)
        return Verdict(Action.DISPUTE, "recency", reason + "; order not trusted", weights=weights)
    newest = max(conflicting, key=ordered_at)
    if mine > ordered_at(newest):
        return Verdict(Action.WIN, "recency", "newer observation wins", weights=weights)
    at = ordered_at(newest)
    ahead = f", recorded then; said to be observed at {newest.observed_at.isoformat()}" if at < newest.observed_at else ""
    return Verdict(
        Action.LOSE, "recency", f"late arrival: observed before the current claim {newest.id} ({at.isoformat()}{ahead})",
        winner=newest.id, weights=weights,
    )


def authority(incoming: Claim, conflicting: Sequence[Claim], weights: dict[str, float]) -> Verdict:
    mine = weights[incoming.agent]
    strongest = max(conflicting, key=lambda c: weights[c.agent])
    theirs = weights[strongest.agent]
    if mine > theirs:
        return Verdict(
            Action.WIN, "authority", f"{incoming.agent} ({mine:.2f}) outweighs {strongest.agent} ({theirs:.2f})",
            weights=weights,
        )
    return Verdict(
        Action.DISPUTE, "authority",
        f"{incoming.agent} ({mine:.2f}) does not outweigh {strongest.agent} ({theirs:.2f})",
        weights=weights,
    )


def support_by_value(claims: Sequence[Claim], policy: Policy) -> dict[str, tuple[float, set[str]]]:
    """value -> (authority-weighted support, distinct agents); one agent counts once."""
    agents: dict[str, set[str]] = {}
    for c in claims:
        agents.setdefault(normalized_value(c), set()).add(c.agent)
    entity = claims[0].entity if claims else ""
    return {v: (sum(policy.weight(a, entity) for a in ags), ags) for v, ags in agents.items()}


def consensus(
    incoming: Claim, conflicting: Sequence[Claim], policy: Policy, pool: Sequence[Claim], weights: dict[str, float]
) -> Verdict:
    mine = normalized_value(incoming)
    sides = {mine} | {normalized_value(c) for c in conflicting}
    members = [incoming, *[c for c in pool if normalized_value(c) in sides], *conflicting]
    support = support_by_value(members, policy)
    ranked = sorted(support.items(), key=lambda kv: kv[1][0], reverse=True)
    (best, (top, _)), (_, (second, _)) = ranked[0], ranked[1]
    table = ", ".join(f"{v!r}: {s:.2f} from {len(a)} agent(s)" for v, (s, a) in ranked)
    all_weights = {**weights, **weights_of(members, policy)}
    if top - second < policy.consensus_margin or top == second:
        return Verdict(
            Action.DISPUTE, "consensus", f"no clear majority ({table}; margin {policy.consensus_margin:g})",
            weights=all_weights,
        )
    if best == mine:
        return Verdict(Action.WIN, "consensus", f"majority for the incoming value ({table})", weights=all_weights)
    winner = max((c for c in conflicting if normalized_value(c) == best), key=lambda c: c.observed_at)
    return Verdict(Action.LOSE, "consensus", f"majority for {best!r} ({table})", winner=winner.id, weights=all_weights)


def judged(reasoner: Reasoner, case: JudgeCase) -> Judgement:
    """The reasoner's judgement. A custom reasoner that fails raises a ReasonerError (the
    write's whole call changes nothing), not its own exception type."""
    try:
        return reasoner.judge(case)
    except VaultError:
        raise
    except Exception as exc:
        raise ReasonerError(f"the reasoner's judge failed: {type(exc).__name__}: {exc}") from exc


def from_judgement(incoming: Claim, conflicting: Sequence[Claim], judgement: Judgement, prior: Verdict) -> Verdict:
    """Turn the judge's answer into a verdict; an unknown winner id is an error."""
    base: dict[str, Any] = {"strategy": prior.strategy, "weights": prior.weights, "rationale": judgement.rationale}
    if judgement.winner is None:
        return Verdict(Action.DISPUTE, reason=f"{prior.reason}; judge: ambiguous ({judgement.rationale})", **base)
    if judgement.winner == incoming.id:
        return Verdict(Action.WIN, reason=f"{prior.reason}; judge chose the incoming claim: {judgement.rationale}",
                       **base)
    if judgement.winner in {c.id for c in conflicting}:
        return Verdict(
            Action.LOSE, reason=f"{prior.reason}; judge chose {judgement.winner}: {judgement.rationale}",
            winner=judgement.winner, **base,
        )
    raise ReasonerError(f"judge named claim {judgement.winner!r}, which is not in the case", answer=judgement)
