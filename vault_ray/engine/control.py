"""A store's policy and entity registry on disk (STORE/control.json, rewritten
atomically): the one place they are loaded from and saved to, for embedded mode,
the cluster's control actor and shards, and the bulk jobs."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from vault_ray.storage.layout import control_path, partitions_dir, read_json, write_json

from ..errors import InvalidInput, InvalidPolicy, PolicyConflict, StoreError
from ..policy import MAX_SAME_EVENT_WINDOW_S, Policy, check_authority_agent, clamp_saved_window
from ..policy_file import without_newline_keys
from ..registry import EntityRegistry, RegistryEntry, check_entry_size
from .cardinality import check_narrowing


class ControlFile:
    def __init__(self, root: str | Path) -> None:
        self.path = control_path(root)

    def load(self, policy: Policy | None = None, registry: EntityRegistry | None = None) -> tuple[Policy, EntityRegistry]:
        """The given policy and registry, else the saved ones, else the defaults. A policy
        given for a store that has one is a change of it: checked as `set_policy` checks one
        (no rule on an alias) and numbered after the saved version, so a version read before
        still meets PolicyConflict; the same policy again keeps the saved version."""
        if policy is not None:
            a_policy(policy)
        if registry is not None and not isinstance(registry, EntityRegistry):
            raise InvalidInput(f"registry must be an EntityRegistry, got {type(registry).__name__}")
        saved_policy, saved_registry = self._saved()
        # the caller's own registry stays theirs: adding to it later does not change the store's (register does)
        registry = registry.copy() if registry else saved_registry or EntityRegistry.builtin()
        if policy is None or saved_policy is None:
            if policy is not None:
                check_rules(policy, Policy(), registry)  # a new store's too: no rule on an alias
            return policy or saved_policy or Policy(), registry
        return changed_policy(saved_policy, policy, registry), registry

    def _saved(self) -> tuple[Policy | None, EntityRegistry | None]:
        """The saved policy and registry (None: not saved). A store that holds claims but has no
        control.json (deleted, not restored with the rest) is opened with the default policy
        and registry, and a warning says so: its decisions follow other rules from now on."""
        data = read_json(self.path)
        if data is None and self.path.exists() or data is not None and (
                not isinstance(data, dict) or not {"policy", "registry"} & set(data)
                or not isinstance(data.get("policy", {}), dict) or not isinstance(data.get("registry", []), list)):
            raise StoreError(f"cannot read {self.path}: expected an object with the policy and the registry, got "
                             f"{type(data).__name__}; nothing was changed (restore it from a backup, or fix it by hand)")
        if data is None:
            if any(partitions_dir(self.path.parent).glob("p*.duckdb")):
                log.warning("vault-ray: %s is missing although the store holds claims: its policy and entity registry "
                            "are the defaults (or those given) from now on. Restore the file from a backup, or set the "
                            "policy again, if the store had its own", self.path)
            return None, None
        if isinstance(data.get("policy"), dict) and (clamped := clamp_saved_window(data["policy"])) is not data["policy"]:
            log.warning("vault-ray: the saved policy in %s has same_event_window_s %r, above the cap of %.0f seconds "
                        "(366 days): it is read as %.0f; set the policy again to store a valid window", self.path,
                        data["policy"]["same_event_window_s"], MAX_SAME_EVENT_WINDOW_S, MAX_SAME_EVENT_WINDOW_S)
            data = {**data, "policy": clamped}
        policy, registry, dropped = without_newline_keys(data.get("policy"), data.get("registry"))
        if dropped:  # saved before the key check refused a trailing newline: the store opens without them
            log.warning("vault-ray: %s holds keys that end in a newline, which no entity key does (an older check let "
                        "them through): read without them: %s. Set them again on the key meant", self.path,
                        ", ".join(dropped))
            data = {**data, **({"policy": policy} if "policy" in data else {}),
                    **({"registry": registry} if "registry" in data else {})}
        try:
            return (Policy.from_dict(data["policy"]) if "policy" in data else None,
                    EntityRegistry.from_list(data["registry"]) if "registry" in data else None)
        except (InvalidInput, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreError(f"cannot read {self.path}: {exc}; nothing was changed (restore it from a backup, "
                             "or fix it by hand)") from exc

    def save(self, policy: Policy, registry: EntityRegistry) -> None:
        write_json(self.path, {"policy": policy.to_dict(), "registry": registry.to_list()})


log = logging.getLogger(__name__)

CHANGE_TRIES = 100
"""Times a policy change is read, applied and stored again when other changes keep
landing between its read and its store (`change_policy`), with a growing random pause."""


def a_policy(value: object) -> Policy:
    """`value`, which must be a Policy (else InvalidInput)."""
    if not isinstance(value, Policy):
        raise InvalidInput(f"expected a Policy, got {type(value).__name__}")
    return value


def named(policy: Policy) -> set[str]:
    """The keys and patterns a policy's tables name (`user.tz`, `user.budget.*`)."""
    return {key for table in policy.tables() for key in table}


