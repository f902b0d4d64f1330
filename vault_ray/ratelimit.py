"""Per-agent token buckets (policy.rate_limit); off when the policy has none."""

from __future__ import annotations

import threading
import time

from .errors import InvalidInput, RateLimited
from .policy import RateLimit


class RateLimiter:
    def __init__(self, clock=time.monotonic) -> None:  # type: ignore[no-untyped-def]
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, agent: str, cost: int, limit: RateLimit | None) -> None:
        """Spend `cost` tokens or raise RateLimited (spending nothing)."""
        if limit is None:
            return
        if cost > limit.burst:  # no wait would ever let it through: waiting `retry_after` would loop for ever
            raise InvalidInput(f"a write of {cost} facts exceeds agent {agent!r}'s burst of {limit.burst} "
                               f"(policy.rate_limit): send at most {limit.burst} facts per write")
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(agent, (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + (now - last) * limit.rate)
            if cost > tokens:
                self._buckets[agent] = (tokens, now)
                raise RateLimited(agent, (cost - tokens) / limit.rate)
            self._buckets[agent] = (tokens - cost, now)

    def give_back(self, agent: str, cost: int, limit: RateLimit | None) -> None:
        """Return `cost` tokens spent on a write that was then refused: nothing was written."""
        if limit is None:
            return
        with self._lock:
            tokens, last = self._buckets.get(agent, (float(limit.burst), self._clock()))
            self._buckets[agent] = (min(float(limit.burst), tokens + cost), last)
