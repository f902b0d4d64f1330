"""How many cores this process may use now: the busy-host rule shared by the model's small
calls (embedders.py) and the flat index's split scans (storage/flat.py).

On a 2-core host, a second thread helps only while no other thread waits for the second
core; when one does, the call waits for its second thread at every barrier: one sentence
under two CPU burners took p99 320 ms on two torch threads, 52 ms on one (docs/performance.md,
"Small calls on a busy host run on one torch thread").
"""

from __future__ import annotations

import os
import time

FREE_CORES_TTL_S = 0.1
"""How long one reading of the free cores stands (it costs 60-100 µs)."""
_free_reading: list[float] = [float("-inf"), 0.0]  # when, how many


def free_cores() -> int:
    """Cores this process may use that no other process's thread is waiting for now (at
    least 1): the kernel's count of runnable threads (/proc/loadavg) less this process's
    own (its OpenMP workers spin for a while after a parallel region, and count there).
    Where /proc is missing, every core is taken for free."""
    now = time.monotonic()
    when, found = _free_reading
    if now - when < FREE_CORES_TTL_S:
        return int(found)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].partition("/")[0])
        free = free_of(running - _own_running(), cores)
    except (OSError, ValueError, IndexError):
        free = cores
    _free_reading[:] = [now, float(free)]
    return free


def free_of(others: int, cores: int) -> int:
    """The cores left when `others` threads of other processes are runnable (the caller's
    own thread takes one of the cores either way)."""
    return max(1, min(cores, cores - others))


def _own_running() -> int:
    running = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        end = stat.rfind(b")")
        running += stat[end + 2:end + 3] == b"R"
    return running


def idle_cores() -> int:
    """Cores no thread wants now, counting the caller's as its own (at least 1): unlike
    `free_cores`, this process's other runnable threads count as busy. A helper thread for
    the caller competes with all of them, a spinning OpenMP worker included. Reads
    /proc/loadavg each time (a few µs); without it, every core is taken for idle."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].partition("/")[0])
    except (OSError, ValueError, IndexError):
        return cores
    return free_of(running - 1, cores)
