"""The bulk jobs' side of a shard (mixed into `Shard`): export and import of its
partitions, vectors staged for a reindex, the switch to a new embedder, and claims
re-keyed by an entity merge. The work is engine/bulk.py's, the same functions
embedded mode runs; a shard adds only its ownership checks (`_serve`).

While the control actor commits a reindex, the shard is *frozen*: it refuses writes
with NotOwner, so clients wait and retry, until it has reopened its partitions on
the new embedder (or a lease runs out, should the control actor die meanwhile).
Reads go on, on the old vectors, until the reopen.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa

from vault_ray.backends.routing import NotOwner
from vault_ray.engine import bulk
from vault_ray.engine.partitions import PartitionSet
from vault_ray.errors import StoreMismatch, VaultError
from vault_ray.models import Claim
from vault_ray.storage.layout import StoreMeta, partition_of, read_meta

from .ownership import Ownership, shared

REINDEXING = "switching the store to another embedder"


class ShardBulk:
    root: str
    name: str
    epoch: int
    partitions: int
    owned: set[int]
    host: PartitionSet

    ownership: Ownership

    def _serve(self, partitions: Iterable[int], *, create: bool = False) -> list[int]: ...
    def _open(self, p: int, *, create: bool) -> None: ...
    def _new_host(self, meta: StoreMeta) -> PartitionSet: ...

    # -- writes refused while the embedder switches; vectors of another embedder refused --
    def check_writable(self, partitions: Iterable[int], embedder: str | None) -> None:
        if time.monotonic() < getattr(self, "_frozen_until", 0.0):
            raise NotOwner(self.name, min(partitions, default=0), self.epoch, REINDEXING)
        self.check_embedder(embedder)

    def check_embedder(self, embedder: str | None) -> None:
        current = self.store_embedder()
        if embedder is not None and embedder != current:
            raise StoreMismatch(f"store {self.root!r} was reindexed to the {current!r} embedder; this client embeds "
                                f"with {embedder!r}: reconnect with Vault.connect(..., embedder=<{current}>)",
                                path=self.root)

    def store_embedder(self) -> str:
        found = getattr(self, "_store_embedder", None)
        if found is None:
            meta = read_meta(self.root)
            found = self._store_embedder = meta.embedder if meta else ""
        return found

    def freeze(self, seconds: float) -> None:
        self._frozen_until = time.monotonic() + seconds

    def thaw(self) -> None:
        self._frozen_until = 0.0

    def reload(self) -> dict[str, Any]:
        """Reopen every owned partition on the store's (new) embedder: each log adopts its
        staged vectors as it opens and the index is rebuilt from them. Thaws writes."""
        meta = read_meta(self.root)
        if meta is None:
            raise VaultError(f"{self.root!r} is not a vault-ray store (no vault.json)")
        with self.ownership.alone():
            self.host.close_all()
            self.host = self._new_host(meta)
            self._store_embedder = meta.embedder
            for p in sorted(self.owned):
                self._open(p, create=False)
            self.thaw()
        return {"name": self.name, "embedder": meta.embedder, "dim": meta.dim, "open": sorted(self.host.parts)}

    # -- export and import ---------------------------------------------------------------
    @shared
    def dump_partition(self, partition: int) -> dict[str, pa.Table]:
        self._serve([partition])
        return bulk.dump_partition(self.host, partition)

    @shared
    def restore_partition(self, partition: int, tables: dict[str, pa.Table]) -> dict[str, int]:
        self._serve([partition], create=True)
        return bulk.restore_partition(self.host, partition, tables)

    @shared
    def row_counts(self, partitions: list[int]) -> dict[int, dict[str, int]]:
        return bulk.row_counts(self.host, self._serve(partitions))

    @shared
    def claim_columns(self, partition: int, columns: list[str]) -> pa.Table | None:
        self._serve([partition])
        return bulk.claim_columns(self.host, partition, columns)

    @shared
    def present_claims(self, ids: dict[int, list[str]]) -> set[str]:
        self._serve(ids)
        return bulk.present_claims(self.host, ids)

    # -- reindex ----------------------------------------------------------------------------
    @shared
    def unstaged(self, partition: int, embedder: str, dim: int) -> pa.Table | None:
        self._serve([partition])
        return bulk.unstaged(self.host, partition, embedder, dim)

    @shared
    def stage_vectors(self, partition: int, embedder: str, dim: int, ids: Sequence[str], vectors: np.ndarray) -> int:
        self._serve([partition])
        return bulk.stage_vectors(self.host, partition, embedder, dim, ids, vectors)

    @shared
    def drop_staged(self, partitions: list[int], keep: tuple[str, int] | None) -> int:
        return bulk.drop_staged(self.host, keep, self._serve(partitions))

    @shared
    def staging_gaps(self, embedder: str, dim: int) -> dict[int, int]:
        """Every owned partition's claims without a vector staged for `embedder`."""
        return bulk.staging_gaps(self.host, embedder, dim, self._serve(self.owned))

    # -- normalize ----------------------------------------------------------------------------
    @shared
    def live_claims(self, entity: str) -> list[Claim]:
        self._serve([partition_of(entity, self.partitions)])
        return bulk.live_claims(self.host, entity)

    @shared
    def note_merged(self, partitions: list[int], records: Sequence[bulk.MergeRecord], now: datetime) -> int:
        self._serve(partitions, create=True)
        return bulk.note_merged(self.host, records, now)

    @shared
    def carry_decisions(self, partitions: list[int], carried: Sequence[bulk.CarriedDecision], now: datetime) -> int:
        self._serve(partitions, create=True)
        return bulk.carry_decisions(self.host, carried, now)

    @shared
    def retire_merged(self, partitions: list[int], records: Sequence[bulk.MergeRecord], now: datetime) -> int:
        self._serve(partitions)
        return bulk.retire_merged(self.host, records, now)
