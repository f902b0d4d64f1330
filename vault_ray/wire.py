"""JSON form of the models, both ways: what the HTTP server sends and the client reads.

`encode` turns a frozen dataclass (a `Claim`, a `Dispute`, an `Explanation`, a
`Policy`, ...) into JSON data: times as ISO 8601 strings in UTC, enums as their
values, tuples as lists; a claim's embedding is left out. `decode(Claim, data)`
rebuilds the same dataclass from that data, guided by the class's type hints, so
the client returns the very types `Vault` returns. Keys the class does not know
(a newer server) are ignored; missing ones take the class's defaults.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from .errors import InvalidInput

T = TypeVar("T")
HIDDEN_FIELDS = frozenset({"embedding"})
"""Fields never sent: a claim's vector (float32 of the store's embedder, server-side only)."""


def encode(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if f.name not in HIDDEN_FIELDS and not f.name.startswith("_")}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, datetime):  # UTC as "Z", as the service's JSON pages write it
        text = obj.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(obj, list | tuple | set | frozenset):
        return [encode(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): encode(v) for k, v in obj.items()}
    if hasattr(obj, "item") and callable(obj.item):  # a numpy scalar
        return obj.item()
    return obj


def decode(tp: Any, data: Any) -> Any:
    """`data` (JSON) as the type `tp`; InvalidInput if it does not fit."""
    try:
        return _decode(tp, data)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidInput(f"cannot read {getattr(tp, '__name__', tp)} from {str(data)[:200]!r}: {exc}") from None


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(tp: Any, data: Any) -> Any:
    if tp is Any or tp is object:
        return data
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return _decode_union(typing.get_args(tp), data)
    if origin in (tuple, list):
        args = typing.get_args(tp)
        if not isinstance(data, list):
            raise TypeError(f"expected a list, got {type(data).__name__}")
        inner = args[0] if args else Any
        items = [_decode(inner, v) for v in data]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        key_t, val_t = typing.get_args(tp) or (Any, Any)
        if not isinstance(data, Mapping):
            raise TypeError(f"expected an object, got {type(data).__name__}")
        return {_decode(key_t, k): _decode(val_t, v) for k, v in data.items()}
    if isinstance(tp, type):
        return _decode_class(tp, data)
    return data


def _decode_union(members: tuple[Any, ...], data: Any) -> Any:
    if data is None and type(None) in members:
        return None
    errors = []
    for member in members:
        if member is type(None):
            continue
        try:
            return _decode(member, data)
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
    raise TypeError("; ".join(errors) or f"no member fits {data!r}")


def _decode_class(cls: type, data: Any) -> Any:
    if dataclasses.is_dataclass(cls):
        if not isinstance(data, Mapping):
            raise TypeError(f"expected an object for {cls.__name__}, got {type(data).__name__}")
        hints = _hints(cls)
        kwargs = {f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(cls)
                  if f.init and f.name in data}
        return cls(**kwargs)
    if issubclass(cls, Enum):
        return cls(data)
    if cls is datetime:
        if not isinstance(data, str):
            raise TypeError(f"expected an ISO 8601 time, got {type(data).__name__}")
        return datetime.fromisoformat(data)
    if cls is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise TypeError(f"expected a number, got {type(data).__name__}")
        return float(data)
    if cls in (int, str, bool):
        if not isinstance(data, cls) or (cls is int and isinstance(data, bool)):
            raise TypeError(f"expected {cls.__name__}, got {type(data).__name__}")
        return data
    return data
