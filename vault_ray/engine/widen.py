"""Widening an entity's cardinality (`one` -> `many`): open disputes whose sides no longer contradict.

On a `one` entity any two values are at odds; on a `many` entity only values about the same item are
(`rules.contradicts`: "likes:jazz" / "dislikes:jazz", two holders of a single-valued role, a value and its
denial). When a policy change (or a registry entry) makes an entity `many`, an open dispute between
values that are two items now ("English" and "French" on `user.language`) no longer describes a
contradiction: it is closed keeping every value (`keep_both`, `decided_by="rule:cardinality"`, a
`dispute_resolved` event), as a person keeping both would. A dispute whose sides still contradict
as items stays open, and so does one that waits for a person (high stakes, or against a value a
person chose): only a person closes those. Both modes run it with the change (engine/stakes.py,
`announce_policy`), in every open partition (every one that holds data).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import DisputeError
from ..models import Dispute, Status, utcnow
from ..policy import Policy
from ..reasoners.rules import contradicts, normalized_value
from ..registry import EntityRegistry
from . import disputes, outlived
from .partitions import PartitionSet
from .txn import Txn

if TYPE_CHECKING:
    from .partition import Partition

RULE = "rule:cardinality"


def settle_widened(host: PartitionSet, old: Policy, new: Policy,
                   registries: tuple[EntityRegistry, EntityRegistry] | None = None,
                   partitions: Iterable[int] | None = None) -> list[Dispute]:
    """Close the open disputes of the entities the change from `old` to `new` (policy, and registry
    when given) widens whose sides no longer contradict (module docstring); the disputes closed,
    committed (durable when this returns)."""
    before, after = registries or (None, None)
    if (old.cardinality, old.default_cardinality) == (new.cardinality, new.default_cardinality) and (
            before is None or after is None or before.entries == after.entries):
        return []

    def widened(entity: str) -> bool:
        was = old.cardinality_for(entity, before.cardinality(entity) if before is not None else None)
        return was == "one" and new.cardinality_for(entity, after.cardinality(entity) if after is not None else None) == "many"

    out: list[Dispute] = []
    for part in host.opened(partitions):
        with part.lock:
            found = [d for d in part.state.open_disputes.values() if widened(d.entity)]
            if not found:
                continue
            txn = part.begin(utcnow())
            for d in sorted(found, key=lambda d: (d.opened_at, d.id)):
                txn.cardinality[d.entity] = "many"
                if disputes.waits_for_person(d, new) or not _apart(txn, part, d):
                    continue
                note = (f"{d.entity} is 'many' now: its values are items of their own, none contradicts another "
                        "(every value kept)")
                out.append(disputes.resolve(txn, d, None, RULE, note, keep_both=True))
            part.commit(txn)
    return out


def _apart(txn: Txn, part: Partition, d: Dispute) -> bool:
    """Whether no value of `d`'s challenger side contradicts one standing for its incumbents, nor any
    other active value of the entity, as `many` items; nor would keeping both leave two holders of a
    single-valued role or a value beside its denial (the refusals of `keep_both`)."""
    backers = [txn.claim(i) for i in (d.challenger, *d.supporters) if txn.known(i) and txn.claim(i).status.live]
    standing = outlived.places(txn, d)
    if not backers or not standing:
        return False
    others = [c for c in txn.live_on(d.entity) if c.status == Status.ACTIVE]
    if any(contradicts(normalized_value(b), normalized_value(c), "many") for b in backers for c in [*standing, *others]):
        return False
    try:
        part._no_two_holders(txn, d)  # the partition's own refusal of keep_both
    except DisputeError:
        return False
    return True
