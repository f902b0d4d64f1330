"""Another agent's write that backs the standing side of an open dispute.

While `wife:Ann` (the incumbent) and `wife:Bea` (the challenger) are in dispute, another agent's
`wife:Ann`, or the same in other words (`rules.agrees`: "spouse:Ann", "wife:Ann Lee" on a `many`
entity, "Ann Lee" for "Ann" on a `one` entity), contradicts no active claim: it is stored
`active`, beside the incumbent. It is still about what the dispute is about, so it joins the
dispute on that side: it is named among its incumbents (published as `dispute_changed`, detail
`backs`), reads list it with the dispute's id (`contested`), and a resolution for the challenger
supersedes it as it does the incumbent; one for the incumbent keeps it. A repeat of the
challenger's value is support of the challenge instead (`disputes.repeated_challenge`).
"""

from __future__ import annotations

from dataclasses import replace

from ..models import Claim, Decision, Dispute, Status
from ..policy import Policy
from ..reasoners.rules import agrees, normalized_value
from . import outlived, sides
from .txn import Txn


def join(txn: Txn, incoming: Claim, policy: Policy) -> list[Dispute]:
    """The open disputes on `incoming`'s entity whose standing side `incoming` (stored active)
    says, in its words or others, with `incoming` added to their incumbents."""
    card, value, out = txn.cardinality.get(incoming.entity, "one"), normalized_value(incoming), []
    for d in txn.open_disputes_on(incoming.entity):
        if incoming.id in (*d.incumbents, d.challenger, *d.supporters) or not txn.known(d.challenger):
            continue
        standing = [txn.claim(i) for i in d.incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE]
        backers = [txn.claim(i) for i in (d.challenger, *d.supporters) if txn.known(i)]
        if not any(agrees(d.entity, value, normalized_value(c), card) for c in standing):
            continue
        if any(agrees(d.entity, value, normalized_value(c), card) for c in backers):
            continue  # it says both sides (a name and a fuller one): no side to take
        joined = sides.restated(txn, d, replace(d, incumbents=(*d.incumbents, incoming.id)), policy)
        txn.put_dispute(joined, "dispute_changed", agent=incoming.agent, claim_id=incoming.id,
                        challenges=joined.challenges, backs=standing[0].id,
                        reason="another agent says the standing value")
        out.append(joined)
    return out


def back_and_settle(txn: Txn, incoming: Claim, policy: Policy) -> tuple[list[Dispute], tuple[str, ...], Dispute | None]:
    """`join`, then `outlived.settle_for_incumbents` (under consensus its support may settle them):
    the disputes settled, the claims their settlement superseded, and the first dispute it joined."""
    joined = join(txn, incoming, policy) if txn.known(incoming.id) and txn.claim(incoming.id).status == Status.ACTIVE else []
    settled, gone = outlived.settle_for_incumbents(txn, incoming.entity, policy, incoming.id)
    return settled, gone, (joined[0] if joined else None)


def backing(decision: Decision, joined: Dispute | None) -> Decision:
    """`decision` naming the dispute its claim joined, and why (unless a settlement names one)."""
    if joined is None or decision.dispute_id is not None:
        return decision
    return replace(decision, dispute_id=joined.id,
                   reason=f"{decision.reason}; backs the standing value of open dispute {joined.id}")
