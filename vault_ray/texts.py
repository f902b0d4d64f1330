"""What a stored string may hold: the checks of texts, values, messages, names and ids.
The claim log is UTF-8 text that readers (DuckDB, exports, terminals, other languages)
take as words, so a string that is no text there is refused before anything is written."""

from __future__ import annotations

import re

from .errors import InvalidInput, shown

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Control characters (C0 other than tab, newline and carriage return; DEL; C1), refused in
every stored text: a NUL ends the string for a C reader, and extraction read "P\\x00ST" as
"P.ST"."""
_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""The same, with tab, newline and carriage return: a name (agent) is one line."""


def storable(text: str) -> bool:
    """Whether a string can be stored: UTF-8 has no form for a lone surrogate ("\\ud800",
    which Python strings and JSON escapes can carry), and the claim log is UTF-8."""
    try:
        text.isascii() or text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unstorable(text: str) -> str | None:
    """Why `text` is no storable text ("has ..."), None if it is: a lone surrogate, or a
    control character (NUL, ESC, ...) other than tab, newline and carriage return."""
    if (found := _CONTROL.search(text)) is not None:
        return (f"has a control character (U+{ord(found.group()):04X}): of the control characters only tab, "
                "newline and carriage return may be stored")
    return None if storable(text) else "has a lone surrogate character (no UTF-8 form)"


RESERVED_PREFIXES = ("rule:", "strategy:")
"""Name prefixes of the store's own deciders: a resolution whose `decided_by` starts with one
is a built-in rule's or strategy's (not sticky, shown as such in events), so no agent,
token or person may take such a name (`check_agent`, and `check_not_reserved` for a `decided_by`)."""


def check_not_reserved(name: str, what: str) -> str:
    """`name`, unless it starts with a reserved prefix (any case): InvalidInput naming `what`."""
    for prefix in RESERVED_PREFIXES:
        if name.casefold().startswith(prefix):
            raise InvalidInput(f"{what} {shown(name)} starts with {prefix!r}, a prefix reserved for the store's built-in "
                               f"rules and strategies ({', '.join(RESERVED_PREFIXES)}): choose another name")
    return name


def check_string(value: object, what: str, *, limit: int, optional: bool = False, empty: bool = False) -> str | None:
    """`value` as a storable string of at most `limit` characters (None passes when
    `optional`; the empty string when `empty`), or InvalidInput naming `what`."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not empty and not value.strip()) or len(value) > limit:
        kind = "a string" if empty else "a non-empty string"
        raise InvalidInput(f"{what} must be {kind} of at most {limit} characters"
                           f"{' or None' if optional else ''}, got {shown(value)}")
    if (why := unstorable(value)) is not None:
        raise InvalidInput(f"{what} {why}: {shown(value)}")
    return value


def off_line(text: str) -> str | None:
    """Why `text` is no one-line name or id ("has ..."), None if it is: it holds a control character,
    tab, newline and carriage return included. Sessions and claim ids are shown one per line (the CLI's
    tables, logs, the inbox) and matched as given: "s1\\n" would be another session than "s1"."""
    if (found := _NAME_CONTROL.search(text)) is not None:
        return (f"has a control character (U+{ord(found.group()):04X}): it is one line of text, without tab, newline "
                "or any other control character")
    return None


def check_line(value: object, what: str, *, limit: int, optional: bool = False) -> str | None:
    """`check_string`, and one line (`off_line`, checked first: its message names the rule): a session name."""
    if isinstance(value, str) and (why := off_line(value)) is not None:
        raise InvalidInput(f"{what} {why}: {shown(value)}")
    return check_string(value, what, limit=limit, optional=optional)


def check_agent(name: object) -> str:
    """An agent name: what a write carries, a policy's authority names and a token holds."""
    if isinstance(name, str) and (name != name.strip() or _NAME_CONTROL.search(name) is not None):
        raise InvalidInput(f"agent name must have no surrounding spaces or control characters, got {shown(name)}")
    return check_not_reserved(check_string(name, "agent name", limit=128), "agent name")  # type: ignore[arg-type]
