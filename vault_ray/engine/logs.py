"""Opening partitions' claim logs: where a store keeps them (DuckDB files under
STORE/partitions, `duckdb_logs`) and opening several at once (`open_logs`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vault_ray.storage import ClaimLog, DuckDBClaimLog
from vault_ray.storage.layout import partition_path, read_meta
from vault_ray.storage.log_files import companions, refuse_orphaned

LogFactory = Callable[[int, bool], ClaimLog | None]
"""`open_log(number, create)`: partition `number`'s claim log, None when it has none and not `create`."""
OPEN_THREADS = 4
"""Logs opened side by side: DuckDB opens a file and runs its schema outside the GIL (16 new logs took
0.36 s one by one and 0.21 s four at a time on the project's 2-core machine, each log then a DuckDB of its
own). Only partitions with a log file take a thread: a new store's open starts none."""


class DuckDBLogs:
    """Claim logs as STORE/partitions/pNNNN.duckdb, created on first write (a LogFactory). A log
    opened after a reindex committed (vault.json names the new embedder) adopts the vectors
    staged for it first (storage/bulk_log.py), if the switch had not reached it yet."""

    def __init__(self, root: str | Path, dim: int) -> None:
        self.root, self.dim, self.meta = root, dim, read_meta(root)

    def __call__(self, number: int, create: bool) -> ClaimLog | None:
        path = partition_path(self.root, number)
        if not path.exists():
            refuse_orphaned(path)  # its journal or snapshot without it: the log was lost, not never made
            if not create:
                return None
            path.parent.mkdir(parents=True, exist_ok=True)
        log = DuckDBClaimLog(path, dim=self.dim)
        if self.meta is not None and self.meta.dim == self.dim:
            try:
                log.adopt_staged(self.meta.embedder, self.dim)
            except BaseException:
                log.close()
                raise
        return log

    def may_hold(self, number: int) -> bool:
        """Whether partition `number` has a log file, or what is left of one (which opening refuses)."""
        path = partition_path(self.root, number)
        return path.exists() or bool(companions(path))


def duckdb_logs(root: str | Path, dim: int) -> DuckDBLogs:
    """The claim logs of the store at `root` (its vault.json read once)."""
    return DuckDBLogs(root, dim)


def open_logs(open_log: LogFactory, numbers: Sequence[int], create: bool) -> dict[int, ClaimLog]:
    """The logs of these partitions that have one (or all, with `create`), opened side by side.
    If one fails, the others are closed and its error is raised."""
    if not create and isinstance(open_log, DuckDBLogs):  # no thread for a partition without a log (a new store's)
        numbers = [p for p in numbers if open_log.may_hold(p)]
    if len(numbers) < 2:
        found = {p: open_log(p, create) for p in numbers}
        return {p: log for p, log in found.items() if log is not None}
    with ThreadPoolExecutor(min(OPEN_THREADS, len(numbers)), thread_name_prefix="vault-open") as pool:
        futures = {p: pool.submit(open_log, p, create) for p in numbers}
    logs, error = {}, None
    for p, future in futures.items():
        try:
            log = future.result()
        except BaseException as exc:  # noqa: BLE001  raised below, once every opened log is closed
            error = error or exc
            continue
        if log is not None:
            logs[p] = log
    if error is not None:
        for log in logs.values():
            log.close()
        raise error
    return logs
