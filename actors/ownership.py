"""Calls run side by side in a shard (a threaded actor); a change of ownership (a
hand-over, a reindex's reload) waits for them and runs alone."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class Ownership:
    """Calls share it; a change of ownership takes it alone (and is not starved by calls)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._inside = 0
        self._changing = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._changing:
                self._cond.wait()
            self._inside += 1
        try:
            yield
        finally:
            with self._cond:
                self._inside -= 1
                self._cond.notify_all()

    @contextmanager
    def alone(self) -> Iterator[None]:
        with self._cond:
            while self._changing:
                self._cond.wait()
            self._changing = True
            while self._inside:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._changing = False
                self._cond.notify_all()


def shared(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run a call while no ownership change is under way (calls run side by side)."""

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.ownership.shared():
            return method(self, *args, **kwargs)

    return call
