""""Did you mean": the stored entity keys closest to one that holds no claims (a typo,
`user.emplyer` for `user.employer`), for the empty view `Vault.get` answers it.

The keys suggested are those with any claim: live ones, and those whose every claim was
superseded, retracted (`forget`) or erased, whose history is still there to read (`history
user.timezon` after `forget user.timezone` hints the forgotten key; an erasure keeps the
entity key in the provenance skeleton, docs/design.md "Erasure", so it is no secret here
either). Bounded for large stores: each partition keeps those keys sorted twice, as
written and reversed (`KeyIndex`, dropped by a commit that adds an entity, rebuilt on the
next miss). A miss looks at the keys next to it in both orders, which
share its beginning or its end: a typo anywhere but at both ends at once lands among
them. Only those few are scored (difflib's ratio, on the part after a shared subject, so that
`user.` alone never makes two keys alike); a partition answers its best few.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from typing import Any, Protocol, TypeVar

from ..errors import EntityNotFound
from ..models import EntityView, Found

T = TypeVar("T")

MAX_SUGGESTIONS = 3
"""Most keys one empty view suggests."""
CUTOFF = 0.75
"""Least similarity (difflib's ratio, 0 to 1) of a suggested key."""
WINDOW = 32
"""Neighbours looked at on each side of a missed key, in each order, per partition."""

Similar = list[tuple[float, str]]
"""(similarity, key), best first."""


class KeyIndex:
    """One partition's entity keys with any claim, sorted as written and reversed."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = set(keys)
        self.forward = sorted(self.keys)
        self.backward = sorted(k[::-1] for k in self.forward)

    def holds(self, touched: Iterable[str], present: Callable[[str], bool]) -> bool:
        """Whether it is still current after a commit that touched these entities (`present`: whether
        a key has any claim now)."""
        return all((e in self.keys) == present(e) for e in touched)

    def near(self, key: str, window: int = WINDOW) -> set[str]:
        """The keys beside `key` in either order: those sharing most of its start or of its end."""
        found: set[str] = set()
        for keys, probe, flip in ((self.forward, key, False), (self.backward, key[::-1], True)):
            at = bisect_left(keys, probe)
            found.update(k[::-1] if flip else k for k in keys[max(0, at - window): at + window])
        found.discard(key)
        return found


def similarity(asked: str, key: str) -> float:
    """difflib's ratio of the two keys; of their parts after the subject when they share it,
    or when `asked` names no subject (`employer` is like `user.employer`)."""
    subject, dot, rest = asked.partition(".")
    other, _, other_rest = key.partition(".")
    if other_rest and (not dot or (subject == other and rest)):
        asked, key = rest or asked, other_rest
    return SequenceMatcher(None, asked, key, autojunk=False).ratio()


def ranked(asked: str, keys: Iterable[str], n: int = MAX_SUGGESTIONS) -> Similar:
    """The `n` keys most like `asked`, at least CUTOFF alike, best first (ties by key)."""
    scored = [(s, k) for k in keys if (s := similarity(asked, k)) >= CUTOFF]
    return sorted(scored, key=lambda h: (-h[0], h[1]))[:n]


def merged(per_part: Iterable[Similar], n: int = MAX_SUGGESTIONS) -> Similar:
    """The `n` best of several partitions' answers."""
    return heapq.nsmallest(n, {h for hits in per_part for h in hits}, key=lambda h: (-h[0], h[1]))


class Suggesting(Protocol):
    def near_entities(self, entity: str, n: int) -> Similar: ...


class Host(Protocol):
    def opened(self, partitions: Iterable[int] | None = None) -> Sequence[Suggesting]: ...


def similar_entities(host: Host, entities: Iterable[str], n: int = MAX_SUGGESTIONS,
                     partitions: Iterable[int] | None = None) -> dict[str, Similar]:
    """entity -> the best `n` keys of the host's partitions (those named) like it, scored."""
    parts = host.opened(partitions)
    return {e: merged([p.near_entities(e, n) for p in parts], n) for e in entities}


def with_suggestions(backend: Any, views: dict[str, EntityView], blank: Iterable[str]) -> dict[str, EntityView]:
    """`views` (asked label -> view), the views of the `blank` labels that hold no claim at all
    (no alias, nothing aligned from them, none retracted or erased) carrying the stored keys
    (with any claim) most like them: the view stays empty, its `suggestions` say "did you mean"."""
    blank = set(blank)
    unknown = blank - backend.entities_present(blank) if blank else set()
    if not unknown:
        return views
    found = backend.similar_entities(sorted(unknown))
    return {e: replace(v, suggestions=tuple(k for _, k in found[e])) if found.get(e) else v for e, v in views.items()}


def suggestions_for(backend: Any, asked: str | None, key: str | None) -> tuple[str, ...]:
    """get's "did you mean" for the one label another call read as `key` (`history`, `search(entity=)`,
    `forget`, `erase`): the live keys most like `asked` when it holds no claim at all and is neither an
    alias nor a label entity resolution aligned (then `key` is another key); () otherwise."""
    if asked is None or key != asked or backend.entities_present([asked]):
        return ()
    return tuple(k for _, k in backend.similar_entities([asked]).get(asked, ()))


def listed(backend: Any, asked: str | None, key: str | None, items: Iterable[T]) -> Found[T]:
    """`items` (what a read of `key` found) as a `Found`: with "did you mean" when there are none."""
    items = list(items)
    return Found(items, () if items else suggestions_for(backend, asked, key))


def refuse_unknown(backend: Any, asked: str, key: str, action: str) -> None:
    """EntityNotFound, for a call about to `action` `asked` (read as `key`), when no claim was ever made
    on it and stored keys are like it (a typo?): the call changes nothing. A key like none acts as before."""
    close = suggestions_for(backend, asked, key)
    if close:
        raise EntityNotFound(asked, list(close), action=action)