def registered(registry: EntityRegistry, policy: Policy, entry: object) -> EntityRegistry:
    """A copy of `registry` with `entry` added (InvalidInput for a non-entry). An alias the
    policy names is said in the log: writes to it go to the key, so its rules stop applying
    (a label `normalize` retires keeps them for its history)."""
    if not isinstance(entry, RegistryEntry):
        raise InvalidInput(f"register takes a RegistryEntry, got {type(entry).__name__}")
    check_entry_size(entry)
    _no_clash(registry, entry)
    _no_lowering(registry, policy, entry)
    for alias in sorted(set(entry.aliases) & named(policy)):
        log.warning("vault-ray: %r is now an alias of %r: the policy's rules on %r no longer apply to new writes "
                    "(name %r in the policy)", alias, entry.key, alias, entry.key)
    new = registry.copy()
    new.add(entry)
    return new


def _no_clash(registry: EntityRegistry, entry: RegistryEntry) -> None:
    """InvalidInput for an entry that would take a name from another: its key is another
    entry's alias (writes to it go there), or an alias of it is another entry's key or
    alias, or its own key (one name, two meanings: one of them silently stops applying)."""
    owner = {alias: e.key for e in registry.entries.values() if e.key != entry.key for alias in e.aliases}
    if entry.key in owner:
        raise InvalidInput(f"{entry.key!r} is an alias of {owner[entry.key]!r}: writes to it are stored there. "
                           f"Add aliases to {owner[entry.key]!r}, or remove {entry.key!r} from its aliases first")
    for alias in entry.aliases:
        if alias == entry.key:
            raise InvalidInput(f"{alias!r} is the entry's own key; an alias names another label")
        if alias in owner:
            raise InvalidInput(f"{alias!r} is already an alias of {owner[alias]!r}; remove it there first")
        if alias in registry.entries:
            raise InvalidInput(f"{alias!r} is a registry key of its own; it cannot also be an alias of {entry.key!r}")


def _no_lowering(registry: EntityRegistry, policy: Policy, entry: RegistryEntry) -> None:
    """InvalidInput for a new alias the policy calls high stakes on a key it does not: writes to the
    alias would land on the key, where a strategy settles their conflicts with no person asked."""
    old = registry.entries.get(entry.key)
    for alias in entry.aliases:
        if policy.is_high_stakes(alias) and not policy.is_high_stakes(entry.key) and (old is None or alias not in old.aliases):
            raise InvalidInput(f"{alias!r} is high stakes (policy.high_stakes: its conflicts wait for a person) and "
                               f"{entry.key!r} is not: as an alias its writes would land there and be settled by a "
                               f"strategy. Add {entry.key!r} to high_stakes first, or use a high-stakes key")


