"""The log of the Ray head `vault-ray up` starts (`ray start --head --block`'s output).

While the head starts it is written to `vault-ray-head-PORT.log` in Ray's temporary directory,
beside the session directories Ray makes there (`--temp-dir`, else RAY_TMPDIR/ray, TMPDIR/ray,
/tmp/ray; the system's temporary directory when that one cannot be made). A head that does not
start leaves it there, and the error names it. Once `up` has joined the head, the file moves into
that head's session directory, `SESSION/logs/vault-ray-head.log`, beside Ray's own logs of the
head (the head keeps writing to it: a rename keeps the open file); `up` prints where, records it
with the head in STORE/cluster.json, and `vault-ray down` removes it with the session directory.
A failed `up` keeps it and says where on stderr."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

SETTLED_NAME = "vault-ray-head.log"


def ray_temp_root(temp_dir: str | None = None) -> Path:
    """Ray's temporary directory for a head started with `--temp-dir temp_dir` (or without): where
    its session directories go."""
    if temp_dir:
        return Path(temp_dir).expanduser().resolve()
    base = os.environ.get("RAY_TMPDIR") or (os.environ.get("TMPDIR") if sys.platform.startswith("linux") else None)
    return Path(base or ("/tmp" if sys.platform.startswith(("linux", "darwin")) else tempfile.gettempdir())) / "ray"


def starting_path(port: int, temp_dir: str | None = None) -> Path:
    """Where the head's log is written while it starts: `vault-ray-head-PORT.log` in Ray's temporary
    directory (made if missing), else in the system's temporary directory."""
    name = f"vault-ray-head-{port}.log"
    root = ray_temp_root(temp_dir)
    with contextlib.suppress(OSError):
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK | os.X_OK):
            return root / name
    return Path(tempfile.gettempdir()) / name


def settle(log: Path, session: Path | None = None) -> Path:
    """Move the head's log into the head's session directory (`session`, else the session this
    process joined: the head's, for `up`), as `SESSION/logs/vault-ray-head.log`. Where it is now,
    unchanged, when that directory is not there or the rename fails (another filesystem)."""
    if session is None:
        from vault_ray.backends import ray_session  # noqa: PLC0415

        session = ray_session.connected_session()
    if session is None or not (session / "logs").is_dir() or not log.is_file():
        return log
    target = session / "logs" / SETTLED_NAME
    try:
        os.replace(log, target)
    except OSError:
        return log
    return target


def discard(log: str | None) -> None:
    """Remove the head's log once its head has stopped and its session directory is gone (with it,
    when it was there): only a file of this module's naming."""
    if not log:
        return
    path = Path(log)
    if path.name == SETTLED_NAME or (path.name.startswith("vault-ray-head-") and path.suffix == ".log"):
        with contextlib.suppress(OSError):
            path.unlink()
