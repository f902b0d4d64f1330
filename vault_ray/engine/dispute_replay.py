"""A dispute as it stood at a past moment, rebuilt from the event log (`as_of` reads).

The disputes table keeps each dispute as it stands *now*: a later retraction, a
withdrawn challenge or a new supporter rewrites its challenger, incumbents and
supporters in place. Point-in-time reads must not see those later changes, so every
change of a dispute (`Txn.put_dispute`: `dispute_opened`, `dispute_challenged`,
`dispute_resolved`) records the whole dispute as it stood after the change in its
event's detail (`STATE`, `record`). The dispute at `t` is the record of its last
event at or before `t`; it did not exist before its `dispute_opened` event.

Events written before records were kept (older stores) are replayed from what they
say (`DisputeTrack._legacy`): the challenger is the opening event's claim, a
repeated challenge by a new agent adds its claim as a supporter, a withdrawn or
retracted backer hands the challenge to the next one, a retracted incumbent leaves
the list at its retraction (and is in it before), `needs_user` and `challenges` are
the events', the resolution is the `dispute_resolved` event's. What such events do
not say (the claims a retraction put in a retracted incumbent's place) comes from
the stored row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..models import Dispute, DisputeStatus, Event, Resolution, from_epoch, to_epoch

STATE = "dispute_state"
"""The key of the dispute's record in a dispute event's detail (`dispute` names its id in
claim events: `events.to_public`)."""
KINDS = ("dispute_opened", "dispute_challenged", "dispute_changed", "dispute_resolved")
CHANGES = ("dispute_challenged", "dispute_changed")
"""A challenge again, or a member retracted or withdrawn (before `dispute_changed`, a challenge
event carried those too)."""


def record(d: Dispute) -> dict[str, Any]:
    """The dispute as JSON the event log keeps (every field but its id and entity, which
    the event row has)."""
    r = d.resolution
    return {
        "challenger": d.challenger, "incumbents": list(d.incumbents), "supporters": list(d.supporters),
        "challenger_agent": d.challenger_agent, "status": str(d.status), "needs_user": bool(d.needs_user),
        "challenges": d.challenges, "reason": d.reason, "opened_at": to_epoch(d.opened_at),
        "resolution": None if r is None else {"winner": r.winner, "decided_by": r.decided_by, "note": r.note,
                                              "at": to_epoch(r.at), "keep_both": r.keep_both},
    }


def from_record(dispute_id: str, entity: str, rec: Mapping[str, Any]) -> Dispute:
    r = rec.get("resolution")
    resolution = None if not r else Resolution(r.get("winner"), str(r.get("decided_by", "")), str(r.get("note", "")),
                                               from_epoch(float(r["at"])), bool(r.get("keep_both", False)))
    return Dispute(
        id=dispute_id, entity=entity, challenger=str(rec["challenger"]), incumbents=tuple(rec.get("incumbents", ())),
        reason=str(rec.get("reason", "")), status=DisputeStatus(rec.get("status", "open")),
        needs_user=bool(rec.get("needs_user", False)), challenges=int(rec.get("challenges", 1)),
        opened_at=from_epoch(float(rec["opened_at"])), resolution=resolution,
        challenger_agent=str(rec.get("challenger_agent", "")), supporters=tuple(rec.get("supporters", ())),
    )


class DisputeTrack:
    """Disputes replayed event by event (the log's order), up to a moment.

    `see` every event (also those after the moment: an older store's retractions are
    read from them), `apply` those at or before it; `at_moment` answers the disputes
    that existed then. `row` gives a dispute's stored row, asked only for disputes
    whose events carry no record."""

    def __init__(self, row: Callable[[str], Dispute | None]) -> None:
        self.row = row
        self.now: dict[str, Dispute] = {}
        self.added_for: dict[str, str] = {}
        """claim id -> the dispute it backs: the one it opened, or joined as a supporter."""
        self.dropped: dict[str, set[str]] = {}
        """dispute id -> incumbents a (legacy) retraction event took out of it, at any time."""

    def see(self, e: Event) -> None:
        if e.kind == "claim_added" and e.claim_id and isinstance(e.detail.get("dispute"), str):
            self.added_for[e.claim_id] = e.detail["dispute"]
        elif e.kind == "dispute_opened" and e.dispute_id and e.claim_id:
            self.added_for[e.claim_id] = e.dispute_id
        elif e.kind in CHANGES and e.dispute_id and STATE not in e.detail:
            # a retracted claim that never backed the challenge was an incumbent
            gone = {i for i in e.detail.get("retracted") or () if self.added_for.get(i) != e.dispute_id}
            if gone:
                self.dropped.setdefault(e.dispute_id, set()).update(gone)

    def apply(self, e: Event) -> None:
        if e.kind not in KINDS or not e.dispute_id:
            return
        rec = e.detail.get(STATE)
        if isinstance(rec, Mapping):
            self.now[e.dispute_id] = from_record(e.dispute_id, e.entity, rec)
            return
        self._legacy(e)

    def _legacy(self, e: Event) -> None:
        did, d = e.dispute_id, self.now.get(e.dispute_id or "")
        assert did is not None
        if d is None:
            if e.kind != "dispute_opened":
                return  # a dispute whose opening is not in the log (not replayable)
            stored = self.row(did)
            if stored is None:
                return
            # every incumbent it had at its opening: the stored ones and those a retraction took out since
            incumbents = (*stored.incumbents, *sorted(self.dropped.get(did, set()) - set(stored.incumbents)))
            d = replace(stored, challenger=e.claim_id or stored.challenger, supporters=(), incumbents=incumbents,
                        status=DisputeStatus.OPEN, resolution=None, challenges=1,
                        needs_user=bool(e.detail.get("needs_user", stored.needs_user)),
                        challenger_agent=e.agent or stored.challenger_agent)
        d = replace(d, needs_user=bool(e.detail.get("needs_user", d.needs_user)),
                    challenges=int(e.detail.get("challenges", d.challenges)))
        if e.kind in CHANGES:
            gone = {*e.detail.get("withdrawn", ()), *e.detail.get("retracted", ())}
            backers = [d.challenger, *d.supporters]
            if gone & set(backers):
                left = [b for b in backers if b not in gone]
                if left:
                    d = replace(d, challenger=left[0], supporters=tuple(left[1:]))
            elif gone:
                d = replace(d, incumbents=tuple(i for i in d.incumbents if i not in gone))
            elif e.claim_id and e.claim_id not in backers and self.added_for.get(e.claim_id) == did:
                d = replace(d, supporters=(*d.supporters, e.claim_id))
        elif e.kind == "dispute_resolved":
            det = e.detail
            d = replace(d, status=DisputeStatus.RESOLVED, resolution=Resolution(
                det.get("winner"), str(det.get("decided_by", "")), str(det.get("note", "")), from_epoch(e.ts),
                bool(det.get("keep_both", False))))
        self.now[did] = d


def legacy_ids(events: Iterable[Event]) -> set[str]:
    """The disputes whose opening event carries no record (written before records were kept)."""
    return {e.dispute_id for e in events if e.kind == "dispute_opened" and e.dispute_id and STATE not in e.detail}
