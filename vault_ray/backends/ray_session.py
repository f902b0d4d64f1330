"""The session directory of a Ray this process started (`ray.init` with no address).

Ray keeps one directory per start, `/tmp/ray/session_<date>_<pid>` (under RAY_TMPDIR or
`--temp-dir` when set): its logs, sockets and spilled objects, and it never removes it. A bulk
job run again and again on a shared host leaves one behind per run. The command-line jobs
(export, import, reindex, normalize, eval) ask for theirs to go (`remove_at_exit`): when the
process ends, the Ray it started is stopped and that one directory is removed, and the
`session_latest` link beside it too when it points at it. Nothing else is touched: no other
session (another job's, a `vault-ray up` head's), no session of a cluster the job joined by
address (that Ray started elsewhere: `note_started` is only called for a Ray started here).

`vault-ray serve --store` asks the same for the Ray it starts. `vault-ray down`, stopping a head
that `vault-ray up` started, removes that head's directory (`connected_session` before it stops
the head, `discard` once the head has stopped).

A job that failed (`keep`: an error, not an interruption) keeps its directory, and says where on
stderr: Ray's logs (DIR/logs) help a bug report. VAULT_RAY_KEEP_RAY_SESSION=1 keeps it always.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import time
from pathlib import Path

KEEP_ENV = "VAULT_RAY_KEEP_RAY_SESSION"

_session: Path | None = None  # the session directory of the Ray started in this process, if any
_remove = False  # asked for by the caller (the CLI's jobs); a library user keeps Ray's default
_kept_because: str | None = None
_registered = False


def note_started() -> None:
    """Called once `ray.init` started Ray in this process: remember its session directory."""
    global _session, _registered
    found = connected_session()
    if found is None:  # another Ray: its directory is left as Ray leaves it
        return
    _session = found
    if not _registered:  # after `import ray`: runs before Ray's own exit handler (atexit runs last first)
        atexit.register(_at_exit)
        _registered = True


def connected_session() -> Path | None:
    """The session directory of the Ray this process started or joined (a cluster's: its head's,
    on the head's machine), None when it is connected to none."""
    try:
        from ray._private import worker  # noqa: PLC0415

        return Path(worker._global_node.get_session_dir_path())  # noqa: SLF001  (Ray has no public accessor)
    except Exception:  # noqa: BLE001  (not connected, or another Ray)
        return None


def own_session() -> Path | None:
    """The session directory of the Ray this process started, if it started one."""
    return _session


def remove_at_exit() -> None:
    """Remove the session directory of a Ray this process starts (or started) when the process ends."""
    global _remove
    _remove = True


def keep(reason: str) -> None:
    """Keep the session directory at exit (a failed job: its logs are the evidence), and say why."""
    global _kept_because
    _kept_because = reason


def _at_exit() -> None:
    if _session is None or not _remove:
        return
    _stop_ray()
    discard(_session, "this run", _kept_because)


def discard(session: Path, what: str, kept_because: str | None = None) -> bool:
    """Remove the session directory of a Ray that has stopped, unless it is kept (`kept_because`,
    or VAULT_RAY_KEEP_RAY_SESSION set): then say where its logs are, on stderr. True: removed."""
    if kept_because is None and os.environ.get(KEEP_ENV, "").strip() not in ("", "0"):
        kept_because = f"{KEEP_ENV} is set"
    if kept_because is not None:
        print(f"note: Ray's logs of {what} are kept in {session / 'logs'} ({kept_because}); remove {session} when done",
              file=sys.stderr)
        return False
    remove_session(session)
    return True


def _stop_ray() -> None:
    """Stop the Ray this process started, waiting for its processes (they write to the directory)."""
    with contextlib.suppress(Exception):
        import ray  # noqa: PLC0415

        if ray.is_initialized():
            ray.shutdown(wait_for_processes=True)


def remove_session(session: Path) -> None:
    """Remove `session` and the `session_latest` link beside it when it points at it (a link to a
    removed directory helps no one); a process of it still exiting may write a last file: tried
    again for a moment. Only a Ray session directory (session_*): nothing else is removed."""
    if not session.name.startswith("session_") or session.is_symlink():
        return
    latest = session.parent / "session_latest"
    with contextlib.suppress(OSError):
        if latest.is_symlink() and Path(os.readlink(latest)) in (session, Path(session.name)):
            latest.unlink()
    for _ in range(10):
        shutil.rmtree(session, ignore_errors=True)
        if not session.exists():
            return
        time.sleep(0.2)
