"""A restore (`Vault.import_from` into an empty store), resumable.

Before its first change the restore records that it is under way, and of which export
(STORE/restoring.json, fsynced: the SHA-256 of the export's manifest, which holds every
file's checksum; `vault_ray.storage.restoring`). Each partition is then restored in one
claim-log transaction, so an interrupted restore leaves every partition either empty or
whole. While the record is there, an import of the same export resumes the restore: a
partition that holds rows is checked to hold exactly the export's rows for it (every
table, verbatim) and kept, the empty ones are restored; the record goes when every
partition is done. Any other import (another export, or a merge of one) is refused,
naming the unfinished restore and what to do (RestoreUnfinished); so is a resume that
finds a partition holding anything else (written to since the restore was interrupted,
by a vault-ray that took writes then). While the record is there the store refuses every
change (backends/unfinished.py): the restore sets the export's policy and registry with
a call of its own (`restore_control`), not as a policy edit.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from vault_ray.storage.archive import Archive
from vault_ray.storage.bulk_log import TABLE_SCHEMAS

from .backends.base import BulkBackend
from .backends.unfinished import refusal, target_of
from .errors import ExportError, StoreError, StoreMismatch, VaultError
from .policy import Policy
from .policy_file import without_newline_keys
from .registry import EntityRegistry

log = logging.getLogger(__name__)


def unfinished_restore(backend: BulkBackend, archive: Archive) -> dict[str, Any] | None:
    """The store's unfinished restore, if it is one of `archive` (to resume); None if the
    store has none. An unfinished restore of another export refuses this import."""
    marker = backend.restoring()
    if marker is None or marker.get("manifest_sha256") == archive.digest:
        return marker
    info = backend.info()  # another export's: this import would make it unfinishable
    raise refusal(marker, info.store, target_of(info.mode, info.store, info.namespace),
                  action="this import of another export")


def restore(backend: BulkBackend, archive: Archive, marker: dict[str, Any] | None) -> dict[str, Any]:
    """Restore `archive` into the store: a new restore (`marker` None: the store is empty) or
    the resumption of `marker`, an unfinished restore of the same export."""
    info = backend.info()
    if archive.store["partitions"] != info.partitions:
        raise StoreMismatch(f"the export has {archive.store['partitions']} partitions, this empty store "
                            f"{info.partitions}: a restore keeps partitions as they are; create the store with "
                            f"partitions={archive.store['partitions']}", path=info.store)
    policy, registry = _control(archive)  # both parsed (and refused if bad) before anything is set
    held = {p for p, counts in backend.row_counts().items() if any(counts.values())}
    for p in sorted(held):  # a resume: each partition restored must hold exactly the export's rows for it
        if p not in archive.partitions or not _holds_exactly(backend.dump_partition(p), archive.tables(p)):
            _refuse_resume(info.store, archive, p)
    if marker is None:
        backend.mark_restoring({"format": "vault-ray-restore", "export": str(Path(archive.root).absolute()),
                                "manifest_sha256": archive.digest, "exported_at": archive.manifest.get("created_at"),
                                "started_at": datetime.now(UTC).isoformat(), "rows": archive.manifest["rows"]})
    if policy is not None or registry is not None:  # not writes: a restore's own (backends/unfinished.py)
        current = backend.control()
        backend.restore_control(policy if policy is not None else current[0],
                                registry if registry is not None else current[1])
    rows: Counter[str] = Counter()
    for p in archive.partitions:
        if p in held:  # checked above
            rows.update({f.table: f.rows or 0 for f in archive.files if f.partition == p and f.table is not None})
        else:
            rows.update(backend.restore_partition(p, archive.tables(p)))
    backend.mark_restoring(None)
    return {"mode": "restore", "claims": rows["claims"], "rows": dict(rows), "resumed": len(held)}


def _control(archive: Archive) -> tuple[Policy | None, EntityRegistry | None]:
    policy, registry, dropped = without_newline_keys(archive.json("policy.json"), archive.json("registry.json"))
    if dropped:  # exported before the key check refused a trailing newline
        log.warning("vault-ray: the export %s holds keys that end in a newline, which no entity key does: imported "
                    "without them: %s. Set them again on the key meant", archive.root, ", ".join(dropped))
    try:
        return (Policy.from_dict(policy) if policy is not None else None,
                EntityRegistry.from_list(registry) if registry is not None else None)
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        if isinstance(exc, VaultError):
            raise
        raise ExportError(f"the export's policy.json or registry.json does not read ({exc!r}); nothing was imported",
                          path=str(archive.root)) from None


def _holds_exactly(found: dict[str, pa.Table], exported: dict[str, pa.Table]) -> bool:
    """Whether a partition's tables are the export's for it, row for row."""
    for name, schema in TABLE_SCHEMAS.items():
        mine = found.get(name, schema.empty_table())
        theirs = exported.get(name, schema.empty_table())
        if mine.num_rows != theirs.num_rows or not mine.equals(theirs):
            return False
    return True


def _refuse_resume(store: str, archive: Archive, partition: int) -> None:
    raise StoreError(
        f"the store {store} holds an unfinished restore of {str(archive.root)!r}, but its partition {partition} "
        "holds rows that are not the export's for it (written to since the restore was interrupted?): the "
        "restore cannot be finished: delete the store and import the export again")
