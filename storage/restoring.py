"""STORE/restoring.json: a restore under way (an import of an export into an empty store).

Written (atomically, fsynced) before the restore's first change, naming the export by
the SHA-256 of its manifest (which holds every file's checksum); removed when the
restore is done. While it is there the store is an unfinished restore of that export:
the same import resumes it, any other import is refused (vault_ray/transfer_restore.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from vault_ray.errors import StorageFailure, StoreError

from .journal import sync_dir

MARKER = "restoring.json"


def marker_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / MARKER


def read_restoring(root: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The unfinished restore recorded in the store, None if there is none."""
    path = marker_path(root)
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):  # none recorded; or `root` is a file (a .duckdb log), no store
        return None
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {path}, the record of an unfinished restore into this store: {exc}; "
                         "delete the store and import the export again") from exc
    if not isinstance(data, dict) or not isinstance(data.get("manifest_sha256"), str):
        raise StoreError(f"{path} is not the record of a restore (no manifest_sha256); delete the store and "
                         "import the export again")
    return data


def mark_restoring(root: str | os.PathLike[str], marker: dict[str, Any] | None) -> None:
    """Record `marker` (fsynced, renamed into place), or remove the record (None)."""
    path = marker_path(root)
    try:
        if marker is None:
            path.unlink(missing_ok=True)
        else:
            fresh = path.with_suffix(".json.tmp")
            with open(fresh, "w", encoding="utf-8") as f:
                json.dump(marker, f, indent=2, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(fresh, path)
        sync_dir(path.parent)
    except OSError as exc:
        raise StorageFailure(f"cannot {'remove' if marker is None else 'write'} {path}: {exc.strerror or exc}") from exc
