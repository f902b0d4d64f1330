"""A dispute as a reader sees it under the policy in force: on an entity the policy calls
high stakes, an open dispute waits for a person (`needs_user`), whenever the pattern was
added. The engine decides by the current policy (`disputes.waits_for_person`: no rule or
strategy closes such a dispute from the moment the pattern is in the policy), so every read
says so too (`dispute`, `disputes`, an entity's view, the inbox, MCP and HTTP), in embedded
and cluster mode alike, without waiting for the dispute to be touched again.

Both ways: a pattern removed again no longer makes a dispute wait, for the engine and for
reads, unless the dispute itself was flagged (`needs_user` stored: opened on the entity while
it was high stakes, challenged again meanwhile, or against a value a person chose). A
resolved dispute reads as it was settled.

A policy change that alters how an open dispute reads (it waits for a person now, or no longer)
is published as one `dispute_changed` event per such dispute (`announce`), on the normal event
path: `events()`, the HTTP event stream, webhooks (`needs_user_only` too) and the inbox see it
at once. The event carries `needs_user` as the dispute reads now, `reason` `high_stakes` (now
waits) or `high_stakes_lifted` (no longer), the `pattern` that makes (or made) it high stakes and
the `policy_version`; the dispute as stored is unchanged (its record in the event is the stored
one), so `as_of` and history read as before and removing the pattern again still undoes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..models import Dispute, DisputeStatus, EntityView, utcnow
from ..policy import Policy, specificity
from ..registry import EntityRegistry
from . import widen
from .partitions import PartitionSet
from .txn import Txn

NOW_WAITS, NO_LONGER = "high_stakes", "high_stakes_lifted"
"""The `reason` of the `dispute_changed` event a policy change publishes (`announce`)."""


def as_read(d: Dispute, policy: Policy) -> Dispute:
    """`d`, flagged `needs_user` when it is open on an entity `policy` calls high stakes."""
    if d.status == DisputeStatus.OPEN and not d.needs_user and policy.is_high_stakes(d.entity):
        return replace(d, needs_user=True)
    return d


def all_read(disputes: Iterable[Dispute], policy: Policy) -> list[Dispute]:
    """`as_read` of each dispute, in order."""
    return [as_read(d, policy) for d in disputes]


def views_read(views: dict[str, EntityView], policy: Policy) -> dict[str, EntityView]:
    """Each view with its open disputes `as_read`."""
    return {e: v if not v.disputes else replace(v, disputes=tuple(all_read(v.disputes, policy)))
            for e, v in views.items()}


def covering_pattern(policy: Policy, entity: str) -> str | None:
    """The most specific pattern of `policy.high_stakes` that covers `entity`."""
    scored = [(score, p) for p in policy.high_stakes if (score := specificity(p, entity)) is not None]
    return max(scored)[1] if scored else None


def changed_reads(disputes: Iterable[Dispute], old: Policy, new: Policy) -> list[tuple[Dispute, bool]]:
    """The disputes that read otherwise under `new` than under `old`, each with how it reads now
    (`needs_user`)."""
    return [(d, now) for d in disputes
            if (now := as_read(d, new).needs_user) != as_read(d, old).needs_user]


def announce(txn: Txn, disputes: Iterable[Dispute], old: Policy, new: Policy) -> list[Dispute]:
    """One `dispute_changed` event for each of `disputes` (as stored) whose reading the change from
    `old` to `new` alters; the disputes announced."""
    out = []
    for d, waits in changed_reads(disputes, old, new):
        pattern = covering_pattern(new if waits else old, d.entity)
        why = (f"the policy calls {d.entity} high stakes now ({pattern!r}): a person decides" if waits else
               f"the policy no longer calls {d.entity} high stakes ({pattern!r} removed): no longer waits for a person")
        txn.dispute_event(d, "dispute_changed", agent=None, claim_id=d.challenger, needs_user=waits,
                          challenges=d.challenges, reason=NOW_WAITS if waits else NO_LONGER, pattern=pattern,
                          policy_version=new.version, note=why)
        out.append(d)
    return out


def announce_policy(host: PartitionSet, old: Policy, new: Policy, partitions: Iterable[int] | None = None,
                    registries: tuple[EntityRegistry, EntityRegistry] | None = None) -> list[Dispute]:
    """`announce` the policy change from `old` to `new` in each open partition (among `partitions`),
    committed like any change (durable when this returns); the disputes announced. First, disputes
    the change widens to `many` whose sides no longer contradict are closed (widen.py; `registries`:
    the registry before and after, when the change may be one of it)."""
    widen.settle_widened(host, old, new, registries, partitions)
    if set(old.high_stakes) == set(new.high_stakes):
        return []  # nothing else changes how a dispute reads
    out: list[Dispute] = []
    for part in host.opened(partitions):
        with part.lock:
            if not changed_reads(part.state.open_disputes.values(), old, new):
                continue
            txn = part.begin(utcnow())
            out += announce(txn, list(part.state.open_disputes.values()), old, new)
            part.commit(txn)
    return out
