"""What a bulk job runs against: an embedded store it opens (no other process may hold
it) or the cluster-mode store it joins, as a `Vault` over the store's own backend.

The vault's embedder is a stand-in with the store's name and dimension that refuses
to embed (`StoredVectors`): a job writes claims with the vectors the store already
holds, or embeds with the embedder it was given, never with a model it was not told
to load. Ray (for the Ray Data stages) is joined at `address`, or started here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_ray import RuleReasoner, StoreError, Vault
from vault_ray.backends import BulkBackend, EmbeddedBackend, StoreInfo
from vault_ray.backends.unfinished import UnfinishedRestoreWarning, refuse_unfinished
from vault_ray.reasoners.base import Reasoner
from vault_ray.storage.layout import read_meta

from .from_store import StoredVectors


@dataclass
class JobStore:
    vault: Vault
    backend: BulkBackend
    info: StoreInfo

    def close(self) -> None:
        self.vault.close()

    def __enter__(self) -> JobStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(store: str | Path | None = None, *, address: str | None = None, namespace: str = "vault",
               reasoner: Reasoner | None = None, job: str | None = None) -> JobStore:
    """`store`: an embedded store's directory. Without it, the cluster-mode store served in
    `namespace` on the Ray cluster at `address`. A store whose restore is unfinished opens
    without a warning: `job` ("this reindex", ...) is refused on it (RestoreUnfinished, the
    store let go of), an import resumes the restore, an export refuses itself."""
    reasoner = reasoner if reasoner is not None else RuleReasoner()
    if store is not None:
        meta = read_meta(store)
        if meta is None:
            raise StoreError(f"{str(store)!r} is not a vault-ray store (no vault.json)")
        backend: Any = EmbeddedBackend(store, partitions=None, dim=meta.dim, embedder_name=meta.embedder,
                                       reasoner=reasoner, policy=None, registry=None)
        stand_in = StoredVectors(meta.dim, meta.embedder)
    else:
        from vault_ray.backends.connect import control_info, ensure_ray, find_control, join  # noqa: PLC0415

        ensure_ray(address or "auto", namespace)
        handle = find_control(namespace)
        served = control_info(handle) if handle is not None else {"error": None, "dim": 0, "embedder": ""}
        if served["error"] is not None:
            raise served["error"]
        stand_in = StoredVectors(served["dim"], served["embedder"])
        backend = join(address or "auto", namespace=namespace, embedder=stand_in)
    with warnings.catch_warnings():  # the job says what it does with it
        warnings.simplefilter("ignore", UnfinishedRestoreWarning)
        vault = Vault(backend, stand_in, reasoner)
    if job is not None:
        try:
            refuse_unfinished(backend, job)
        except BaseException:
            vault.close()
            raise
    return JobStore(vault, backend, backend.info())


def store_embedder(store: str | Path | None = None, *, address: str | None = None,
                   namespace: str = "vault") -> tuple[str, int] | None:
    """(embedder name, dimension) the store uses, read without opening it: an embedded
    store's vault.json (no Ray), or a cluster-mode store's control actor (Ray joined, one
    call: no shard is reached, no job started). None when it cannot say (no store there;
    `open_store` then gives the error)."""
    if store is not None:
        meta = read_meta(store)
        return None if meta is None else (meta.embedder, meta.dim)
    from vault_ray.backends.connect import control_info, ensure_ray, find_control  # noqa: PLC0415

    ensure_ray(address or "auto", namespace)
    handle = find_control(namespace)
    served = control_info(handle) if handle is not None else None
    return None if served is None or served["error"] is not None else (served["embedder"], served["dim"])


def ensure_ray(address: str | None, *, store: str | Path | None = None, namespace: str = "vault") -> None:
    """Connect this process to Ray for the Ray Data stages, unless it already is: for an
    embedded `store`, to the cluster at `address` (or a Ray started here) as any Ray
    job does; for a cluster-mode store, as `Vault.connect` joins it (with the local
    token of a head `vault-ray up` started on this machine)."""
    import ray  # noqa: PLC0415

    if ray.is_initialized():
        return
    if store is None:
        from vault_ray.backends.connect import ensure_ray as join_ray  # noqa: PLC0415

        join_ray(address or "auto", namespace)
        return
    from vault_ray.backends.connect import init_ray  # noqa: PLC0415

    # a closed port fails in seconds; a head `vault-ray up` started here gets this machine's token
    init_ray(address or "local", include_dashboard=False, logging_level="ERROR", log_to_driver=False)
