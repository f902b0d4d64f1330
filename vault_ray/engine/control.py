"""A store's policy and entity registry on disk (STORE/control.json, rewritten
atomically): the one place they are loaded from and saved to, for embedded mode,
the cluster's control actor and shards, and the bulk jobs."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vault_ray.storage.layout import control_path, read_json, write_json

from ..errors import InvalidInput, PolicyConflict
from ..policy import Policy
from ..registry import EntityRegistry


class ControlFile:
    def __init__(self, root: str | Path) -> None:
        self.path = control_path(root)

    def load(self, policy: Policy | None = None, registry: EntityRegistry | None = None) -> tuple[Policy, EntityRegistry]:
        """The given policy and registry, else the saved ones, else the defaults."""
        data = read_json(self.path) or {}
        saved_policy = Policy.from_dict(data["policy"]) if "policy" in data else None
        saved_registry = EntityRegistry.from_list(data["registry"]) if "registry" in data else None
        return (policy or saved_policy or Policy(), registry or saved_registry or EntityRegistry.builtin())

    def save(self, policy: Policy, registry: EntityRegistry) -> None:
        write_json(self.path, {"policy": policy.to_dict(), "registry": registry.to_list()})


CHANGE_TRIES = 100
"""Times a policy change is read, applied and stored again when other changes keep
landing between its read and its store (`change_policy`), with a growing random pause."""


def a_policy(value: object) -> Policy:
    """`value`, which must be a Policy (else InvalidInput)."""
    if not isinstance(value, Policy):
        raise InvalidInput(f"expected a Policy, got {type(value).__name__}")
    return value


def change_policy(backend: Any, change: Callable[[Policy], Policy], version: int | None = None) -> Policy:
    """`change` applied to the store's policy, stored only if no other change landed in
    between, so threads, processes and the HTTP service's replicas never undo each
    other's changes. An embedded store reads, changes and stores under one lock; in
    cluster mode the control actor stores a policy only against the version it was read
    at, and a change that lost the race is applied again to the newer policy. With
    `version` given, the policy must be at that version instead (PolicyConflict, nothing
    changed)."""
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise InvalidInput(f"version must be an integer, got {version!r}")

    def checked(current: Policy) -> Policy:
        if version is not None and version != current.version:
            raise PolicyConflict(version, current.version)
        return a_policy(change(current))

    under_lock = getattr(backend, "change_policy", None)
    if under_lock is not None:
        return under_lock(checked)  # type: ignore[no-any-return]
    for attempt in range(CHANGE_TRIES):
        current = backend.control()[0]
        new = checked(current)
        try:
            backend.set_policy(new, current.version)
            return new
        except PolicyConflict:
            if version is not None:
                raise
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
    raise PolicyConflict(current.version, backend.control()[0].version)
