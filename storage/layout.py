"""The on-disk layout of a store directory.

    STORE/
      vault.json          format, partitions, embedding dim, embedder name, index kind
      control.json        the policy and the entity registry (written atomically)
      .lock               held (flock) by the one embedded process using the store
      partitions/p0000.duckdb ...   one claim log per partition (DuckDB)
      partitions/p0000.journal      its write-ahead journal (records not yet in DuckDB)
      partitions/p0000.snapshot     its in-memory image and active vectors, saved at close
      partitions/<host>.hnsw        an HNSW graph over a host's partitions, saved at close
      label_vectors.npz   the label vectors entity resolution compared (a cache, saved at close)
      restoring.json      a restore under way: which export (storage/restoring.py; gone when it is done)

Format 1 (before the journal) had only the DuckDB files; a format-1 store is
upgraded in place when it is opened: its logs gain a `journal` table, vault.json
gains `index` and `format: 2`, and a message says so. Nothing is rewritten.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_ray.errors import InvalidInput, StorageFailure, StoreError, StoreLocked, StoreMismatch

FORMAT = 2
INDEX_KINDS = ("flat", "hnsw")
log = logging.getLogger("vault_ray")
REINDEX_HINT = ("Open it with its own embedder (on the CLI, `--hashing` for a hashing store), or move it to another "
                "one with `vault-ray reindex --store PATH --embedder local|hashing|openai:MODEL` (`--address ADDR` for "
                "a cluster).")


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
    index: str = "flat"
    """The vector index kind: "flat" (exact) or "hnsw" (approximate)."""


def partitions_dir(root: str | os.PathLike[str]) -> Path:
    return Path(root) / "partitions"


def partition_path(root: str | os.PathLike[str], number: int) -> Path:
    return partitions_dir(root) / f"p{number:04d}.duckdb"


def partition_number(path: str | os.PathLike[str]) -> int | None:
    """The partition number a `pNNNN.duckdb` file or `pNNNN` directory is named after."""
    stem = Path(path).name.split(".", 1)[0]
    return int(stem[1:]) if stem[:1] == "p" and stem[1:].isdigit() else None


def control_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / "control.json"


def read_meta(root: str | os.PathLike[str]) -> StoreMeta | None:
    path = Path(root) / "vault.json"
    try:
        data = read_json(path)
    except StoreError as exc:
        if isinstance(exc.__cause__, NotADirectoryError):  # a file named as the store, or above it
            raise StoreError(f"{str(root)!r} is a file, not a store directory" if Path(root).is_file() else
                             f"no store can be at {str(root)!r}: a part of the path is a file") from None
        raise
    if data is None:
        return None
    try:
        meta = StoreMeta(**data)
    except TypeError as exc:  # not the settings of a store (another tool's file, a hand edit)
        raise StoreError(f"cannot read the store settings {path}: {exc}") from None
    kinds = {"partitions": int, "dim": int, "embedder": str, "format": int, "index": str}
    wrong = [k for k, kind in kinds.items() if not isinstance(getattr(meta, k), kind) or isinstance(getattr(meta, k), bool)]
    if wrong or meta.partitions < 1 or meta.index not in INDEX_KINDS:
        raise StoreError(f"cannot read the store settings {path}: {', '.join(wrong) or 'partitions or index'} "
                         f"out of shape ({data})")
    beyond = [f for f in partitions_dir(root).glob("p*.duckdb") if f.stem[1:].isdigit() and int(f.stem[1:]) >= meta.partitions]
    if beyond:  # its claims would be out of reach, and new ones written beside them
        raise StoreError(f"{path} says {meta.partitions} partitions, but {beyond[0].name} is there: restore the file")
    return meta


def check_index(index: object) -> str:
    if index not in INDEX_KINDS:
        raise InvalidInput(f"index must be one of {', '.join(map(repr, INDEX_KINDS))}, got {index!r}")
    return str(index)


def check_partitions(partitions: object) -> int:
    """A partition count a new store can have (it is fixed for good once made)."""
    if not isinstance(partitions, int) or isinstance(partitions, bool) or not 1 <= partitions <= 4096:
        raise InvalidInput(f"partitions must be an integer in [1, 4096], got {partitions!r}")
    return partitions


def init_store(root: str | os.PathLike[str], *, partitions: int | None, dim: int, embedder: str,
               index: str | None = None) -> StoreMeta:
    """Create the store, or check an existing one against the given settings. An
    existing store of an older format is upgraded in place (with a message); an
    `index` other than the store's switches it (the index is rebuilt from the logs)."""
    path = Path(root)
    meta_file = path / "vault.json"
    if index is not None:
        check_index(index)
    if meta_file.exists():
        meta = read_meta(path)
        if meta is None:
            raise StoreError(f"cannot read the store settings {meta_file}: the file is empty")
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
        return _settle(meta_file, meta, index)
    if path.exists() and any(p for p in path.iterdir() if p.name != ".lock"):
        raise StoreError(f"{str(path)!r} exists and is not a vault-ray store (no vault.json)")
    parts = 16 if partitions is None else partitions
    check_partitions(parts)
    (path / "partitions").mkdir(parents=True, exist_ok=True)
    meta = StoreMeta(parts, dim, embedder, index=index or "flat")
    write_json(meta_file, meta.__dict__)
    return meta


