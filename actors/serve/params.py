"""Parameter types of the HTTP API that say in `/openapi.json` what the core accepts:
times (ISO 8601 or epoch seconds, however sent), entity keys, claim and dispute ids, and
the text rules of strings (`texts.py`: no control character but tab, newline and carriage
return; a name or id not blank).

The core checks these itself, with the error tree's own types and messages:
`json_schema_extra` documents the rule without a second, different check (the schema
test holds the two together: a request the schema takes is not refused as invalid).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BeforeValidator, Field, StrictFloat

from vault_ray.models import EPOCH_TEXT as NUMBER  # what the CLI reads as epoch seconds too
from vault_ray.models import MAX_ENTITY_LEN


def _seconds(value: Any) -> Any:
    """Epoch seconds as a float, however sent (a JSON number or string, a query value):
    pydantic would read a number above 2e10 as milliseconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and NUMBER.fullmatch(value):
        return float(value)  # the core says what is out of range (1e300: "outside the representable times")
    return value


EPOCH_RANGE = {"minimum": -62_135_596_800, "maximum": 253_402_300_799}
"""Epoch seconds of 0001-01-01 and 9999-12-31T23:59:59 UTC: the representable times."""
Time = Annotated[datetime | Annotated[StrictFloat, Field(json_schema_extra=EPOCH_RANGE)], BeforeValidator(_seconds)]
"""ISO 8601, or epoch seconds."""

_CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # texts._CONTROL
_BLANK = r"\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"  # control or white space
TEXT_PATTERN = rf"^[^{_CONTROL}]*$"
"""Text the log can keep: no control character but tab, newline and carriage return."""
NONBLANK_PATTERN = rf"^[^{_CONTROL}]*[^{_BLANK}][^{_CONTROL}]*$"
"""The same, and not blank (`texts.check_string`)."""
AGENT_PATTERN = (r"^(?!(?:[Rr][Uu][Ll][Ee]|[Ss\u017f][Tt][Rr][Aa][Tt][Ee][Gg][Yy]):)"
                 rf"[^{_BLANK}](?:[^\x00-\x1f\x7f-\x9f]*[^{_BLANK}])?$")
"""An agent name (`texts.check_agent`): one line, no surrounding space, no reserved prefix."""
_LINE = r"\x00-\x1f\x7f-\x9f"  # texts._NAME_CONTROL: tab, newline and carriage return too
LINE_PATTERN = rf"^[^{_LINE}]*[^{_BLANK}][^{_LINE}]*$"
"""One line of text, not blank (`texts.check_line`): a session."""
ID_PATTERN = rf"^(?!\.\.?$)[^/{_LINE}]*[^/{_BLANK}][^/{_LINE}]*$"
"""A claim or dispute id: one URL path segment (`models.routable`), one line of text (`texts.off_line`; an id an
older version stored with a newline is still found by it)."""


def text_rule(max_length: int | None = None, *, blank: bool = True, **extra: Any) -> dict[str, Any]:
    """The schema of a text field: `blank` False for one that must say something."""
    out: dict[str, Any] = {"pattern": TEXT_PATTERN if blank else NONBLANK_PATTERN, **extra}
    if not blank:
        out["minLength"] = 1
    if max_length is not None:
        out["maxLength"] = max_length
    return out


ENTITY_PATTERN = r"^[a-z0-9_]+(\.[a-z0-9_]+)*$"
_ENTITY = {"pattern": ENTITY_PATTERN, "maxLength": MAX_ENTITY_LEN}
EntityPath = Annotated[str, Path(description="An entity key, e.g. user.timezone", json_schema_extra=_ENTITY)]
EntityFilter = Annotated[str | None, Query(description="Only this entity key", json_schema_extra=_ENTITY)]
_ID = {"pattern": ID_PATTERN, "minLength": 1, "maxLength": 128}
ClaimIdPath = Annotated[str, Path(description="A claim id", json_schema_extra=_ID)]
DisputeIdPath = Annotated[str, Path(description="A dispute id", json_schema_extra=_ID)]
POLICY_PATTERN = r"^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$"
"""An entity key, optionally ending in '.*', or '*' (`policy.validate_pattern`)."""
PATTERN = {"pattern": POLICY_PATTERN, "minLength": 1, "maxLength": MAX_ENTITY_LEN + 2}
EVENT_CURSOR = r"^(start|now|v1(\.[0-9]+-[0-9]+)*)?$"
"""The grammar of an event cursor: 'start', 'now', or one an event or page carried."""
