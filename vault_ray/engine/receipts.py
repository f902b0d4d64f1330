"""Receipts across partitions: a claim id already applied answers a retry with the decision
taken then, wherever its label resolved this time; the same id from another agent, or for
another fact, is refused (`Partition.decide`, `ClusterBackend.write_many`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vault_ray.storage.erase import ERASED
from vault_ray.storage.tables import keys_of

from ..errors import InvalidFact
from ..models import Decision, Fact
from .txn import Txn, WriteItem, decision_from_json

Partition = Any
"""A `Partition` (partition.py imports this module): its `log` and `lock` are read."""


def receipts_elsewhere(parts: Mapping[int, Partition], call: Mapping[int, Sequence[WriteItem]]) -> dict[int, dict[str, str]]:
    """For each partition of a call, the receipts other partitions hold for the ids given to
    its items (by the caller or an idempotency key): the id of a retry whose label resolved
    elsewhere this time, or an id reused for another entity. Taken before the call's locks
    (one partition's at a time): the filter in memory answers almost every id "not here"."""
    found: dict[int, dict[str, str]] = {}
    for p, items in call.items():
        given = [i.id for i in items if i.digest]
        held = receipts_held({q: part for q, part in list(parts.items()) if q != p}, given) if given else {}
        if held:
            found[p] = {i: receipt for i, (_, receipt) in held.items()}
    return found


def receipts_held(parts: Mapping[int, Partition], ids: Sequence[str]) -> dict[str, tuple[int, str]]:
    """id -> (partition, receipt) for the ids these partitions hold a receipt of (a shard's
    answer to `ClusterBackend.write_many`'s question before a write with given ids)."""
    keys, found = keys_of(ids), {}
    for p, part in list(parts.items()):
        maybe = part.log.may_hold(list(ids), keys)
        if maybe:
            with part.lock:
                found.update({i: (p, r) for i, r in part.log.receipts(maybe).items()})
    return found


def writers(held: Mapping[str, tuple[int, str]]) -> dict[str, str | None]:
    """id -> the agent whose write applied it, from `receipts_held`'s answer (None: a receipt
    written before receipts named their agent)."""
    return {i: decision_from_json(receipt)[1] for i, (_, receipt) in held.items()}


def charged(written_by: Callable[[list[str]], dict[str, str | None]], agent: str, facts: Sequence[Fact]) -> int:
    """The rate budget a write spends: one token per fact, except a fact whose claim id (given, or
    derived from an idempotency key) this agent's earlier write already applied: its retry is
    answered from the receipt and writes nothing (a timeout's retry never spends the budget twice)."""
    ids = [f.claim_id for f in facts if f.claim_id]
    done = written_by(ids) if ids else {}
    return sum(f.claim_id is None or done.get(f.claim_id) != agent for f in facts)


def decided_elsewhere(call: Mapping[int, Sequence[WriteItem]], given: Mapping[str, int], txns: Mapping[int, Txn],
                      found: dict[int, dict[str, str]]) -> dict[int, dict[str, str]]:
    """`found`, with the receipts an earlier call of the same group left in another partition's
    txn for the ids given to this call's items (two requests of one batch with one id)."""
    extra = {p: {i.id: txns[given[i.id]].receipts[i.id] for i in items
                 if i.digest and given.get(i.id, p) != p and i.id in txns[given[i.id]].receipts}
             for p, items in call.items()}
    return {p: {**found.get(p, {}), **extra.get(p, {})} for p in {*found, *extra} if found.get(p) or extra.get(p)}


def same_fact(item: WriteItem, agent: str | None, digest: str, decision: Decision | None = None) -> None:
    """A claim id already applied answers a retry with the decision taken then; from
    another agent, or for a fact that says something else (a reused id, or an idempotency
    key sent again with another body), it is no retry: refused, the call changes nothing.
    The id of an erased claim (`decision`: its receipt, which erasure emptied) stays taken:
    the erasure dropped what the fact said, so no write can be told it is that claim's retry,
    and none is applied again under it; refused too."""
    if agent is not None and agent != item.agent:
        raise InvalidFact(f"claim id {item.id!r} was written by another agent: a claim id names one fact; "
                          "leave it out to get a fresh one", field="claim_id", claim_id=item.id)
    if decision is not None and decision.reason == ERASED and decision.value is None:
        raise InvalidFact(f"claim id {item.id!r} belonged to a claim that was erased: an erased claim's id stays taken "
                          "and its write is not applied again; leave the id out to get a fresh one",
                          field="claim_id", claim_id=item.id)
    if digest and item.digest and digest != item.digest:
        raise InvalidFact(f"claim id {item.id!r} was already used for another fact (a retry must send the same "
                          "entity, text, value and kind; an idempotency key, the same body): leave the id out to get "
                          "a fresh one", field="claim_id", claim_id=item.id)
