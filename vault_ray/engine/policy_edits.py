"""The policy setters of `Vault`: the whole policy, a patch, one part (an agent's weight, a
pattern's strategy or cardinality, a high-stakes pattern added or removed).

`high_stakes` is a list, and a list given (`patch_policy({"high_stakes": [...]})`,
`set_high_stakes`, `PUT /v1/policy/high-stakes`) replaces it whole: the patterns it leaves out,
the default payment, consent and budget ones too, are dropped. Such a change logs a warning
naming them (`policy_file.removal_note`), and the HTTP routes answer them in `removed`;
`add_high_stakes` / `remove_high_stakes` change one pattern and keep the others."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from ..errors import InvalidPolicy
from ..policy import Policy, validate_pattern
from ..policy_file import high_stakes_list, removed_settings, replaced_whole, warn_removed
from .control import a_policy, change_policy
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


def with_high_stakes(current: Policy, pattern: str) -> Policy:
    """`current` with `pattern` among its high-stakes patterns (unchanged when it is one already)."""
    validate_pattern(pattern)
    return current if pattern in current.high_stakes else current.updated(high_stakes=(*current.high_stakes, pattern))


def without_high_stakes(current: Policy, pattern: str) -> Policy:
    """`current` without the high-stakes pattern `pattern`; InvalidPolicy, nothing changed, when
    it is not one of them (a typo would otherwise leave the protection in place unnoticed)."""
    validate_pattern(pattern)
    if pattern not in current.high_stakes:
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
        dropped. `version`: only while the policy is at it (PolicyConflict otherwise)."""
        return edited(self._backend, change, version)

    def set_policy(self, policy: Policy, *, if_version: int | None = None) -> None:
        """Replace the policy (stored as the next version); `if_version`: only while it is at that version."""
        change_policy(self._backend, lambda current: replace(a_policy(policy), version=current.version + 1), if_version)

    def patch_policy(self, patch: dict[str, Any], *, version: int | None = None) -> Policy:
        """Change what `patch` names, keep the rest (`Policy.patched`); `version`: only while the policy
        is at it. A list given (`high_stakes`) replaces the policy's whole: the patterns it leaves out
        are dropped, and a warning names them (`add_high_stakes` adds one and keeps the others)."""
        old, new = edited(self._backend, lambda current: current.patched(patch), version)
        warn_removed(replaced_whole(removed_settings(old, new), patch))
        return new

    def set_authority(self, agent: str, pattern: str, weight: float) -> None:
        change_policy(self._backend, lambda current: current.with_authority(agent, pattern, weight))

    def set_strategy(self, pattern: str, strategy: str) -> None:
        change_policy(self._backend, lambda current: current.with_strategy(pattern, strategy))

    def set_cardinality(self, pattern: str, cardinality: str) -> None:
        change_policy(self._backend, lambda current: current.with_cardinality(pattern, cardinality))

    def add_high_stakes(self, pattern: str) -> Policy:
        """Make the entities `pattern` matches high stakes (their conflicts wait for a person),
        keeping every other high-stakes pattern; the new policy (unchanged if it was one already)."""
        return change_policy(self._backend, lambda current: with_high_stakes(current, pattern))

    def remove_high_stakes(self, pattern: str) -> Policy:
        """Drop the high-stakes pattern `pattern`, keeping the others; InvalidPolicy, nothing
        changed, when the policy has no such pattern. The new policy."""
        return change_policy(self._backend, lambda current: without_high_stakes(current, pattern))

    def set_high_stakes(self, patterns: Iterable[str]) -> Policy:
        """Replace the high-stakes patterns with `patterns`, whole: a warning names the patterns
        it drops (the defaults too, when left out). The new policy."""
        given = high_stakes_list(patterns)
        old, new = edited(self._backend, lambda current: current.updated(high_stakes=given))
        warn_removed(removed_settings(old, new))
        return new
