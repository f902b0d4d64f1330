"""Episodic claims: events, which all happened.

A claim's `kind` is `semantic` (a fact that holds now: the user's timezone), `episodic` (an
event: "the user flew to Paris on May 1") or `procedural` (how to do something). Semantic
and procedural claims meet conflict detection (pass 1 against the agent's own claims, pass
2 by the entity's strategy). An episodic claim does not: a later event does not undo an
earlier one, so two events on one entity never contradict or supersede each other,
whatever the entity's cardinality, and no fact contradicts an event (nor an event a fact).
Events accumulate, like a `many` entity's distinct items, and reads show every one.

Only the same event said again by the same agent is known already: a `NOOP`, as a repeated
fact is. The same event is the same value, the same words (case and punctuation aside) and
the same time: observed_at within the policy's `same_event_window_s` (one hour unless
set) of each other. A retry, or the same
message extracted again, is within it (a retry without a given observed_at is stamped a few
seconds or minutes later); a recurring event logged in the same words at another time ("Went
to the gym", a week later) is another event (QA F5). Another agent's record of it is its own
provenance and stays beside it (search lists it in the hit's `agreeing`).
"""

from __future__ import annotations

import re
from datetime import timedelta

import numpy as np

from ..models import Claim, Decision, Op, Outcome, Status
from ..policy import Policy
from ..reasoners.rules import normalized_value
from .txn import Txn

ADDED = "an event (episodic): events accumulate; they never contradict or supersede each other"
_WORD = re.compile(r"\w+")
SAME_EVENT_WINDOW = timedelta(seconds=Policy().same_event_window_s)
"""The default of `Policy.same_event_window_s` (one hour): how far apart two records'
observed_at may be and still be one event (said in the same words with the same value).
Wide enough for a retry or a re-extraction of the same message (stamped when it is
written), narrower than any recurrence worth logging again; a re-extraction later than the
window gives the message's own time as observed_at, or an idempotency key (claim ids), and
is known whatever the gap."""


def one_event(a: Claim, b: Claim, window: timedelta = SAME_EVENT_WINDOW) -> bool:
    """Whether two records (by any agents) are of one event: the same value, the same words
    and observed_at within `window` (the policy's `same_event_window_s`) of each other."""
    return (abs(a.observed_at - b.observed_at) <= window and normalized_value(a) == normalized_value(b)
            and _WORD.findall(a.text.lower()) == _WORD.findall(b.text.lower()))


def window_of(policy: Policy) -> timedelta:
    return timedelta(seconds=policy.same_event_window_s)


def same_event(a: Claim, b: Claim, window: timedelta = SAME_EVENT_WINDOW) -> bool:
    """The same agent's record of one event (`one_event`): what a `NOOP` answers."""
    return a.agent == b.agent and one_event(a, b, window)


def record(txn: Txn, incoming: Claim, vector: np.ndarray, aligned_from: str | None, policy: Policy) -> Decision:
    """Store an episodic claim (active, beside every other claim on its entity), or answer
    `NOOP` with the agent's earlier record of the same event (within the policy's window)."""
    base = {"entity": incoming.entity, "aligned_from": aligned_from}
    window = window_of(policy)
    known = next((c for c in txn.live_on(incoming.entity, episodic=True)
                  if c.status == Status.ACTIVE and same_event(c, incoming, window)), None)
    if known is not None:
        reason = "already known (the same event)"
        txn.event(incoming.entity, "noop", claim_id=known.id, agent=incoming.agent, incoming=incoming.id, reason=reason)
        return Decision(op=Op.NOOP, outcome=Outcome.NOOP, claim_id=known.id, reason=reason, **base)
    txn.add(incoming, {"pass": 1, "op": str(Op.ADD), "reason": ADDED}, vector=vector)
    return Decision(op=Op.ADD, outcome=Outcome.ACTIVE, claim_id=incoming.id, reason=ADDED, **base)
