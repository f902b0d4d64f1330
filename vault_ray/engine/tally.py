"""Who asserts what on an entity, for the consensus strategy.

Consensus counts every agent that asserted a value, once, by its newest claim on the
entity: the live claims, and also the claims consensus itself superseded (outvoted
then, they still count when more agents join them, so a growing majority can flip the
value). A claim its own agent replaced counts no more (the agent changed its mind),
and neither does one that a person or a rule resolved against: only a consensus
verdict is ever revisited by a later count.
"""

from __future__ import annotations

from typing import Any

from ..models import Claim, Kind, Status
from ..reasoners.rules import normalized_value
from .txn import Txn

CLAIM_EVENTS = ("claim_added", "status_changed")


def assertions(txn: Txn, entity: str) -> list[Claim]:
    """Each agent's newest claim on `entity` that still asserts its value (see above)."""
    stored, events = txn.entity_log(entity)
    claims = {c.id: c for c in stored if c.entity == entity and c.kind != Kind.EPISODIC}  # events assert no value
    claims.update({cid: c for cid, c in txn.claims.items() if c.entity == entity and c.kind != Kind.EPISODIC})
    claims.update({c.id: c for c in txn.live_on(entity)})
    outvoted: dict[str, bool] = {}
    for e in [*events, *(e for e in txn.events if e.entity == entity)]:
        if e.claim_id is not None and e.kind in CLAIM_EVENTS and e.status is not None:
            outvoted[e.claim_id] = e.status == Status.SUPERSEDED and e.detail.get("strategy") == "consensus"
    newest: dict[str, Claim] = {}
    for c in sorted(claims.values(), key=lambda c: (c.observed_at, c.recorded_at)):
        newest[c.agent] = c
    return [c for c in newest.values() if c.status.live or outvoted.get(c.id, False)]


def flipped(txn: Txn, winner: Claim, beaten: list[Claim], reason: str) -> None:
    """The majority turned against the current value: an event naming the new value's
    claim, the claims it beat and the tally (`explain` shows it); the outvoted claims of
    the new value, which the tally counted, are active again."""
    txn.event(winner.entity, "consensus_flipped", claim_id=winner.id, agent=winner.agent, strategy="consensus",
              reason=reason, beaten=[c.id for c in beaten])
    restore_backers(txn, winner.entity, normalized_value(winner), agent=winner.agent, strategy="consensus",
                    reason=f"its value won: {reason}")


def restore_backers(txn: Txn, entity: str, value: str, *, agent: str | None, **detail: Any) -> list[str]:
    """The claims consensus outvoted that say `value` (the tally still counts them) become
    active again now that `value` won: an agent that backed the winner is read as backing
    it (`get`, the hits' `agreeing`), not as overruled. Returns their ids."""
    back = []
    for c in assertions(txn, entity):
        if c.status == Status.SUPERSEDED and normalized_value(c) == value and txn.revive(c.id):
            txn.set_status(c.id, Status.ACTIVE, None, agent=agent, **detail)
            back.append(c.id)
    return back
