"""How deep a claim's `meta` may nest. JSON nested a few hundred levels is small (1.5 KB
for 300 levels) yet beyond what the readers can walk: pydantic serializes at most ~250
levels, so an HTTP or MCP answer holding such a claim fails. Writes are refused past
MAX_META_DEPTH (`check_fact`); a claim an older store kept deeper reads with the part
below the limit replaced by a marker (`clipped`), so no read fails on it."""

from __future__ import annotations

import json
from typing import Any

from .errors import InvalidFact
from .texts import unstorable

MAX_META_DEPTH = 32
"""Levels of dicts and lists a fact's `meta` may nest (the dict itself is level 1)."""
CLIPPED = f"[meta nested deeper than {MAX_META_DEPTH} levels: not shown]"


def depth(value: Any) -> int:
    """Levels of dicts and lists in `value` (0 for a scalar), counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list | tuple))
    return deepest


def clipped(meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` itself when it nests at most MAX_META_DEPTH levels; else a copy with every
    dict or list below that level replaced by CLIPPED."""
    if depth(meta) <= MAX_META_DEPTH:
        return meta
    return _cut(meta, 1)  # type: ignore[no-any-return]


def _cut(value: Any, level: int) -> Any:
    if not isinstance(value, dict | list | tuple):
        return value
    if level > MAX_META_DEPTH:
        return CLIPPED
    if isinstance(value, dict):
        return {k: _cut(v, level + 1) for k, v in value.items()}
    return [_cut(v, level + 1) for v in value]


def check_meta(meta: dict[str, Any], index: int, max_text: int) -> None:
    """`meta` as the claim log keeps it: JSON with string keys, storable, of bounded size
    (at most 10 x the policy's max_text characters as JSON) and depth (MAX_META_DEPTH levels)."""
    if not all(isinstance(k, str) for k in meta):
        raise InvalidFact("meta keys must be strings", index=index, field="meta")
    if (levels := depth(meta)) > MAX_META_DEPTH:
        raise InvalidFact(f"meta nests {levels} levels of dicts and lists; at most {MAX_META_DEPTH}", index=index, field="meta")
    try:
        text = json.dumps(meta, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidFact(f"meta must be plain JSON (strings, numbers, booleans, None, lists, dicts): {exc}",
                          index=index, field="meta") from exc
    if (why := unstorable(text)) is not None:  # JSON escapes control characters: only a lone surrogate is left
        raise InvalidFact(f"meta {why}", index=index, field="meta")
    if len(text) > max_text * 10:
        raise InvalidFact(f"meta is {len(text)} characters as JSON; the policy allows {max_text * 10} (10 x its max_text)",
                          index=index, field="meta")
