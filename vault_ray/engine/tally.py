"""Who asserts what on an entity, for the consensus strategy.

Consensus counts every agent that asserted a value, once, by its newest claim on the
entity: the live claims, and also the claims consensus itself superseded (outvoted
then, they still count when more agents join them, so a growing majority can flip the
value). A claim its own agent replaced counts no more (the agent changed its mind),
and neither does one that a person or a rule resolved against: only a consensus
verdict is ever revisited by a later count.

On a `many` entity the vote is per item (`reasoners.rules.same_item`, the notion by which
an agent's later claim replaces its own earlier one): an agent's vote on the wife is its
newest claim about the wife, whatever it said since about a child or a dog.
"""

from __future__ import annotations

from typing import Any

from ..models import Claim, Kind, Status
from ..policy import Policy
from ..reasoners.rules import agrees, at_odds, normalized_value, same_item
from .txn import Txn

CLAIM_EVENTS = ("claim_added", "status_changed")


def pool(txn: Txn, incoming: Claim, live: list[Claim], retracted: set[str], policy: Policy) -> list[Claim]:
    """The claims a strategy may count against `incoming`: the live ones but those its agent
    retracted; for consensus, every other agent's standing assertion (`assertions`)."""
    if policy.strategy_for(incoming.entity) != "consensus" or policy.is_high_stakes(incoming.entity):
        return [c for c in live if c.id not in retracted]
    return [c for c in assertions(txn, incoming.entity) if c.id not in retracted and c.agent != incoming.agent]


def assertions(txn: Txn, entity: str) -> list[Claim]:
    """Each agent's newest claim on `entity` (per item on a `many` entity) that still asserts
    its value (see above). An entity whose cardinality the txn does not know (the stale rule)
    is counted as `one`: an agent's newest claim on it."""
    stored, events = txn.entity_log(entity)
    claims = {c.id: c for c in stored if c.entity == entity and c.kind != Kind.EPISODIC}  # events assert no value
    claims.update({cid: c for cid, c in txn.claims.items() if c.entity == entity and c.kind != Kind.EPISODIC})
    claims.update({c.id: c for c in txn.live_on(entity)})
    outvoted: dict[str, bool] = {}
    for e in [*events, *(e for e in txn.events if e.entity == entity)]:
        if e.claim_id is not None and e.kind in CLAIM_EVENTS and e.status is not None:
            outvoted[e.claim_id] = e.status == Status.SUPERSEDED and e.detail.get("strategy") == "consensus"
    many = txn.cardinality.get(entity) == "many"
    votes: dict[str, list[tuple[str, Claim]]] = {}  # agent -> (value, its newest claim) per item
    for c in sorted(claims.values(), key=lambda c: (c.observed_at, c.recorded_at)):
        value = normalized_value(c)
        mine = votes.setdefault(c.agent, [])
        mine[:] = [(v, o) for v, o in mine if many and not same_item(value, v)]
        mine.append((value, c))
    return [c for mine in votes.values() for _, c in mine if c.status.live or outvoted.get(c.id, False)]


def flipped(txn: Txn, winner: Claim, beaten: list[Claim], reason: str) -> None:
    """The majority turned against the current value: an event naming the new value's
    claim, the claims it beat and the tally (`explain` shows it); the outvoted claims of
    the new value, which the tally counted, are active again."""
    txn.event(winner.entity, "consensus_flipped", claim_id=winner.id, agent=winner.agent, strategy="consensus",
              reason=reason, beaten=[c.id for c in beaten])
    restore_backers(txn, winner.entity, normalized_value(winner), agent=winner.agent, strategy="consensus",
                    reason=f"its value won: {reason}")


def restore_backers(txn: Txn, entity: str, value: str, *, agent: str | None, **detail: Any) -> list[str]:
    """The claims consensus outvoted that say `value`, in its words or others that agree
    (`rules.agrees`: "mom:ann" for "mother:ann"; the tally still counts them), become active
    again now that `value` won: an agent that backed the winner is read as backing it (`get`,
    the hits' `agreeing`), not as overruled. One that would contradict an active claim ("mother:
    ann lee" beside a revived "mother:ann smith") stays as it is. Returns their ids."""
    card = txn.cardinality.get(entity, "one")
    active = [normalized_value(c) for c in txn.live_on(entity) if c.status == Status.ACTIVE]
    back = []
    for c in assertions(txn, entity):
        mine = normalized_value(c)
        if (c.status == Status.SUPERSEDED and agrees(entity, mine, value, card)
                and not any(at_odds(entity, mine, a, card) for a in active) and txn.revive(c.id)):
            txn.set_status(c.id, Status.ACTIVE, None, agent=agent, **detail)
            back.append(c.id)
            active.append(mine)
    return back

