"""A write to an entity the partition holds nothing live on and no dispute about (most
of a bulk load of new entities): what `Partition.decide`'s steps come to then, without
walking them.

With no live claim and no open dispute on the entity (committed, or earlier in the
txn), every step of the general path finds nothing: no dispute to flag (`asked.flag_for`,
before and after), no parked claim of the agent's to withdraw (`disputes.withdraw_challenge`),
no own or other claim to compare (`Partition._write_one` adds the claim with the
`claim_added` detail `NEW_DETAIL`), nothing superseded (`outlived.after_write`). The
decision carries the fact's value, as `Txn.valued` gives it. `untouched` says when that
holds; anything else takes the general path.
"""

from __future__ import annotations

from ..models import Claim, Decision, Kind, Op, Outcome, Status
from ..reasoners.base import OwnVerdict
from .state import PartitionState
from .txn import Txn, WriteItem

NEW = OwnVerdict(Op.ADD, (), "new for this agent")
"""Pass 1 when the agent has no active claim on the entity."""
NEW_DETAIL = {"pass": 2, "op": str(Op.ADD), "own_reason": NEW.reason, "reason": NEW.reason}
"""The `claim_added` event's detail for a claim on an entity with no live claim (pass 2 found nothing)."""
_KINDS = {k.value: k for k in Kind}


def untouched(state: PartitionState, txn: Txn, item: WriteItem) -> bool:
    """Whether `item` is a claim (not an event) on an entity with no live claim and no dispute,
    neither committed nor in `txn`, nor one a person resolved: `write_new` decides it as the general path would."""
    entity = item.entity
    if item.kind == Kind.EPISODIC or state.live_ids(entity) or state.open_dispute_ids(entity) or txn.on_entity(entity):
        return False
    if txn.decided_disputes(entity):  # emptied after a person's decision: a rejected value waits (decided.py)
        return False
    return not txn.disputes or all(d.entity != entity for d in txn.disputes.values())


def write_new(txn: Txn, item: WriteItem) -> Decision:
    """Add `item`'s claim, active, with no vector on the object (the txn keeps it beside: the
    partition's memory keeps none); its decision with the fact's value."""
    txn.cardinality[item.entity] = item.cardinality
    # positional, in the fields' order (keywords cost a third of the call): id, entity, text, value, kind, agent,
    # session, observed_at, recorded_at, status, supersedes, superseded_by, confidence, meta, aligned_from,
    # embedding, source
    claim = Claim(item.id, item.entity, item.text, item.value, _KINDS[item.kind], item.agent, item.session,
                  item.observed_at, txn.now, Status.ACTIVE, (), None, item.confidence, item.meta, item.aligned_from,
                  None, item.source)
    txn.add(claim, NEW_DETAIL, vector=item.vector)
    # entity, op, outcome, claim_id, aligned_from, superseded, dispute_id, strategy, reason, value
    return Decision(item.entity, Op.ADD, Outcome.ACTIVE, item.id, item.aligned_from, (), None, None, NEW.reason, item.value)
