"""The user's Ctrl-C at a chosen point of a job: a real SIGINT to this process once a
method of the job has returned some number of times (between two partitions)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ctrl_c_after(target: object, method: str, calls: int) -> Iterator[None]:
    """SIGINT once `method` of `target` (an object, or a class for every instance) has
    returned `calls` times; Python's own handler raises KeyboardInterrupt (installed for
    the while: a suite run in the background inherits an ignored SIGINT)."""
    original = getattr(target, method)
    done = []

    def counted(*args, **kwargs):
        out = original(*args, **kwargs)
        done.append(method)
        if len(done) == calls:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # (the handler raises at once)
        return out

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    setattr(target, method, counted)
    try:
        yield
    finally:
        setattr(target, method, original)
        signal.signal(signal.SIGINT, before)
