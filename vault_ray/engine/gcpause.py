"""Python's cyclic garbage collector paused while a bulk write runs.

A 10,000-fact call allocates some hundred thousand objects (claims, events, decisions,
rows), each of them tracked by the cyclic collector. In CPython 3.11 that triggers about
200 young-generation collections per call and, as the store's own objects accumulate,
full collections that walk every object the process holds. Measured on the project's
2-core machine (10k-fact calls, resolution off, 20k-50k claims): about 9,500 claims/s with
the collector running, 12,000-14,000/s with it paused for the call (docs/performance.md).

`paused(n)` pauses it for the duration of a write of `n` facts or more and restores the
state it found; nested or concurrent pauses (several threads writing) restore it once, when
the last one ends. A write allocates no reference cycles of its own, so nothing extra is
kept alive: cyclic garbage made meanwhile (by any thread) waits for the next collection,
which runs as soon as the collector is back on. Small writes never touch the collector.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

from ..errors import InvalidInput

T = TypeVar("T")

BULK = 256
"""Facts from which a write pauses the collector (below it there is little to gain)."""

_lock = threading.Lock()
_depth = 0
_restore = False


@contextmanager
def paused(facts: int) -> Iterator[None]:
    if facts < BULK:
        yield
        return
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _restore:
                gc.enable()


def loading() -> AbstractContextManager[None]:
    """Paused while a partition's memory is built from its log: one list per entity and a
    claim id per row, 100k claims in all, with the collector walking them each time the
    young generation fills (0.16 s of a 100k-claim open, 0.05 s paused; docs/performance.md)."""
    return paused(BULK)


def fact_count(requests: object) -> int:
    """How many facts a `write_batch`'s requests carry (a turn of messages counts as one)."""
    total = 0
    for r in requests if isinstance(requests, list | tuple) else ():
        facts = getattr(r, "facts", None)
        total += len(facts) if isinstance(facts, list | tuple) else 1
    return total


def for_bulk(method: Callable[..., T]) -> Callable[..., T]:
    """Decorate `write_batch(self, requests, ...)`: the collector is paused while it writes
    `BULK` facts or more."""

    @functools.wraps(method)
    def wrapper(self: object, requests: Iterable[object], *args: Any, **kwargs: Any) -> T:
        if isinstance(requests, str | bytes) or not isinstance(requests, Iterable):
            raise InvalidInput(f"write_batch takes a sequence of WriteRequest values, got {type(requests).__name__}")
        requests = requests if isinstance(requests, list) else list(requests)
        with paused(fact_count(requests)):
            return method(self, requests, *args, **kwargs)

    return wrapper
