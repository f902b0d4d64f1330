"""One DuckDB database per process, in memory, that every claim log of the process attaches
its file to (`ATTACH`), each on a connection of its own whose default database it is (`USE`).

Why: a DuckDB database costs about 20 ms of CPU to start (its catalog of built-in functions,
its settings, its threads), a file attached to one that runs costs about 1 ms; a store opens
one log per partition it writes or reads, and a process may open many stores. What a log
sees is as before: its own tables under their own names, its own transactions (each
connection has its own; a transaction writes one log's file), DuckDB's lock on its file while
attached, and a checkpoint when it is detached (`DETACH`: the file whole, no WAL left).

The database is made again in a child process (a fork does not share it), and runs with one
thread: each log's queries run on the thread that asks, side by side with another log's.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading

import duckdb

_lock = threading.Lock()
_host: tuple[int, duckdb.DuckDBPyConnection] | None = None
_names = itertools.count()


def _database() -> duckdb.DuckDBPyConnection:
    global _host
    if _host is None or _host[0] != os.getpid():
        _host = (os.getpid(), duckdb.connect(":memory:", config={"threads": 1}))
    return _host[1]


def quoted(path: str) -> str:
    """A file path as an SQL string literal (a store path may hold a quote)."""
    return "'" + path.replace("'", "''") + "'"


def attach(path: str) -> tuple[duckdb.DuckDBPyConnection, str]:
    """A connection whose default database is the DuckDB file at `path` (created when missing),
    and the name the file is attached under. duckdb.Error as DuckDB raises it (a lock held by
    another process, a damaged file), with nothing left attached."""
    with _lock:
        con = _database().cursor()
        name = f"claim_log_{next(_names)}"
    try:
        con.execute(f'ATTACH {quoted(path)} AS "{name}"').fetchall()
    except BaseException:
        con.close()
        raise
    try:
        con.execute(f'USE "{name}"').fetchall()
    except BaseException:
        detach(con, name)
        raise
    return con, name


def detach(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Close `con` and detach the file attached as `name`: DuckDB checkpoints it and lets go of it."""
    con.close()
    with _lock:
        if _host is None or _host[0] != os.getpid():
            return  # attached in the parent process: nothing of it here
        host = _host[1].cursor()
    try:
        host.execute(f'DETACH DATABASE IF EXISTS "{name}"').fetchall()
    finally:
        host.close()


def detach_quietly(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """`detach` for a log dropped without close (at collection or exit): the connection's
    file would otherwise stay attached, and locked, until the process ends."""
    with contextlib.suppress(duckdb.Error):
        detach(con, name)
