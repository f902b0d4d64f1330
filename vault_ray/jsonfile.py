"""Records of one kind kept in one JSON file beside a store (agent tokens, webhook
registrations): read again only when the file changed (an atomic rewrite gives it a
new inode), edited under an exclusive file lock, replaced atomically, and readable by
its owner only (the files hold secrets or their hashes)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, Generic, TypeVar

from .errors import StoreError

R = TypeVar("R")


class RecordFile(Generic[R]):
    """`key` names the list of records in the file and `what` the records in errors;
    a subclass turns a stored row into a record (`_decode`)."""

    key = "records"
    what = "record"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None
        self._records: dict[str, R] = {}

    def _decode(self, row: dict[str, Any]) -> R:
        raise NotImplementedError

    def _current(self) -> dict[str, R]:
        """The records by id, reread when the file changed."""
        try:
            st = os.stat(self.path)
            seen: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            seen = None
        with self._lock:
            if seen != self._seen:
                self._records = self._read() if seen is not None else {}
                self._seen = seen
            return self._records

    def _read(self) -> dict[str, R]:
        """The records of the file (none when it is missing or empty). A file that is no such
        record file (not JSON, other JSON: `--tokens package.json`) is refused, never rewritten."""
        cannot = f"cannot read the {self.what} file {self.path}"
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return {}
        except OSError as exc:  # a directory, no permission
            raise StoreError(f"{cannot}: {exc}") from exc
        except ValueError as exc:  # not text
            raise StoreError(f"{cannot}: it is not JSON ({exc})") from exc
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError as exc:
            raise StoreError(f"{cannot}: it is not JSON ({exc})") from exc
        rows = data.get(self.key, []) if isinstance(data, dict) else None
        if not isinstance(rows, list) or (data and self.key not in data):
            raise StoreError(f"{cannot}: it is JSON, but not a {self.what} file (it has no {self.key!r} list)")
        try:
            return {row["id"]: self._decode(row) for row in rows}
        except (TypeError, KeyError, AttributeError) as exc:
            raise StoreError(f"{cannot}: a record in it is damaged ({type(exc).__name__}: {exc})") from exc

    @contextlib.contextmanager
    def _editing(self) -> Iterator[dict[str, R]]:
        """Read, change and atomically rewrite the file under an exclusive lock. A file that cannot be
        read is refused before the lock file (or a directory) is made beside it."""
        self._read()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            records = self._read()
            yield records
            write_private(self.path, {"version": 1, self.key: [asdict(r) for r in records.values()]})  # type: ignore[call-overload]


def write_private(path: Path, data: object) -> None:
    """Replace `path` with `data` as JSON, atomically, readable by its owner only."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
