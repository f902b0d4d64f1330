"""Erasing an entity's content from one partition's claim log (`Vault.erase`; docs/design.md, "Erasure").

The engine first retracts every claim of the entity through the ordinary write path (the
journal, then DuckDB) and records a `claim_erased` event for each; `EraseSide.erase` then
removes the content from every place the log keeps it, under the log's DuckDB lock:

- `claims`: `text` becomes `ERASED`, `value`, `source` null, `meta` the record of the erasure
  (`{"erased": {"by", "at", "note"}}`), `embedding` zeros; id, entity, agent, session, times,
  status, supersedes links, confidence and kind stay (the provenance skeleton);
- `staged_vectors` (a reindex under way): the claims' staged vectors become zeros (a later
  adoption still finds one per claim);
- `receipts`: the stored decisions of the entity lose `value`, `reason` and the fact's digest;
- `events` of the entity: every free-text field of their `detail` (reasons, notes, values)
  becomes `ERASED` (a list or mapping of them, empty); ids, agent names, counters, flags and
  authority weights stay, and so does the erasure's own `note`;
- `disputes` of the entity: `reason` and the resolution's `note` become `ERASED`.

`erase(entity, record, ids)` does the same for some claims of an entity only (the notes cut from
an erased message): their rows, staged vectors, receipts and events. With `audit=True` (a merge
import carrying the source's erasure of some claims, transfer_erase.py), the free text of every
event and dispute of the entity and the reasons of its other claims' receipts go too, since they
may quote the erased values; the other claims keep their text, value, vector and receipt.

Then DuckDB checkpoints and the whole file is copied into a new one (`COPY FROM DATABASE`),
which replaces it: an UPDATE and a CHECKPOINT leave the old row versions in the file's free
blocks (measured: the erased text was still there), a fresh copy holds only live rows. The
journal has no record left (every record was applied, the rotated file deleted), and the
partition's snapshot is deleted (it held the live claims' text and vectors): the next close
writes a new one, and a reopen before that reads DuckDB.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import pyarrow as pa

from vault_ray.errors import StorageFailure
from vault_ray.models import Claim

from . import attached
from .journal import sync_dir

T = TypeVar("T")

ERASED = "[erased]"
"""What stands in the place of erased content (text, reasons, notes)."""
KEPT = frozenset({"decided_by", "op", "pass", "strategy", "winner", "previous", "outcome", "status", "agent",
                  "claim_id", "dispute", "dispute_id", "superseded_by", "challenger", "keep_both", "needs_user",
                  "challenges", "retracted", "superseded", "supersedes", "incumbents", "supporters", "withdrawn",
                  "erased", "previous_status"})
"""Detail keys that name ids, agents, rules or counts, never content: kept."""


def is_erased(claim: Claim) -> bool:
    """Whether `claim` is the skeleton an erasure left."""
    return claim.text == ERASED and isinstance(claim.meta.get("erased"), dict)


def erased_rows(claims: pa.Table) -> pa.Array:
    """Per row of a claims table (with its `text` and `meta` columns, meta as JSON): whether
    it is the skeleton an erasure left (`is_erased` over Arrow rows). Such a row has no
    content and a zeroed embedding: readers of a dump or an export (evals, imports) skip it."""
    texts, metas = claims.column("text").to_pylist(), claims.column("meta").to_pylist()
    return pa.array([t == ERASED and m is not None and isinstance(_loads(m).get("erased"), dict)
                     for t, m in zip(texts, metas, strict=True)], pa.bool_())


def _loads(meta: str | dict) -> dict:
    if isinstance(meta, dict):
        return meta
    try:
        found = json.loads(meta)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def scrub_detail(detail: Any, *, keep_note: bool = False) -> Any:
    """An event's detail with every free-text value replaced by `ERASED` (see the module docstring);
    `keep_note`: its `note` is the erasure's own."""
    if not isinstance(detail, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in detail.items():
        plain = value is None or isinstance(value, bool | int | float)
        names = key in KEPT and (isinstance(value, str) or
                                 (isinstance(value, list) and all(isinstance(v, str | int) for v in value)))
        weights = key == "weights" and isinstance(value, dict) and all(isinstance(v, int | float) for v in value.values())
        if plain or names or weights or (key == "note" and keep_note):
            out[key] = value
        elif key == DISPUTE_STATE and isinstance(value, dict):  # the dispute as it stood (as_of replays it)
            out[key] = _scrub_state(value)
        else:  # the same type, so that readers of the detail still read it
            out[key] = [] if isinstance(value, list) else {} if isinstance(value, dict) else ERASED
    return out


DISPUTE_STATE = "dispute_state"
"""A dispute event's record of the whole dispute (engine/dispute_replay.py): its ids, counts and
flags stay, its reason and its resolution's note are erased."""


def _scrub_state(rec: dict[str, Any]) -> dict[str, Any]:
    out = {**rec, "reason": ERASED}
    if isinstance(rec.get("resolution"), dict):
        out["resolution"] = {**rec["resolution"], "note": ERASED}
    return out


def scrub_reason(text: str) -> str:
    """A receipt's stored decision without its reason (which may quote another claim's value)."""
    data = json.loads(text)
    if not data.get("reason"):
        return text
    data["reason"] = ERASED
    return json.dumps(data)


def scrub_decision(text: str) -> str:
    """A receipt's stored decision without the fact's value, reason and digest."""
    data = json.loads(text)
    data.update(value=None, reason=ERASED)
    data.pop("digest", None)
    return json.dumps(data)


class EraseSide:
    """`DuckDBClaimLog.erase` (mixed in beside `BulkSide`)."""

    path: str
    dim: int
    _db: threading.Lock
    _owner: int
    _tables: Any
    _snapshot_path: Path
    stamp: str | None
    _dirty: bool

    def flush(self) -> None: ...  # DuckDBClaimLog's
    def _connect(self) -> Any: ...
    def _forget_snapshot(self) -> None: ...

    def erase(self, entity: str, record: dict[str, Any], ids: list[str] | None = None, *,
              audit: bool = False) -> int:
        """Remove the content of every claim of `entity` (see the module docstring), or of the claims
        `ids` of it only (the notes cut from an erased message, on an entity that holds other notes:
        their content, receipts and events); `record`: who erased, when and why (`by`, `at`, `note`),
        kept in each claim's `meta`. `audit` (with `ids`: a merge carrying a source's erasure): the
        free text of the whole entity's events and disputes and the reasons of its other claims'
        receipts are scrubbed too, as they may quote the erased values; the other claims keep their
        text, value, vector and receipt. Returns the claims erased. Durable when it returns."""
        if ids is not None and not ids:
            return 0
        meta, note = json.dumps({"erased": record}), str(record.get("note", ""))
        return self._scrubbed(f"erasing {entity}",
                              lambda con: _scrub(con, entity, meta, note, self.dim, ids, audit=audit)) or 0

    def drop_sources(self, sources: list[str]) -> list[str]:
        """Null the `source` of every claim (any entity) that kept one of these messages: an erased
        claim's source message may have given other claims too. Returns their ids."""
        def drop(con: duckdb.DuckDBPyConnection) -> list[str] | None:
            ids = [r[0] for r in con.execute("SELECT id FROM claims WHERE list_contains($1, source)",
                                             [sources]).fetchall()]
            if ids:
                con.execute("UPDATE claims SET source = NULL WHERE list_contains($1, source)", [sources]).fetchall()
            return ids or None

        return (self._scrubbed("erasing source messages", drop) or []) if sources else []

    def _scrubbed(self, what: str, change: Callable[[duckdb.DuckDBPyConnection], T | None]) -> T | None:
        """Apply the journal, run `change` on the log and, unless it answers None (nothing to
        remove), checkpoint, rewrite the file without free blocks and drop the snapshot."""
        self.flush()
        with self._db:
            tables = self._connect()
            con: duckdb.DuckDBPyConnection = tables._con
            try:
                done = change(con)
                if done is None:
                    return None
                con.execute("CHECKPOINT").fetchall()
            except duckdb.Error as exc:
                raise StorageFailure(f"{what} failed in {self.path}: {exc}") from exc
            self._rewrite(tables)
            self._forget_snapshot()
            self._snapshot_path.unlink(missing_ok=True)
            sync_dir(Path(self.path).parent)
        return done

    def _rewrite(self, tables: Any) -> None:
        """Copy the DuckDB file into a new one that replaces it (no free block keeps an old row)."""
        fresh = self.path + ".erase"
        for leftover in (fresh, fresh + ".wal"):
            Path(leftover).unlink(missing_ok=True)
        con: duckdb.DuckDBPyConnection = tables._con
        try:
            name = con.execute("SELECT current_database()").fetchall()[0][0]
            copy = f"{name}_fresh"  # the process's DuckDB holds every open log: a name of this log's
            con.execute(f'ATTACH {attached.quoted(fresh)} AS "{copy}"').fetchall()
            try:
                con.execute(f'COPY FROM DATABASE "{name}" TO "{copy}"').fetchall()
                con.execute(f'CHECKPOINT "{copy}"').fetchall()
            finally:
                con.execute(f'DETACH "{copy}"').fetchall()
            if Path(fresh + ".wal").exists():  # the copy must be whole in its one file before it replaces the log
                raise duckdb.IOException(f"{fresh}.wal left after the copy")
        except duckdb.Error as exc:
            for leftover in (fresh, fresh + ".wal"):
                Path(leftover).unlink(missing_ok=True)
            raise StorageFailure(f"rewriting {self.path} after an erasure failed: {exc}") from exc
        tables.close()
        self._tables = None  # reconnected on the next read, to whichever file is the log then
        fd = -1
        try:
            fd = os.open(fresh, os.O_RDONLY)
            os.fsync(fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the lock travels with the file (its inode)
            os.replace(fresh, self.path)
        except OSError as exc:  # the log is the old file still (scrubbed; its free blocks not yet)
            if fd >= 0:
                os.close(fd)
            Path(fresh).unlink(missing_ok=True)
            raise StorageFailure(f"rewriting {self.path} after an erasure failed: {exc}; erase again") from exc
        Path(self.path + ".wal").unlink(missing_ok=True)
        sync_dir(Path(self.path).parent)
        self._owner, old = fd, self._owner
        if old >= 0:
            os.close(old)


def _scrub(con: duckdb.DuckDBPyConnection, entity: str, meta: str, note: str, dim: int, ids: list[str] | None, *,
           audit: bool = False) -> int:
    zeros = bytes(4 * dim)
    some = ids is not None  # only these claims of the entity: their receipts and events by claim id
    every = not some or audit  # the entity's events and disputes, whichever claim they are about
    of = {"e": entity, "ids": ids} if some else {"e": entity}

    def where(c: str = "") -> str:  # the claims, in a table `c` may name
        return f"{c}entity = $e" + (f" AND list_contains($ids, {c}id)" if some else "")

    con.begin()
    try:
        count = int(con.execute(f"SELECT count(*) FROM claims WHERE {where()}", of).fetchall()[0][0])
        con.execute(f"UPDATE claims SET meta = $meta WHERE {where()} AND NOT (text = $m AND "
                    "coalesce(json_extract(meta, '$.erased') IS NOT NULL, false))", {**of, "m": ERASED, "meta": meta}).fetchall()
        con.execute(f"UPDATE claims SET text = $m, value = NULL, source = NULL, embedding = $z WHERE {where()}",
                    {**of, "m": ERASED, "z": zeros}).fetchall()
        staged = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
                             "AND table_name = 'staged_vectors'").fetchall()
        if staged[0][0]:
            rows = con.execute("SELECT s.embedder, s.dim, s.claim_id FROM staged_vectors s JOIN claims c "
                               f"ON s.claim_id = c.id WHERE {where('c.')}", of).fetchall()
            for embedder, size, cid in rows:
                con.execute("UPDATE staged_vectors SET embedding = $1 WHERE embedder = $2 AND dim = $3 AND claim_id = $4",
                            [bytes(4 * size), embedder, size, cid]).fetchall()
        mine = "list_contains($ids, claim_id)" if some else "json_extract_string(decision, '$.entity') = $e"
        receipts = con.execute(f"SELECT claim_id, decision FROM receipts WHERE {mine}", {"ids": ids} if some else of).fetchall()
        _update(con, "receipts", "claim_id", "decision", [(cid, scrub_decision(d)) for cid, d in receipts])
        if some and audit:  # the entity's other claims keep their value and digest, not a reason that may quote
            others = con.execute("SELECT claim_id, decision FROM receipts WHERE json_extract_string(decision, "
                                 "'$.entity') = $e AND NOT list_contains($ids, claim_id)", of).fetchall()
            _update(con, "receipts", "claim_id", "decision", [(cid, scrub_reason(d)) for cid, d in others])
        events = con.execute("SELECT seq, kind, detail FROM events WHERE " + (
            "entity = $e" if every else "entity = $e AND list_contains($ids, claim_id)"),
            {"e": entity} if every else of).fetchall()
        details = [(seq, kind, json.loads(d) if d else {}) for seq, kind, d in events]
        notes = {note} | {d.get("note") for _, kind, d in details if kind == "claim_erased"}
        _update(con, "events", "seq", "detail",  # the erasures' own notes stay (their events, their retractions)
                [(seq, json.dumps(scrub_detail(d, keep_note=kind == "claim_erased" or d.get("note") in notes)))
                 for seq, kind, d in details])
        if every:  # the notes `ids` are in no dispute
            con.execute("UPDATE disputes SET reason = CASE WHEN reason IS NULL THEN NULL ELSE $m END, "
                        "note = CASE WHEN note IS NULL THEN NULL ELSE $m END WHERE entity = $e",
                        {"e": entity, "m": ERASED}).fetchall()
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return count


def _update(con: duckdb.DuckDBPyConnection, table: str, key: str, column: str, rows: list[tuple[Any, str]]) -> None:
    if not rows:
        return
    keys = pa.array([r[0] for r in rows], pa.int64() if key == "seq" else pa.string())
    con.register("vr_erase_rows", pa.table({"k": keys, "v": pa.array([r[1] for r in rows], pa.string())}))
    try:
        con.execute(f"UPDATE {table} SET {column} = u.v FROM vr_erase_rows u WHERE {table}.{key} = u.k").fetchall()
    finally:
        con.unregister("vr_erase_rows")

