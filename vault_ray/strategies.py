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
from .reasoners.judging import grouped
from .reasoners.rules import agrees, at_odds, normalized_value


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
    cardinality: str = "one",
) -> Verdict:
    """Decide a contradiction. `pool` holds every active or disputed claim on the
    entity (consensus counts support in it; `cardinality` tells it which values agree)."""
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
        return consensus(incoming, conflicting, policy, pool, weights, cardinality)
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
    incoming: Claim, conflicting: Sequence[Claim], policy: Policy, pool: Sequence[Claim], weights: dict[str, float],
    cardinality: str = "one",
) -> Verdict:
    """Support per side: the incoming value against the conflicting ones (those that agree
    with each other one side), each side counting every agent that says its value, in its
    words or others that agree (`rules.agrees`: "mom:ann" and "mother:ann lee" back
    "mother:ann"; a pool claim that agrees with two sides backs neither, and none backs a side
    holding a claim at odds with it). A side is shown by the claim that wins for it: the
    incoming one, or the side's newest conflicting claim."""
    sides = _sides(incoming, conflicting, cardinality)
    heads = [incoming, *(max(side, key=_newest) for side in sides[1:])]  # of the incoming and conflicting claims
    said = [list(side) for side in sides]  # a pool claim is matched to these, never to another pool claim
    for c in pool:
        at = _side_of(c, said, cardinality)
        if at is not None and all(c.id != m.id for m in sides[at]):
            sides[at].append(c)
    entity = incoming.entity
    rows = []
    for head, side in zip(heads, sides, strict=True):
        agents = {c.agent for c in side}
        rows.append((head, sum(policy.weight(a, entity) for a in agents), agents, side))
    ranked = sorted(rows, key=lambda r: r[1], reverse=True)
    (head, top, _, _), second = ranked[0], ranked[1][1]
    table = ", ".join(f"{normalized_value(h)!r}{_also(h, side)}: {w:.2f} from {len(a)} agent(s)" for h, w, a, side in ranked)
    all_weights = {**weights, **weights_of([c for side in sides for c in side], policy)}
    if top - second < policy.consensus_margin or top == second:
        return Verdict(
            Action.DISPUTE, "consensus", f"no clear majority ({table}; margin {policy.consensus_margin:g})",
            weights=all_weights,
        )
    if head is incoming:
        return Verdict(Action.WIN, "consensus", f"majority for the incoming value ({table})", weights=all_weights)
    return Verdict(Action.LOSE, "consensus", f"majority for {normalized_value(head)!r} ({table})", winner=head.id,
                   weights=all_weights)


def _newest(c: Claim) -> tuple[datetime, datetime, str]:
    return c.observed_at, c.recorded_at, c.id


def _sides(incoming: Claim, conflicting: Sequence[Claim], cardinality: str) -> list[list[Claim]]:
    """[incoming], then the conflicting claims grouped: those whose values agree (directly or
    through another of them) are one side, whatever order they come in (the judge's sides too),
    never two claims at odds (`rules.at_odds`). A vaguer claim that agrees with two sides at odds
    ("maria" beside "maria gonzalez" and "maria lopez") backs neither, as a pool claim does (`_side_of`)."""
    def together(a: Claim, b: Claim) -> bool:
        return agrees(a.entity, normalized_value(a), normalized_value(b), cardinality)

    def apart(a: Claim, b: Claim) -> bool:
        return at_odds(a.entity, normalized_value(a), normalized_value(b), cardinality)

    groups = grouped(conflicting, together, apart)
    shared = [c for c in conflicting if sum(any(c is m for m in g) for g in groups) > 1]
    sides = ([m for m in g if all(m is not s for s in shared)] for g in groups)
    return [[incoming], *(side for side in sides if side)]


def _side_of(c: Claim, sides: list[list[Claim]], cardinality: str) -> int | None:
    """The side a pool claim backs: the one saying its very value, else the only one whose
    value it agrees with; None for none (another item) or for two (it takes no side). Never a
    side holding a claim at odds with it ("maria lopez" does not back "maria gonzalez" through a
    vaguer "maria" on that side)."""
    value = normalized_value(c)
    said = [{normalized_value(m) for m in side} for side in sides]
    fits = [i for i, values in enumerate(said) if not any(at_odds(c.entity, value, v, cardinality) for v in values)]
    exact = [i for i in fits if value in said[i]]
    if exact:
        return exact[0]
    close = [i for i in fits if any(agrees(c.entity, value, v, cardinality) for v in said[i])]
    return close[0] if len(close) == 1 else None


def _also(head: Claim, side: Sequence[Claim]) -> str:
    """The side's other words for its value ("mom:ann" beside "mother:ann"), for the tally."""
    others = sorted({normalized_value(c) for c in side} - {normalized_value(head)})
    return f" (also {', '.join(map(repr, others))})" if others else ""


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
