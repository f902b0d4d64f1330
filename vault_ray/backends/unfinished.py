"""A store whose restore was cut short (STORE/restoring.json, `vault_ray/transfer_restore.py`).

Until the same import finishes it, such a store holds only the partitions restored so
far: its reads are partial, and any change would make the resume refuse (a partition
that no longer holds exactly the export's rows). So whatever owns its partitions and its
control refuses every write while the record is there: `EmbeddedBackend` in embedded
mode, the shards and the control actor in cluster mode (the control actor tells the
shards when the record comes and goes; a shard that starts reads it from the store).
The writes are the methods named in `WRITES`, wrapped once per class by `refuses_writes`;
`write_many` (and a shard's `write`) answer each call with the error instead, as they
answer every refusal. The restore goes through methods of its own (`restore_partition`,
`restore_control`, `mark_restoring`), which are not writes here. A change that reads the
store before it writes (retract, forget, erase, a policy edit, register) asks first
(`refuse_while_restoring`; a cluster client asks the control actor), so a claim or an
entity of a partition not restored yet is not reported unknown. The write path asks too,
before any extraction or embedding (`Vault.write_batch`, `restore_refusal`): an attribute
read in embedded mode; a cluster client asks once it has seen the record (`ClusterBulk`).

Opening such a store warns (`UnfinishedRestoreWarning`, from `Vault`); the bulk jobs
that read it whole (export, reindex, normalize) refuse with the writes' error
(`RestoreUnfinished`, `refuse_unfinished`).
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import RestoreUnfinished

T = TypeVar("T", bound=type)

WRITES = frozenset({
    "resolve_dispute", "expire_disputes", "retract", "erase",  # the partitions' writes but write_many
    "set_policy", "change_policy", "set_registry",  # the control
    "stage_vectors", "drop_staged", "commit_embedder",  # reindex
    "note_merged", "carry_decisions", "retire_merged",  # normalize
})
"""The methods that change a store, beside `write_many` / a shard's `write`."""


class UnfinishedRestoreWarning(UserWarning):
    """Opened a store whose restore was cut short: reads are partial, writes are refused
    (`RestoreUnfinished`) until the same import finishes the restore."""


def refusal(marker: dict[str, Any], store: str, target: str = "", action: str = "this write") -> RestoreUnfinished:
    return RestoreUnfinished(store, marker.get("export"), marker.get("started_at"), target=target, action=action)


def target_of(mode: str, store: str, namespace: str | None) -> str:
    """The flags that reach the store, for the command the messages name."""
    return f"--store {store}" if mode == "embedded" else f"--address ADDR --namespace {namespace or 'vault'}"


class RestoreGuard:
    """Mixed into what owns a store's partitions or control: `unfinished` is the store's
    record of an unfinished restore (None: there is none), `restore_where` (store, target)."""

    unfinished: dict[str, Any] | None = None
    restore_where: tuple[str, str] = ("", "")

    def restore_refusal(self, action: str = "this write") -> RestoreUnfinished | None:
        marker = self.unfinished
        return None if marker is None else refusal(marker, *self.restore_where, action=action)

    def refuse_while_restoring(self, action: str = "this write") -> None:
        error = self.restore_refusal(action)
        if error is not None:
            raise error


def refuses_writes(cls: T) -> T:
    """Every method of `cls` named in `WRITES` refuses while the store's restore is unfinished."""
    for name in WRITES:
        method = cls.__dict__.get(name)
        if method is None:
            method = next((vars(base)[name] for base in cls.__mro__[1:] if name in vars(base)), None)
        if callable(method):
            setattr(cls, name, _guarded(method))
    return cls


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: RestoreGuard, *args: Any, **kwargs: Any) -> Any:
        self.refuse_while_restoring()
        return method(self, *args, **kwargs)

    return call


def restoring_of(backend: Any) -> dict[str, Any] | None:
    """The backend's record of an unfinished restore (None: none, or a backend without bulk calls):
    the one a backend holding its store keeps (`RestoreGuard`), else asked (of the control actor)."""
    if isinstance(backend, RestoreGuard):
        return backend.unfinished
    ask = getattr(backend, "restoring", None)
    return ask() if callable(ask) else None


def refuse_unfinished(backend: Any, action: str) -> None:
    """`action` (a bulk job: "this export", "this reindex", ...) refused if the store's restore is unfinished."""
    marker = restoring_of(backend)
    if marker is not None:
        info = backend.info()
        raise refusal(marker, info.store, target_of(info.mode, info.store, info.namespace), action)


def unfinished_note(marker: dict[str, Any], store: str, target: str) -> str:
    """What opening a store whose restore is unfinished says."""
    export = marker.get("export")
    return (f"the store {store} holds an unfinished restore of {export!r} (started {marker.get('started_at')}): "
            "its reads are partial (only the partitions restored so far answer) and it refuses writes, exports, "
            f"reindexes and normalizations until the restore is finished: run the same import again (`vault-ray "
            f"import {export} {target}`, or `Vault.import_from({export!r})`), or delete the store and import the "
            "export again")


def warn_unfinished(backend: Any) -> None:
    """One warning when a vault opens a store whose restore is unfinished."""
    marker = restoring_of(backend)
    if marker is not None:
        info = backend.info()
        note = unfinished_note(marker, info.store, target_of(info.mode, info.store, info.namespace))
        warnings.warn(UnfinishedRestoreWarning(note), stacklevel=_outside_package())


def _outside_package() -> int:
    """The stack level of the first caller outside vault_ray (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "vault_ray":
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level
