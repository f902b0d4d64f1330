"""The on-disk layout of a store directory.

    STORE/
      vault.json          format, partitions, embedding dim, embedder name
      control.json        the policy and the entity registry (written atomically)
      .lock               held (flock) by the one embedded process using the store
      partitions/p0000.duckdb ...   one claim log per partition
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_ray.errors import StoreError, StoreLocked, StoreMismatch

FORMAT = 1
REINDEX_HINT = ("Open it with its own embedder, or move it to another one with `vault-ray reindex "
                "--store PATH --embedder local|hashing|openai:MODEL` (`--address ADDR` for a cluster).")


def partition_of(entity: str, partitions: int) -> int:
    """Stable across processes and Python versions (unlike `hash`)."""
    digest = hashlib.blake2b(entity.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % partitions


@dataclass(frozen=True)
class StoreMeta:
    partitions: int
    dim: int
    embedder: str
    format: int = FORMAT


def partition_path(root: str | os.PathLike[str], number: int) -> Path:
    return Path(root) / "partitions" / f"p{number:04d}.duckdb"


def partition_number(path: str | os.PathLike[str]) -> int | None:
    """The partition number a `pNNNN.duckdb` file or `pNNNN` directory is named after."""
    stem = Path(path).name.split(".", 1)[0]
    return int(stem[1:]) if stem[:1] == "p" and stem[1:].isdigit() else None


def control_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / "control.json"


def read_meta(root: str | os.PathLike[str]) -> StoreMeta | None:
    data = read_json(Path(root) / "vault.json")
    return StoreMeta(**data) if data else None


def init_store(root: str | os.PathLike[str], *, partitions: int | None, dim: int, embedder: str) -> StoreMeta:
    """Create the store, or check an existing one against the given settings."""
    path = Path(root)
    meta_file = path / "vault.json"
    if meta_file.exists():
        data = json.loads(meta_file.read_text())
        meta = StoreMeta(**data)
        if partitions is not None and partitions != meta.partitions:
            raise StoreMismatch(
                f"store {str(path)!r} has {meta.partitions} partitions, not {partitions} "
                "(the partition count is fixed when a store is created)", path=str(path),
            )
        if dim != meta.dim:
            raise StoreMismatch(
                f"store {str(path)!r} holds {meta.dim}-dimensional embeddings ({meta.embedder}); "
                f"the embedder given makes {dim}. {REINDEX_HINT}", path=str(path),
            )
        if embedder != meta.embedder:
            raise StoreMismatch(
                f"store {str(path)!r} was written with the {meta.embedder!r} embedder, not {embedder!r}; "
                f"vectors from different embedders are not comparable. {REINDEX_HINT}", path=str(path),
            )
        return meta
    if path.exists() and any(p for p in path.iterdir() if p.name != ".lock"):
        raise StoreError(f"{str(path)!r} exists and is not a vault-ray store (no vault.json)")
    parts = 16 if partitions is None else partitions
    if not isinstance(parts, int) or not 1 <= parts <= 4096:
        raise StoreMismatch(f"partitions must be an integer in [1, 4096], got {parts!r}")
    (path / "partitions").mkdir(parents=True, exist_ok=True)
    meta = StoreMeta(parts, dim, embedder)
    write_json(meta_file, meta.__dict__)
    return meta


def set_embedder(root: str | os.PathLike[str], embedder: str, dim: int) -> StoreMeta:
    """Name another embedder in vault.json (one atomic rewrite): the commit point of a
    reindex. Claim logs adopt their staged vectors for it when they next open."""
    meta = read_meta(root)
    if meta is None:
        raise StoreError(f"{str(root)!r} is not a vault-ray store (no vault.json)")
    new = StoreMeta(meta.partitions, dim, embedder, meta.format)
    write_json(Path(root) / "vault.json", new.__dict__)
    return new


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str))
    os.replace(tmp, path)


def read_json(path: Path) -> Any | None:
    return json.loads(path.read_text()) if path.exists() else None


class StoreLock:
    """An exclusive, non-blocking flock on STORE/.lock; released on close or exit."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = str(root)
        Path(root).mkdir(parents=True, exist_ok=True)
        self._fd = os.open(Path(root) / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._fd)
            raise StoreLocked(self.root) from exc
        os.ftruncate(self._fd, 0)
        os.write(self._fd, str(os.getpid()).encode())

    def release(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
