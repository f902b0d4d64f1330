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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..models import Dispute, DisputeStatus, EntityView
from ..policy import Policy


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
