"""A given claim id reused for another fact, found before any shard writes.

In cluster mode a call spanning shards is committed per shard; a reused id refused by
one shard left the call's other shards' facts applied, under a 422 that says nothing was
written. `ClusterBackend.write_many` already asks every shard for the receipts of the
call's given ids (a retry's receipt may live on another shard); this reads them first, so
a call with a reused id (another fact, or another agent's) is refused whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import VaultError
from .receipts import same_fact as _same_fact
from .txn import WriteItem, decision_from_json


def refused_reuse(calls: Sequence[Mapping[int, Sequence]], held: Mapping[str, tuple[int, str]]) -> list[VaultError | None]:  # type: ignore[type-arg]
    """Per call, the error for its first given id whose receipt (`held`: id -> (partition,
    receipt)) is another agent's or another fact's; None for a call that may go ahead."""
    out: list[VaultError | None] = []
    for call in calls:
        error = None
        for item in (i for items in call.values() for i in items if i.digest and i.id in held):
            decision, agent, digest = decision_from_json(held[item.id][1])
            try:
                _same_fact(item, agent, digest, decision)
            except VaultError as e:
                error = e
                break
        out.append(error)
    return out


def with_known(calls: Sequence[Mapping[int, Sequence[WriteItem]]], held: Mapping[str, tuple[int, str]]) -> list[Any]:
    """The calls with each item whose id another partition holds a receipt of carrying it
    (`WriteItem.known`): its own shard decides it as a retry, or refuses a reused id."""
    return [{p: [i._replace(known=held[i.id][1]) if i.digest and held.get(i.id, (p,))[0] != p else i for i in items]
             for p, items in call.items()} for call in calls]
