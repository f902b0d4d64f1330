"""Policy files: a `Policy` as reviewable JSON, read by `vault-ray policy apply FILE`.

    {"format": "vault-ray-policy", "version": 1,
     "policy": {...Policy.to_dict()...},
     "proposal": {...}}        # optional: how `vault-ray eval --recommend` proposed it

The policy is the whole policy a store will run, not a patch. `proposal` is for the
reader and is not read back. A bare `Policy.to_dict()` object is accepted as well.

    vault.set_policy(read_policy_file("eval-out/proposal.json"))   # the Python API

Anything that is not a valid policy raises `InvalidPolicy` naming what is wrong; nothing
is applied.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from .errors import InvalidPolicy
from .policy import Policy

log = logging.getLogger(__name__)

FORMAT = "vault-ray-policy"
VERSION = 1

REMOVED = "removed"
"""The member a policy change's answer carries beside the policy (the settings the change removed,
`removed_settings`; the HTTP policy routes answer it). Read-only: a policy or patch sent back as it
was answered may hold it, and it is left out, never read as a setting (naming one there removes nothing)."""


def without_answer_fields(data: Any) -> Any:
    """`data` (a policy or a merge patch, as JSON) without `removed`, the member an answer carries beside
    the policy; InvalidPolicy when that is no list of setting names (nothing an answer held)."""
    if not isinstance(data, Mapping) or REMOVED not in data:
        return data
    given = data[REMOVED]
    if given is not None and (not isinstance(given, list | tuple) or not all(isinstance(r, str) for r in given)):
        raise InvalidPolicy(f"{REMOVED!r} is read-only (what a change's answer removed) and is ignored when sent back; "
                            f"it is a list of setting names, got {given!r}", value=given, field=REMOVED)
    return {k: v for k, v in data.items() if k != REMOVED}


def policy_to_file_data(policy: Policy, proposal: dict[str, Any] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "policy": policy.to_dict()}
    if proposal is not None:
        data["proposal"] = proposal
    return data


def write_policy_file(path: str | Path, policy: Policy, *, proposal: dict[str, Any] | None = None) -> Path:
    path = Path(path)
    path.write_text(json.dumps(policy_to_file_data(policy, proposal), indent=2, sort_keys=True, default=_plain) + "\n")
    return path


def _plain(value: object) -> object:
    if hasattr(value, "item"):  # numpy scalars in evidence
        return value.item()  # type: ignore[union-attr]
    raise TypeError(f"not JSON: {type(value).__name__}")


def read_policy_file(path: str | Path) -> Policy:
    """The policy in a policy file (or a bare Policy.to_dict() JSON object)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise InvalidPolicy(f"no policy file at {str(path)!r}", value=str(path)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidPolicy(f"{str(path)!r} is not a JSON policy file ({exc})", value=str(path)) from None
    return policy_from_file_data(data)


def policy_from_file_data(data: object) -> Policy:
    if not isinstance(data, dict):
        raise InvalidPolicy(f"a policy file holds a JSON object, got {type(data).__name__}", value=data)
    if "policy" in data:
        stray = sorted(set(data) - {"format", "version", "policy", "proposal"})
        if stray:  # a setting put beside "policy" instead of in it would be dropped
            raise InvalidPolicy(f"unknown keys beside \"policy\": {stray} (settings go inside \"policy\")", value=stray)
        if data.get("format", FORMAT) != FORMAT:
            raise InvalidPolicy(f"not a vault-ray policy file (format {data.get('format')!r})", value=data.get("format"))
        version = data.get("version", VERSION)
        if not isinstance(version, int) or version > VERSION:
            raise InvalidPolicy(f"policy file version {version!r} is newer than this vault-ray reads ({VERSION})",
                                value=version)
        data = data["policy"]
    return policy_from_dict(data)


def policy_from_dict(data: object) -> Policy:
    """`Policy.from_dict` with every mistake as an `InvalidPolicy`."""
    if not isinstance(data, dict):
        raise InvalidPolicy(f"a policy is a JSON object, got {type(data).__name__}", value=data)
    data = without_answer_fields(data)  # a policy saved from an HTTP change's answer
    unknown = sorted(set(data) - {f.name for f in fields(Policy)})
    if unknown:
        raise InvalidPolicy(f"unknown policy settings: {', '.join(unknown)}", value=unknown)
    _check_shapes(data)
    try:
        return Policy.from_dict(data)
    except InvalidPolicy:
        raise
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidPolicy(f"invalid policy: {exc}", value=data) from None


def _check_shapes(data: dict[str, Any]) -> None:
    """Containers of the wrong kind would be half-read (a string of high-stakes patterns
    is a sequence of one-letter patterns): refuse them by name."""
    for name in ("strategies", "cardinality", "on_ambiguous", "authority"):
        if name in data and not isinstance(data[name], dict):
            raise InvalidPolicy(f"{name} must be an object of pattern -> value", value=data[name])
    for agent, table in (data.get("authority") or {}).items():
        if not isinstance(table, dict):
            raise InvalidPolicy(f"authority of {agent!r} must be an object of pattern -> weight", value=table)
    stakes = data.get("high_stakes", [])
    if not isinstance(stakes, list | tuple) or not all(isinstance(p, str) for p in stakes):
        raise InvalidPolicy("high_stakes must be a list of patterns", value=stakes)
    version = data.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidPolicy(f"version must be a non-negative integer, got {version!r}", value=version)


def policy_changes(old: Policy, new: Policy) -> list[tuple[str, object, object]]:
    """What applying `new` over `old` changes, one (setting, before, after) per line:
    tables are compared entry by entry (`strategies[user.diet]`, `authority[chat][*]`);
    the version is not a setting."""
    before, after = old.to_dict(), new.to_dict()
    out: list[tuple[str, object, object]] = []
    for name in before:
        if name == "version" or before[name] == after[name]:
            continue
        a, b = before[name], after[name]
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                x, y = a.get(key), b.get(key)
                if isinstance(x, dict) or isinstance(y, dict):
                    x, y = x or {}, y or {}
                    out += [(f"{name}[{key}][{k}]", x.get(k), y.get(k)) for k in sorted(set(x) | set(y))
                            if x.get(k) != y.get(k)]
                elif x != y:
                    out.append((f"{name}[{key}]", x, y))
        else:
            out.append((name, a, b))
    return out


def removed_settings(old: Policy, new: Policy) -> list[str]:
    """The settings of `old` that `new` no longer has, as `policy_changes` names them: a table
    entry gone (`strategies[user.diet]`, `authority[chat][*]`) and each item gone from a list
    (`high_stakes: user.payment.*`). What `vault-ray policy apply` notes a file removes, and what
    the HTTP policy routes answer in `removed`."""
    changes = policy_changes(old, new)
    removed = [name for name, before, after in changes if before is not None and after is None]
    removed += [f"{name}: {item}" for name, before, after in changes if isinstance(before, list | tuple)
                and isinstance(after, list | tuple) for item in before if item not in after]
    return removed


def replaced_whole(removed: Iterable[str], patch: Mapping[str, Any]) -> list[str]:
    """Of `removed` (a change's `removed_settings`), those a patch dropped without naming them:
    the items of a list it gave in place of the policy's (`high_stakes` is replaced whole), not
    the entries it removed on purpose with a null."""
    whole = {name for name, value in patch.items() if isinstance(value, list | tuple)}
    return [r for r in removed if r.partition(":")[0] in whole]


def removal_note(removed: Sequence[str]) -> str:
    """The warning for the high-stakes patterns (list items) a change dropped, each list's together."""
    lists: dict[str, list[str]] = {}
    for r in removed:
        name, _, item = r.partition(": ")
        lists.setdefault(name if item else r, []).extend([item] if item else [])
    said = "; ".join(f"{name}: {', '.join(items)}" if items else name for name, items in lists.items())
    n = len(removed)
    return (f"vault-ray: this policy change removes {n} setting{'s' if n != 1 else ''} the policy had ({said}): a "
            f"list is replaced whole, so a dropped high-stakes pattern no longer waits for a person. To add one pattern "
            f"and keep the others: add_high_stakes(pattern) (POST /v1/policy/high-stakes, `vault-ray high-stakes PATTERN`)")


def high_stakes_list(patterns: object) -> tuple[str, ...]:
    """`patterns` as the list of high-stakes patterns it is meant to be; one string is refused
    (it is no list of one-letter patterns)."""
    if isinstance(patterns, str | bytes) or not isinstance(patterns, Iterable):
        raise InvalidPolicy(f"high_stakes takes a list of patterns, got {patterns!r}", value=patterns,
                            field="high_stakes")
    return tuple(patterns)


def warn_removed(removed: list[str]) -> None:
    if removed:
        log.warning(removal_note(removed))


def without_newline_keys(policy: Any, registry: Any) -> tuple[Any, Any, list[str]]:
    """A saved policy and registry (their JSON) without the keys, patterns and aliases that end in a
    newline, and what was left out. The key check before this version took `"user.x\\n"` (its `$` matched
    before a final newline); no write can reach such a key now and the check refuses it, so a store or an
    export that holds one would not open: the caller warns and reads the rest."""
    def bad(key: object) -> bool:
        return isinstance(key, str) and key.endswith("\n")

    dropped: list[str] = []

    def kept(table: Any, name: str) -> Any:
        if not isinstance(table, dict) or not any(bad(k) for k in table):
            return table
        dropped.extend(f"{name}[{k!r}]" for k in table if bad(k))
        return {k: v for k, v in table.items() if not bad(k)}

    if isinstance(policy, dict):
        policy = {**policy, **{name: kept(policy[name], name) for name in ("strategies", "cardinality", "on_ambiguous")
                               if name in policy}}
        if isinstance(policy.get("authority"), dict):
            policy["authority"] = {a: kept(t, f"authority[{a!r}]") for a, t in policy["authority"].items()}
        if isinstance(policy.get("high_stakes"), list) and any(bad(p) for p in policy["high_stakes"]):
            dropped.extend(f"high_stakes {p!r}" for p in policy["high_stakes"] if bad(p))
            policy["high_stakes"] = [p for p in policy["high_stakes"] if not bad(p)]
    if isinstance(registry, list):
        dropped.extend(f"registry entry {e['key']!r}" for e in registry if isinstance(e, dict) and bad(e.get("key")))
        registry = [e for e in registry if not (isinstance(e, dict) and bad(e.get("key")))]
        for i, e in enumerate(registry):
            if isinstance(e, dict) and isinstance(e.get("aliases"), list) and any(bad(a) for a in e["aliases"]):
                dropped.extend(f"alias {a!r} of {e.get('key')!r}" for a in e["aliases"] if bad(a))
                registry[i] = {**e, "aliases": [a for a in e["aliases"] if not bad(a)]}
    return policy, registry, dropped
