"""A store's policy and entity registry on disk (STORE/control.json, rewritten
atomically): the one place they are loaded from and saved to, for embedded mode,
the cluster's control actor and shards, and the bulk jobs."""

from __future__ import annotations

from pathlib import Path

from vault_ray.storage.layout import control_path, read_json, write_json

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
