"""A partition's in-memory image saved beside its claim log, so that reopening a
store reads one file per partition instead of querying DuckDB and rebuilding the
vector index.

    STORE/partitions/pNNNN.snapshot

The file is a header (JSON: counters, the stamp, the index kind, a table of
sections) and named sections: Arrow IPC streams (live claims, open disputes) and raw
numpy arrays (vectors, receipt keys, the index's own arrays). It is written whole to
a temporary file and renamed, so a reader sees the old file or the new one.

The header carries a CRC-32 of itself (just before it) and of every section (in its
table): a file whose bytes changed on disk (bit rot, a stray write) is refused whole
(`Damaged`), never loaded. A file of the first format (`VRSNAPSHOT1`, no checksums)
is refused too (`Damaged` with `old` set): it is derived data, rebuilt from the log.

The claim log stays canonical: a snapshot is used only if its `stamp` equals the
log's at open (the sequence number of the last applied journal record and the size
and mtime of the DuckDB file as the log left it when it closed), and the journal
holds nothing newer. A missing, stale or damaged snapshot is ignored and the
partition is loaded from DuckDB (the damaged one with a warning: `read`'s caller).
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

MAGIC = b"VRSNAPSHOT2\n"
OLD_MAGIC = b"VRSNAPSHOT1\n"
"""The first format: no checksums (refused: `Damaged.old`)."""
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")


class Damaged(ValueError):
    """A snapshot file that must not be loaded: damaged, cut short, or (`old`) of the first format."""

    def __init__(self, path: Path, why: str, *, old: bool = False) -> None:
        self.path, self.why, self.old = path, why, old
        super().__init__(f"{path}: {why}")


def write(path: Path, header: dict[str, Any], tables: dict[str, pa.Table], arrays: dict[str, np.ndarray]) -> None:
    sections: list[tuple[str, str, Any]] = []
    for name, table in tables.items():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        sections.append((name, "arrow", sink.getvalue()))
    for name, array in arrays.items():
        arr = np.ascontiguousarray(array)
        data = arr.tobytes() if arr.size == 0 else memoryview(arr.reshape(-1)).cast("B")
        sections.append((name, f"{arr.dtype.str};{','.join(map(str, arr.shape))}", data))
    table_of_contents, offset = {}, 0
    for name, kind, data in sections:
        table_of_contents[name] = [kind, offset, len(data), zlib.crc32(data)]
        offset += len(data)
    head = json.dumps({**header, "sections": table_of_contents}).encode()
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(MAGIC + _LEN.pack(len(head)) + _CRC.pack(zlib.crc32(head)) + head)
            for _, _, data in sections:
                out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:  # a full disk: no partial file left behind
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


class Snapshot:
    """A snapshot file opened for reading (memory-mapped; `close` releases it), every
    checksum verified (else `Damaged`)."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                raise Damaged(path, "empty file")
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            self.header: dict[str, Any] = self._verified(path)
        except BaseException:
            self._map.close()
            raise

    def _verified(self, path: Path) -> dict[str, Any]:
        if self._map[: len(OLD_MAGIC)] == OLD_MAGIC:
            raise Damaged(path, "written by an earlier vault-ray (no checksums)", old=True)
        if self._map[: len(MAGIC)] != MAGIC:
            raise Damaged(path, "not a vault-ray snapshot")
        try:
            (size,) = _LEN.unpack_from(self._map, len(MAGIC))
            (crc,) = _CRC.unpack_from(self._map, len(MAGIC) + _LEN.size)
        except struct.error:
            raise Damaged(path, "cut short") from None
        start = len(MAGIC) + _LEN.size + _CRC.size
        head = self._map[start: start + size]
        if len(head) != size or zlib.crc32(head) != crc:
            raise Damaged(path, "its header fails its checksum")
        self._base = start + size
        header: dict[str, Any] = json.loads(head)
        end = max((o + n for _, o, n, _ in header["sections"].values()), default=0)
        if self._base + end != len(self._map):
            raise Damaged(path, "cut short, or longer than its sections")
        view = memoryview(self._map)
        try:
            for name, (_, offset, length, crc) in header["sections"].items():
                if zlib.crc32(view[self._base + offset: self._base + offset + length]) != crc:
                    raise Damaged(path, f"its section {name!r} fails its checksum")
        finally:
            view.release()
        return header

    def _bytes(self, name: str) -> tuple[str, memoryview]:
        kind, offset, length, _ = self.header["sections"][name]
        return kind, memoryview(self._map)[self._base + offset: self._base + offset + length]

    def table(self, name: str) -> pa.Table:
        _, data = self._bytes(name)
        raw = bytes(data)  # Arrow must not point into the mapping, which closes after loading
        del data
        return pa.ipc.open_stream(pa.py_buffer(raw)).read_all()

    def array(self, name: str, *, copy: bool = True) -> np.ndarray:
        """A copy (the mapping is closed after loading), or with `copy=False` a read-only
        view into the mapping, valid until `close`: drop it before."""
        kind, data = self._bytes(name)
        dtype, shape = kind.split(";")
        dims = tuple(int(x) for x in shape.split(",") if x)
        found = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(dims)
        return found.copy() if copy else found

    def arrays(self, prefix: str, *, copy: bool = True) -> dict[str, np.ndarray]:
        return {name[len(prefix):]: self.array(name, copy=copy) for name in self.header["sections"]
                if name.startswith(prefix)}

    def close(self) -> None:
        with contextlib.suppress(BufferError):  # a view still alive (an error's traceback may hold one): unmapped with it
            self._map.close()


def read(path: Path) -> Snapshot | None:
    """The snapshot at `path`, None if there is none; `Damaged` if it must not be loaded."""
    try:
        return Snapshot(path) if path.exists() else None
    except Damaged:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:  # unreadable, or a header that is no table
        raise Damaged(path, f"unreadable ({exc})") from exc
