"""Group commit: concurrent callers share one commit.

The first caller to arrive while no group is running leads: it takes every call
queued so far (its own included), runs them together (`PartitionSet.write_many`:
decided in arrival order, each against the state the earlier ones left, a failing
call undone alone, one durable commit per partition for the group) and hands each
caller its own result. Calls that arrive meanwhile queue for the next group, whose
leader is one of them. No timer and no waiting for company: a lone caller commits
at once, and under load the groups grow by themselves.

Used by embedded mode (threads of one process) and by a shard actor (its concurrent
calls run on the actor's threads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

Run = Callable[[list[Any], list[datetime]], list[Any]]


@dataclass
class _Ticket:
    calls: list[Any]
    now: datetime
    done: bool = False
    result: list[Any] = field(default_factory=list)
    error: BaseException | None = None


class GroupCommit:
    def __init__(self, run: Run) -> None:
        self._run = run
        self._cond = threading.Condition()
        self._queue: list[_Ticket] = []
        self._busy = False
        self.groups = 0
        """Groups run so far (a group of one is a lone caller)."""
        self.calls = 0

    def submit(self, calls: Sequence[Any], now: datetime) -> list[Any]:
        """Run `calls` (in order) in the next group; returns their results."""
        ticket = _Ticket(list(calls), now)
        with self._cond:
            self._queue.append(ticket)
            while self._busy and not ticket.done:
                self._cond.wait()
            if not ticket.done:
                self._busy = True
                group, self._queue = self._queue, []
        if not ticket.done:
            self._lead(group)
        if ticket.error is not None:
            raise ticket.error
        return ticket.result

    def _lead(self, group: list[_Ticket]) -> None:
        try:
            calls = [c for t in group for c in t.calls]
            # a caller's calls at its now + i microseconds, as `write_many(calls, now)` records them
            nows = [t.now + timedelta(microseconds=i) for t in group for i in range(len(t.calls))]
            results = self._run(calls, nows) if calls else []
            at = 0
            for t in group:
                t.result, at = results[at: at + len(t.calls)], at + len(t.calls)
        except BaseException as exc:  # nothing of the group was acknowledged: every caller hears why
            for t in group:
                t.error = exc
        finally:
            with self._cond:
                for t in group:
                    t.done = True
                self.groups += 1
                self.calls += len(group)
                self._busy = False
                self._cond.notify_all()