def unmerged_aliases(backend: Any, registry: EntityRegistry, entry: object, check: object = True) -> None:
    """InvalidInput for a new alias of `entry` that holds live claims: writes to the alias
    would go to the key and never meet them (one fact on two keys, no conflict found)."""
    if not isinstance(check, bool):
        raise InvalidInput(f"check_claims must be True or False, got {check!r}")
    if not check or not isinstance(entry, RegistryEntry):
        return
    new = [a for a in entry.aliases if isinstance(a, str) and registry.canonical(a) != entry.key]
    views = backend.views(set(new)) if new else {}
    held = sorted(a for a, view in views.items() if view.active or view.candidates)
    if held:
        raise InvalidInput(f"{held[0]!r} holds live claims: as an alias of {entry.key!r} its new writes would go there and "
                           f"never meet them. Merge it with `vault-ray normalize` (it moves the claims, then adds the alias)")


def check_rules(new: Policy, current: Policy, registry: EntityRegistry) -> None:
    """InvalidPolicy for a rule `new` adds on a registered alias (it would never apply), or for an
    authority agent it adds whose name no agent may write under (a reserved prefix)."""
    for agent in set(new.authority) - set(current.authority):
        check_authority_agent(agent)
    for key in named(new) - named(current):
        refuse_alias(key, registry)


def refuse_alias(key: object, registry: EntityRegistry, *, removal: bool = False) -> None:
    """InvalidPolicy naming the key when `key` is a registered alias (`user.city` of `user.location`):
    writes to it are stored under the key, so a rule on the alias would never apply, and the rule a
    removal means (`removal`) is the key's, which the alias does not name. Other names pass."""
    if not isinstance(key, str) or (canonical := registry.canonical(key)) == key:
        return
    why = "the policy holds no rule on the alias to remove" if removal else "a rule on the alias would never apply"
    raise InvalidPolicy(f"{key!r} is an alias of {canonical!r}: writes to it are stored there, so {why}; "
                        f"name {canonical!r}", value=key)


def unchanged(new: Policy, current: Policy) -> bool:
    """Whether `new` says what `current` says (its version aside; its high-stakes patterns in
    any order): such a change stores nothing and keeps the version, whatever surface made it."""
    if set(new.high_stakes) == set(current.high_stakes):
        new = replace(new, high_stakes=current.high_stakes)
    return replace(new, version=current.version) == current


def changed_policy(saved: Policy, given: Policy, registry: EntityRegistry) -> Policy:
    """`given` as the store's next policy after `saved`: the same again keeps the saved version
    (a change that changes nothing stores nothing), another is numbered after it."""
    if unchanged(given, saved):
        return saved
    check_rules(given, saved, registry)
    return replace(given, version=saved.version + 1)


def change_policy(backend: Any, change: Callable[[Policy], Policy], version: int | None = None) -> Policy:
    """`change` applied to the store's policy, stored only if no other change landed in
    between, so threads, processes and the HTTP service's replicas never undo each
    other's changes. An embedded store reads, changes and stores under one lock; in
    cluster mode the control actor stores a policy only against the version it was read
    at, and a change that lost the race is applied again to the newer policy. With
    `version` given, the policy must be at that version instead (PolicyConflict, nothing
    changed). A change that makes an entity holding values at odds `one` is refused
    (engine/cardinality.py)."""
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise InvalidInput(f"version must be an integer, got {version!r}")
    backend.refuse_while_restoring()  # a store whose restore is unfinished: before checks that read it
    registry = backend.control()[1]

    def checked(current: Policy) -> Policy:
        if version is not None and version != current.version:
            raise PolicyConflict(version, current.version)
        new = a_policy(change(current))
        check_rules(new, current, registry)
        if unchanged(new, current):
            return current
        check_narrowing(backend, (current, registry), (new, registry))  # many -> one over values at odds
        return new

    under_lock = getattr(backend, "change_policy", None)
    if under_lock is not None:
        return under_lock(checked)  # type: ignore[no-any-return]
    for attempt in range(CHANGE_TRIES):
        current = backend.control()[0]
        new = checked(current)
        if new is current:
            return current
        try:
            backend.set_policy(new, current.version)
            return new
        except PolicyConflict:
            if version is not None:
                raise
            time.sleep(random.uniform(0, min(0.05, 0.001 * 2**attempt)))
    raise PolicyConflict(current.version, backend.control()[0].version)
