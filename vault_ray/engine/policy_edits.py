"""The policy setters of `Vault`: the whole policy, a patch, one part (an agent's weight, a
pattern's strategy or cardinality, a high-stakes pattern added or removed).

`high_stakes` is a list, and a list given (`patch_policy({"high_stakes": [...]})`,
`set_high_stakes`, `PUT /v1/policy/high-stakes`) replaces it whole: the patterns it leaves out,
the default payment, consent and budget ones too, are dropped. Such a change logs a warning
naming them (`policy_file.removal_note`), and the HTTP routes answer them in `removed`;
`add_high_stakes` / `remove_high_stakes` change one pattern and keep the others.

A rule is named by an entity's key, never by a registered alias (writes to `user.city` are
stored under `user.location`): a rule added on an alias is refused (`control.check_rules`), and
so is a removal that names an alias the table does not hold (a patch's null, `remove_high_stakes`),
which would otherwise change nothing and answer as if it had (`patched`, `refuse_alias`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import InvalidPolicy
from ..policy import Policy, check_authority_agent, validate_pattern
from ..policy_file import high_stakes_list, removed_settings, replaced_whole, warn_removed, without_answer_fields
from ..registry import EntityRegistry
from .control import a_policy, change_policy, refuse_alias
from .stakes import covering_pattern


def edited(backend: Any, change: Callable[[Policy], Policy], version: int | None = None) -> tuple[Policy, Policy]:
    """(the policy `change` was applied to, the policy stored): `change_policy`, which may apply
    `change` again to a newer policy when another change overtook it; the last one applied counts."""
    seen: list[Policy] = []

    def tracked(current: Policy) -> Policy:
        seen.append(current)
        return change(current)

    new = change_policy(backend, tracked, version)
    return (seen[-1] if seen else new), new


TABLES = ("strategies", "cardinality", "on_ambiguous")
"""The policy's tables of pattern: setting a merge patch may remove a name from (and each agent's authority)."""


def removed_names(patch: object) -> list[tuple[str, str | None, str]]:
    """The names a merge patch removes from the policy's tables, each as (table, agent or None,
    name): a key given as None in `strategies`, `cardinality`, `on_ambiguous` or an agent's
    `authority` table (an agent given as None removes its whole table: no name)."""
    if not isinstance(patch, Mapping):
        return []
    found: list[tuple[str, str | None, str]] = [
        (table, None, name) for table in TABLES if isinstance(patch.get(table), Mapping)
        for name, value in patch[table].items() if value is None]
    authority = patch.get("authority")
    for agent, table in (authority.items() if isinstance(authority, Mapping) else ()):
        found += [("authority", agent, name) for name, value in (table.items() if isinstance(table, Mapping) else ())
                  if value is None]
    return found


def patched(current: Policy, patch: Any, registry: EntityRegistry) -> Policy:
    """`current.patched(patch)`, refusing (InvalidPolicy naming the key, nothing changed) a name the
    patch removes that is a registered alias its table does not hold: the rule meant is on the key
    (`{"strategies": {"user.city": None}}` would else change nothing and answer 200). A rule on the
    alias kept from before it was registered is still removed by its name. The `removed` of an answer
    sent back with it is left out (`without_answer_fields`)."""
    patch = without_answer_fields(patch)
    for table, agent, name in removed_names(patch):
        held = current.authority.get(agent, {}) if table == "authority" else getattr(current, table)
        if not isinstance(name, str) or name not in held:
            refuse_alias(name, registry, removal=True)
    authority = patch.get("authority") if isinstance(patch, Mapping) else None
    for agent, table in (authority.items() if isinstance(authority, Mapping) else ()):
        if table is not None and agent not in current.authority:  # no name an agent may not write under,
            check_authority_agent(agent)  # though its table is empty (an empty table is none: unstored)
    return current.patched(patch)


def unaliased(pattern: object, held: Mapping[str, Any], registry: EntityRegistry, value: object = "") -> None:
    """InvalidPolicy when a setter names an alias (`set_strategy("user.city", ...)`), checked before its
    `value`: `set_strategy(alias, None)` is refused as the removal a patch's null is, naming the key,
    not for the None. A name the table holds already (a rule from before the alias was registered)
    may still be changed."""
    if not isinstance(pattern, str) or pattern not in held:
        refuse_alias(pattern, registry, removal=value is None)


def removed(current: Policy, table: str, pattern: str, agent: object = None) -> Policy:
    """`current` without the rule on `pattern` in `table` (of `agent`, in `authority`): a setter given
    None, as `PATCH` given a null; a pattern the table does not hold changes nothing."""
    validate_pattern(pattern)
    if table == "authority":
        if not isinstance(agent, str) or not agent:
            raise InvalidPolicy("agent must be a non-empty string", value=agent)
        if agent not in current.authority:
            check_authority_agent(agent)
        return current.patched({"authority": {agent: {pattern: None}}})
    return current.patched({table: {pattern: None}})


def with_high_stakes(current: Policy, pattern: str) -> Policy:
    """`current` with `pattern` among its high-stakes patterns (unchanged when it is one already)."""
    validate_pattern(pattern)
    return current if pattern in current.high_stakes else current.updated(high_stakes=(*current.high_stakes, pattern))


def without_high_stakes(current: Policy, pattern: str, registry: EntityRegistry | None = None) -> Policy:
    """`current` without the high-stakes pattern `pattern`; InvalidPolicy, nothing changed, when
    it is not one of them (a typo would otherwise leave the protection in place unnoticed), naming
    the key when `pattern` is an alias in `registry` (the pattern to remove is the key's)."""
    validate_pattern(pattern)
    if pattern not in current.high_stakes:
        if registry is not None:
            refuse_alias(pattern, registry, removal=True)
        wider = covering_pattern(current, pattern[:-2] if pattern.endswith(".*") else pattern) if pattern != "*" else None
        covered = f"; {pattern!r} is covered by {wider!r}" if wider else ""
        raise InvalidPolicy(f"{pattern!r} is not a high-stakes pattern of the policy{covered} (its patterns: "
                            f"{', '.join(current.high_stakes) or 'none'})", value=pattern, field="high_stakes")
    return current.updated(high_stakes=tuple(p for p in current.high_stakes if p != pattern))


class PolicyEdits:
    """The policy setters `Vault` has (the backend is `self._backend`)."""

    _backend: Any

    def edit_policy(self, change: Callable[[Policy], Policy], *, version: int | None = None) -> tuple[Policy, Policy]:
        """Apply `change` (a function of the store's policy to the new one) as every setter does: stored
        only if no other change landed in between, else applied again to the newer policy. (the policy
        it was applied to, the policy stored); `removed_settings(*vault.edit_policy(f))` names what it
        dropped. `version`: only while the policy is at it (PolicyConflict otherwise). A rule `change`
        adds on a registered alias is refused; to apply a merge patch, whose null on an alias is
        refused too, `change` is `lambda current: patched(current, patch, vault.registry)`."""
        return edited(self._backend, change, version)

    def set_policy(self, policy: Policy, *, if_version: int | None = None) -> None:
        """Replace the policy (stored as the next version); `if_version`: only while it is at that version."""
        change_policy(self._backend, lambda current: replace(a_policy(policy), version=current.version + 1), if_version)

    def patch_policy(self, patch: dict[str, Any], *, version: int | None = None) -> Policy:
        """Change what `patch` names, keep the rest (`Policy.patched`); `version`: only while the policy
        is at it. A list given (`high_stakes`) replaces the policy's whole: the patterns it leaves out
        are dropped, and a warning names them (`add_high_stakes` adds one and keeps the others)."""
        registry = self._backend.control()[1]
        old, new = edited(self._backend, lambda current: patched(current, patch, registry), version)
        warn_removed(replaced_whole(removed_settings(old, new), patch))
        return new

    def set_authority(self, agent: str, pattern: str, weight: float | None) -> None:
        """`agent`'s weight on `pattern`; None removes that entry (as a patch's null: nothing to remove, no change)."""
        self._set(pattern, weight, lambda current: current.authority.get(agent, {}) if isinstance(agent, str) else {},
                  lambda current: current.with_authority(agent, pattern, weight) if weight is not None
                  else removed(current, "authority", pattern, agent))

    def set_strategy(self, pattern: str, strategy: str | None) -> None:
        """The strategy of `pattern`; None removes its rule (the key falls back to a wider pattern or the default)."""
        self._set(pattern, strategy, lambda current: current.strategies,
                  lambda current: current.with_strategy(pattern, strategy) if strategy is not None  # type: ignore[arg-type]
                  else removed(current, "strategies", pattern))

    def set_cardinality(self, pattern: str, cardinality: str | None) -> None:
        """The cardinality of `pattern`; None removes its rule (the registry's or the default then holds)."""
        self._set(pattern, cardinality, lambda current: current.cardinality,
                  lambda current: current.with_cardinality(pattern, cardinality) if cardinality is not None  # type: ignore[arg-type]
                  else removed(current, "cardinality", pattern))

    def _set(self, pattern: str, value: object, table: Callable[[Policy], Mapping[str, Any]],
             change: Callable[[Policy], Policy]) -> None:
        """`change` stored, after refusing a `pattern` that is an alias (`unaliased`)."""
        registry = self._backend.control()[1]

        def checked(current: Policy) -> Policy:
            unaliased(pattern, table(current), registry, value)
            return change(current)

        change_policy(self._backend, checked)

    def add_high_stakes(self, pattern: str) -> Policy:
        """Make the entities `pattern` matches high stakes (their conflicts wait for a person),
        keeping every other high-stakes pattern; the new policy (unchanged if it was one already)."""
        return change_policy(self._backend, lambda current: with_high_stakes(current, pattern))

    def remove_high_stakes(self, pattern: str) -> Policy:
        """Drop the high-stakes pattern `pattern`, keeping the others; InvalidPolicy, nothing
        changed, when the policy has no such pattern. The new policy."""
        registry = self._backend.control()[1]
        return change_policy(self._backend, lambda current: without_high_stakes(current, pattern, registry))

    def set_high_stakes(self, patterns: Iterable[str]) -> Policy:
        """Replace the high-stakes patterns with `patterns`, whole: a warning names the patterns
        it drops (the defaults too, when left out). The new policy."""
        given = high_stakes_list(patterns)
        old, new = edited(self._backend, lambda current: current.updated(high_stakes=given))
        warn_removed(removed_settings(old, new))
        return new
