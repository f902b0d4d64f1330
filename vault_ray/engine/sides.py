"""Who stands on each side of an open dispute, and a reason that follows them (docs/policies.md,
"A reason follows its sides").

A dispute's `reason` is the strategy's reason about the claims it judged ("chat (0.20) does not
outweigh scheduler (0.90)"), perhaps wrapped by why a person decides ("'EST' was chosen by user
(...) (authority: ...)"), perhaps followed by what changed since (`SINCE`). When the claims on a
side change (the challenger withdrawn or retracted and a supporter holding the challenge, a new
supporter, an incumbent retracted or erased and other claims standing in its place, a new backer
of the standing value), `restated` states it again about the sides as they stand now:

- the challenger side is shown by its `head`: under authority its heaviest backer (the one that
  could outweigh), else its newest (the side's latest word, as `outlived.reconsider` asks);
- the incumbent side by the claims standing for it (`places`);
- the strategy gives the reason (never the judge: it is asked once per dispute, and its answer
  names no agent); a dispute no person waits for takes that reason whole, one that waits for a
  person has the strategy's part of its reason replaced, the rest (who decides, what changed since)
  kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .. import strategies
from ..models import Claim, Dispute, Status
from ..policy import Policy
from ..reasoners.rules import contradicts, normalized_value
from ..strategies import Action
from . import tally
from .txn import Txn

Lookup = Callable[[str], Claim | None]
SINCE = "; since then "
"""Where a reason says what took an incumbent's place (cut off when it changes again)."""


def _stored(txn: Txn, cid: str) -> Claim | None:
    found = txn.stored([cid]).get(cid)
    return found[0] if found is not None else None


def chain(txn: Txn, cid: str, lookup: Lookup | None = None) -> list[Claim]:
    """`cid` and the claims that replaced it in turn (`superseded_by`), up to the first that is not superseded."""
    out: list[Claim] = []
    hops: str | None = cid
    for _ in range(32):
        if hops is None:
            break
        claim = txn.claim(hops) if txn.known(hops) else (lookup or (lambda i: _stored(txn, i)))(hops)
        if claim is None:
            break
        out.append(claim)
        if claim.status != Status.SUPERSEDED:
            break
        hops = claim.superseded_by
    return out


def places(txn: Txn, d: Dispute, lookup: Lookup | None = None) -> list[Claim]:
    """The active claims that stand for `d`'s incumbents: an active incumbent itself, else the active
    claim at the end of its chain of replacements. Those of the dispute's other side never."""
    backers, out = {d.challenger, *d.supporters}, {}
    for cid in d.incumbents:
        last = chain(txn, cid, lookup)[-1:]
        if last and last[0].status == Status.ACTIVE and last[0].id not in backers:
            out[last[0].id] = last[0]
    return list(out.values())


def head(txn: Txn, d: Dispute, policy: Policy, *, live: bool = True) -> Claim | None:
    """The claim that shows `d`'s challenger side: under authority its heaviest backer (the first
    of equals, the challenger before its supporters), else its newest. `live=False`: as the side
    stood, claims since withdrawn or retracted among them."""
    backers = [txn.claim(i) for i in (d.challenger, *d.supporters)
               if txn.known(i) and (not live or txn.claim(i).status.live)]
    if not backers:
        return None
    if policy.strategy_for(d.entity) == "authority":
        return max(backers, key=lambda c: policy.weight(c.agent, d.entity))
    return max(backers, key=strategies.ordered_at)


def _stood(txn: Txn, d: Dispute, lookup: Lookup | None) -> list[Claim]:
    """`d`'s incumbent side as it stood: each incumbent, or the active claim in its place, whatever
    became of them since (a retracted one among them)."""
    out: dict[str, Claim] = {}
    for i in d.incumbents:
        last = chain(txn, i, lookup)[-1:]
        if last and last[0].status == Status.ACTIVE and last[0].id not in {d.challenger, *d.supporters}:
            out[last[0].id] = last[0]
        elif txn.known(i):
            out[i] = txn.claim(i)
    return list(out.values())


def _reason(txn: Txn, d: Dispute, policy: Policy, lookup: Lookup | None,
            *, live: bool = True) -> tuple[Action, str] | None:
    """The strategy's verdict about `d`'s sides (None when the judge would be asked, or a side is empty)."""
    top = head(txn, d, policy, live=live)
    if top is None:
        return None
    card = txn.cardinality.get(d.entity, "one")
    against = places(txn, d, lookup) if live else _stood(txn, d, lookup)
    against = [c for c in against if contradicts(normalized_value(top), normalized_value(c), card)]
    if not against:
        return None
    pool = tally.assertions(txn, d.entity) if policy.strategy_for(d.entity) == "consensus" else txn.live_on(d.entity)
    verdict = strategies.decide(top, against, policy, pool=pool, cardinality=card)
    return None if verdict.action == Action.ASK_JUDGE else (verdict.action, verdict.reason)


def restated(txn: Txn, before: Dispute, after: Dispute, policy: Policy, lookup: Lookup | None = None) -> Dispute:
    """`after` (`before` once a side changed) with its reason about the sides as they stand now
    (module docstring); `after` as it is when there is nothing to restate."""
    now = _reason(txn, after, policy, lookup)
    if now is None:
        return after
    base, cut, rest = after.reason.partition(SINCE)
    if not (after.needs_user or policy.is_high_stakes(after.entity)):  # the strategy's reason, whole
        action, reason = now
        return replace(after, reason=f"{reason}{cut}{rest}") if action == Action.DISPUTE and reason != base else after
    was = _reason(txn, before, policy, lookup, live=False)
    if was is None or was[1] == now[1] or was[1] not in base:
        return after
    at = base.rindex(was[1])
    return replace(after, reason=f"{base[:at]}{now[1]}{base[at + len(was[1]):]}{cut}{rest}")
