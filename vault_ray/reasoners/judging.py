"""The offline judge (`RuleReasoner.judge`): it weighs sides, not single claims.

A side is a value together with the claims that say it in other words (`rules.agrees`, the
notion by which consensus groups its tally: "maria" / "maria gonzalez", "mom:ann" /
"mother:ann"), never two claims at odds (`rules.at_odds`): a vaguer "maria" beside "maria
gonzalez" and "maria lopez" is on both their sides and joins neither to the other. A side is
as strong as its heaviest agent and as confident as its most confident claim. The incoming
claim's side is set against each other side of the case:

1. authority: the strongest other side outweighs it by `GAP` or more (it wins), or it
   outweighs every other side by `GAP` or more (the incoming claim wins);
2. else confidence, among the sides no side clearly outweighs (neither the incoming side nor
   another: a light side that a heavier incumbent outweighs by `GAP` never wins by its
   confidence): it is more confident than all of them by `GAP` or more (it wins), or one of
   them is more confident than it by `GAP` or more (that side wins);
3. else ambiguous (a dispute).

So two agreeing 0.9-weight agents against a 0.1-weight one are a gap of 0.8, whatever
confidence the light agent gives itself: confidence, which the writer sets, only decides
between sides of about the same authority."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..models import Claim
from .base import JudgeCase, Judgement

GAP = 0.2
"""A clear authority or confidence gap (weights and confidences are in [0, 1])."""


def grouped(claims: Sequence[Claim], together: Callable[[Claim, Claim], bool],
            at_odds: Callable[[Claim, Claim], bool] = lambda a, b: False) -> list[list[Claim]]:
    """`claims` in sides: those that are `together` (directly or through another of them) are
    one side, whatever order they come in; but never two claims `at_odds`. A claim together with
    two that are at odds (a vaguer value: "maria" beside "maria gonzalez" and "maria lopez")
    links no sides: it is on each side it is together with and at odds with none of."""
    def bridges(c: Claim) -> bool:
        near = [m for m in claims if m is not c and together(c, m)]
        return any(at_odds(a, b) for i, a in enumerate(near) for b in near[i + 1:])

    groups: list[list[Claim]] = []
    links = [c for c in claims if bridges(c)]
    for c in claims:
        if any(c is b for b in links):
            continue
        joined = [g for g in groups if any(together(c, m) for m in g) and not any(at_odds(c, m) for m in g)]
        merged = [c]
        for g in joined:  # a chain of firm claims that would hold two at odds stays apart
            if not any(at_odds(m, n) for m in g for n in merged):
                merged = [*g, *merged]
                groups = [h for h in groups if h is not g]
        groups.append(merged)
    for c in links:
        homes = [g for g in groups if any(together(c, m) for m in g) and not any(at_odds(c, m) for m in g)]
        for g in homes:
            g.append(c)
        if not homes:
            groups.append([c])
    return [sorted(g, key=lambda m: next(i for i, c in enumerate(claims) if c is m)) for g in groups]


def judge_sides(case: JudgeCase, together: Callable[[Claim, Claim], bool],
                at_odds: Callable[[Claim, Claim], bool] = lambda a, b: False) -> Judgement:
    """The judgement of `case` by sides (module docstring); `together` tells agreeing claims,
    `at_odds` the claims that may not both stand (never one side, `grouped`)."""
    def weight(c: Claim) -> float:
        return case.weights.get(c.agent, 0.0)

    def strength(side: list[Claim]) -> float:
        return max(weight(c) for c in side)

    def confidence(side: list[Claim]) -> float:
        return max(c.confidence for c in side)

    sides = grouped((case.incoming, *case.incumbents), together, at_odds)
    ours = [s for s in sides if any(c is case.incoming for c in s)]  # two when it is a vaguer value of both
    mine: list[Claim] = []
    for c in (m for s in ours for m in s):
        if all(c is not d for d in mine):
            mine.append(c)
    theirs = [s for s in sides if all(s is not o for o in ours)]
    if not theirs:
        return Judgement(None, "the claims agree: no side to choose")
    strongest = max(theirs, key=strength)
    gap = _clear(strength(strongest) - strength(mine))
    if gap >= GAP:
        head = max(strongest, key=lambda c: (weight(c), c.confidence))
        return Judgement(head.id, f"{head.agent} has clearly more authority ({gap:+.2f}): "
                                  f"{_support(strongest, strength)} against {_support(mine, strength)}")
    if -gap >= GAP:
        return Judgement(case.incoming.id, f"{case.incoming.agent} has clearly more authority ({-gap:+.2f}): "
                                           f"{_support(mine, strength)} against {_support(strongest, strength)}")
    # the sides that no side clearly outweighs: a confident light side never beats a heavy one
    contenders = [s for s in theirs if all(_clear(strength(o) - strength(s)) < GAP for o in (mine, *theirs))]
    surest = max(contenders, key=confidence)
    lead = _clear(confidence(mine) - confidence(surest))
    if lead >= GAP:
        return Judgement(case.incoming.id, f"{case.incoming.agent} is clearly more confident ({lead:+.2f}) "
                                           f"and about as authoritative")
    if -lead >= GAP:
        head = max(surest, key=lambda c: (c.confidence, weight(c)))
        return Judgement(head.id, f"{head.agent} is clearly more confident ({-lead:+.2f}) and about as authoritative")
    return Judgement(None, "no clear authority or confidence gap between the sides")


def _clear(gap: float) -> float:
    """`gap` rounded: 0.3 - 0.1 is a gap of 0.2 (0.19999999999999998 in floating point)."""
    return round(gap, 9)


def _support(side: list[Claim], strength: Callable[[list[Claim]], float]) -> str:
    agents = ", ".join(sorted({c.agent for c in side}))
    return f"{strength(side):.2f} for the side of {agents}"