def _settle(meta_file: Path, meta: StoreMeta, index: str | None) -> StoreMeta:
    """Upgrade an older format in place and apply an index switch, saying so."""
    new = StoreMeta(meta.partitions, meta.dim, meta.embedder, FORMAT, index or meta.index)
    if meta.format > FORMAT:
        raise StoreError(f"{str(meta_file.parent)!r} is a format-{meta.format} store; this vault-ray reads "
                         f"format {FORMAT} and older: upgrade vault-ray")
    if meta.format < FORMAT:
        log.warning("vault-ray: upgraded the store %s in place from format %d to %d (a write-ahead journal and a "
                    "snapshot beside each partition's claim log; the claims are not rewritten)",
                    meta_file.parent, meta.format, FORMAT)
    if new.index != meta.index:
        log.warning("vault-ray: the store %s now uses the %r vector index (was %r); it is rebuilt from the logs",
                    meta_file.parent, new.index, meta.index)
    if new != meta:
        write_json(meta_file, new.__dict__)
    return new


def set_embedder(root: str | os.PathLike[str], embedder: str, dim: int) -> StoreMeta:
    """Name another embedder in vault.json (one atomic rewrite): the commit point of a
    reindex. Claim logs adopt their staged vectors for it when they next open."""
    meta = read_meta(root)
    if meta is None:
        raise StoreError(f"{str(root)!r} is not a vault-ray store (no vault.json)")
    new = StoreMeta(meta.partitions, dim, embedder, meta.format, meta.index)
    write_json(Path(root) / "vault.json", new.__dict__)
    return new


def write_json(path: Path, data: Any) -> None:
    """Replace `path` atomically; StorageFailure naming it (the old file kept, no temporary left) if it cannot be."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str))
        os.replace(tmp, path)
    except OSError as exc:  # a full disk, a read-only file system
        tmp.unlink(missing_ok=True)
        raise StorageFailure(f"cannot write {path}: {exc.strerror or exc}; the file was not changed") from exc


def read_json(path: Path) -> Any | None:
    """The JSON in `path`, None if there is no such file; StoreError naming it if it cannot be read."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # cut short or damaged (JSONDecodeError, UnicodeDecodeError), unreadable
        raise StoreError(f"cannot read {path}: {exc}; nothing was changed (restore it from a backup, or fix it by "
                         "hand)") from exc


