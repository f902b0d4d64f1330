"""One DuckDB database per process, in memory, that every claim log of the process attaches
its file to (`ATTACH`), each on a connection of its own whose default database it is (`USE`).

Why: a DuckDB database costs about 20 ms of CPU to start (its catalog of built-in functions,
its settings, its threads), a file attached to one that runs costs about 1 ms; a store opens
one log per partition it writes or reads, and a process may open many stores. What a log
sees is as before: its own tables under their own names, its own transactions (each
connection has its own; a transaction writes one log's file), DuckDB's lock on its file while
attached, and a checkpoint when it is detached (`DETACH`: the file whole, no WAL left).

The database is made again in a child process (a fork does not share it: a log the child
inherited is the parent's to detach), and runs with one thread: each log's queries run on the
thread that asks, side by side with another log's.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
import threading

import duckdb

_lock = threading.Lock()
_host: tuple[int, duckdb.DuckDBPyConnection] | None = None
_names = itertools.count()


def _database() -> duckdb.DuckDBPyConnection:
    """This process's database (made on first use, and again in a forked child). Called under `_lock`."""
    global _host
    if _host is None or _host[0] != os.getpid():
        # where a query larger than memory spills (made then): not `.tmp` in the working directory, an in-memory
        # database's default (a DuckDB of a file spilled beside it)
        spill = os.path.join(tempfile.gettempdir(), f"vault-ray-duckdb-{os.getpid()}")
        _host = (os.getpid(), duckdb.connect(":memory:", config={"threads": 1, "temp_directory": spill}))
    return _host[1]


def quoted(path: str) -> str:
    """A file path as an SQL string literal (a store path may hold a quote)."""
    return "'" + path.replace("'", "''") + "'"


class AttachedFile:
    """A DuckDB file attached to the process's database: `con`, a connection whose default
    database it is, and `name`, the name it is attached under."""

    def __init__(self, path: str) -> None:
        """duckdb.Error as DuckDB raises it (a lock another process holds, a damaged file), with nothing left attached."""
        with _lock:
            self.con, self.name, self._pid = _database().cursor(), f"claim_log_{next(_names)}", os.getpid()
        try:
            self.con.execute(f'ATTACH {quoted(path)} AS "{self.name}"').fetchall()
        except BaseException:
            self.con.close()
            raise
        try:
            self.con.execute(f'USE "{self.name}"').fetchall()
        except BaseException:
            self.detach_quietly()
            raise

    def detach(self) -> None:
        """Close the connection and detach the file: DuckDB checkpoints it and lets go of it."""
        if self._pid != os.getpid():
            return  # a forked child's copy: the file is the parent's, attached to the parent's database
        self.con.close()
        with _lock:
            host = _database().cursor()
        try:
            host.execute(f'DETACH DATABASE IF EXISTS "{self.name}"').fetchall()
        finally:
            host.close()

    def detach_quietly(self) -> None:
        """`detach` for a log dropped without close (when collected): the file would otherwise
        stay attached, and locked, until the process ends."""
        with contextlib.suppress(duckdb.Error):
            self.detach()
