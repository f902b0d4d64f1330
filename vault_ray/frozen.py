"""Read-only dicts and lists: the tables inside frozen values (a claim's `meta`, a policy's
strategies and weights). A frozen dataclass holding a plain dict is frozen in name only: in
embedded mode the store hands out the very claims and policy it decides with, so
`claim.meta["tags"].append(...)` or `vault.policy.strategies[key] = ...` changed what every
later read and write of the process saw, unchecked and unsaved (a reopen forgot it).

`ReadOnlyDict` and `ReadOnlyList` are `dict` and `list` subclasses, so reads, `==` with
plain ones, `json.dumps`, `dataclasses.asdict` and pickling (Ray) work as before; every
change raises TypeError, as a change of a tuple does. `copy.deepcopy` gives plain, mutable
copies: the way to a table of one's own."""

from __future__ import annotations

from typing import Any, NoReturn

_HOW = "copy.deepcopy(...) gives a copy you can change"


class ReadOnlyDict(dict[Any, Any]):
    """A dict that refuses changes (TypeError); `copy.deepcopy` of it is a plain dict."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"this table is read-only (a stored value's, as a frozen dataclass's fields are): {_HOW}")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:  # pickle (Ray) rebuilds it without __setitem__
        return ReadOnlyDict, (dict(self),)

    def __copy__(self) -> ReadOnlyDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return thawed(self)  # type: ignore[no-any-return]


class ReadOnlyList(list[Any]):
    """A list that refuses changes (TypeError); `copy.deepcopy` of it is a plain list."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"this list is read-only (a stored value's, as a frozen dataclass's fields are): {_HOW}")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return ReadOnlyList, (list(self),)

    def __copy__(self) -> ReadOnlyList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thawed(self)  # type: ignore[no-any-return]


EMPTY: ReadOnlyDict = ReadOnlyDict()
"""The one empty table: most claims' `meta`."""


def read_only(value: Any) -> Any:
    """`value` with every dict and list in it, itself included, a read-only copy (tuples too
    become read-only lists, as JSON reads them back); already read-only: `value` itself."""
    if type(value) in _SCALARS or isinstance(value, ReadOnlyDict | ReadOnlyList):
        return value
    if isinstance(value, dict):  # most values are scalars: taken as they are, without a call each
        return ReadOnlyDict({k: v if type(v) in _SCALARS else read_only(v) for k, v in value.items()}) if value else EMPTY
    if isinstance(value, list | tuple):
        return ReadOnlyList([v if type(v) in _SCALARS else read_only(v) for v in value])
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})


def thawed(value: Any) -> Any:
    """A plain, mutable deep copy of `value`'s dicts and lists."""
    if isinstance(value, dict):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thawed(v) for v in value]
    return value