def make_store_dir(root: object) -> Path:
    """`root` as a store directory, made if missing: InvalidInput for what is no path,
    StoreError for a path that is a file, under a file, or that cannot be made."""
    if not isinstance(root, str | os.PathLike) or not str(root).strip():
        raise InvalidInput(f"a store path is a directory path (str or Path), got {root!r}")
    path = Path(root)
    if path.exists() and not path.is_dir():
        raise StoreError(f"{str(path)!r} is a file, not a store directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (NotADirectoryError, FileExistsError) as exc:
        raise StoreError(f"cannot make the store directory {str(path)!r}: a part of the path is a file") from exc
    except OSError as exc:
        raise StoreError(f"cannot make the store directory {str(path)!r}: {exc.strerror}") from exc
    return path


class StoreLock:
    """An exclusive, non-blocking flock on STORE/.lock; released on close or exit."""

    HELD: dict[str, int] = {}
    """The stores this process holds (real path -> pid; a forked child's copy is not its own):
    a second open here is told so."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = str(make_store_dir(root))
        lock = self._path = Path(root) / ".lock"
        self.made = not os.path.lexists(lock)  # a failed open takes it away again (`release(discard=True)`)
        try:
            self._fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # a directory in its place, a read-only file system, no permission
            raise StoreError(f"cannot open the store's lock file {lock}: {exc.strerror}; nothing was changed") from exc
        self._real = os.path.realpath(self.root)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._fd)  # held by another: a file this open made is theirs now, not removed
            here = StoreLock.HELD.get(self._real) == os.getpid()
            holder, address, namespace = (None, None, None) if here else holder_of(self.root)
            raise StoreLocked(self.root, here=here, holder=holder, address=address, namespace=namespace) from exc
        try:
            os.ftruncate(self._fd, 0)
            os.write(self._fd, str(os.getpid()).encode())
        except OSError as exc:
            self.release(discard=True)
            raise StoreError(f"cannot write the store's lock file {lock}: {exc.strerror}; nothing was changed") from exc
        StoreLock.HELD[self._real] = os.getpid()

    def release(self, discard: bool = False) -> None:
        """Let go of the store; `discard`: a failed open also removes the lock file it made
        (removed while still held, so no other process locks the file being removed)."""
        if self._fd >= 0:
            if discard and self.made:
                self._path.unlink(missing_ok=True)
            StoreLock.HELD.pop(self._real, None)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


def check_not_held(root: str | os.PathLike[str]) -> None:
    """StoreLocked, as an open would raise it, when a process holds the store now (a bulk job
    asks before it starts Ray, which takes seconds). The lock is taken and let go at once;
    nothing is made: a store without a lock file is held by no one."""
    lock = Path(root) / ".lock"
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:  # no lock file (a new store), or unreadable: the open says what is wrong
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        real = os.path.realpath(root)
        here = StoreLock.HELD.get(real) == os.getpid()
        holder, address, namespace = (None, None, None) if here else holder_of(root)
        raise StoreLocked(str(root), here=here, holder=holder, address=address, namespace=namespace) from exc
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def holder_of(root: str | os.PathLike[str]) -> tuple[str | None, str | None, str | None]:
    """What holds the store, for StoreLocked to say how to reach it: ("cluster", the Ray address
    and the namespace `vault-ray up` or `vault-ray serve --store` recorded in STORE/cluster.json,
    if any) when the process named in the lock file is a Ray worker (the control actor),
    ("process", None, None) for another process, (None, None, None) when the lock file or the
    process cannot be read (not Linux, another machine)."""
    try:
        pid = int((Path(root) / ".lock").read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except (OSError, ValueError):
        return None, None, None
    if not cmdline.startswith("ray::"):
        return "process", None, None
    return "cluster", recorded_head(root), _recorded(root, "namespace")


def recorded_head(root: str | os.PathLike[str]) -> str | None:
    """The address of the Ray cluster `vault-ray up` serves the store on (the head it started, or
    the one it joined with --address; `vault-ray serve --store`: the Ray it runs), as it recorded
    it in STORE/cluster.json (None: none recorded, or no such file)."""
    return _recorded(root, "address")


def _recorded(root: str | os.PathLike[str], key: str) -> str | None:
    state = read_json(Path(root) / "cluster.json") or {}
    head = state.get("head") if isinstance(state, dict) else None
    value = head.get(key) if isinstance(head, dict) else None
    return value if isinstance(value, str) and value else None


def hold_log(path: str) -> int:
    """An exclusive flock on a partition's DuckDB file for as long as its log is open:
    one owner per partition, even while the DuckDB connection itself is not open yet
    (DuckDB's own lock, a POSIX lock, covers only an open connection)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreLocked(os.path.dirname(os.path.dirname(path))) from None
    return fd
