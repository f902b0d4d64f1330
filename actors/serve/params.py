"""Parameter types of the HTTP API that say in `/openapi.json` what the core accepts:
times (ISO 8601 or epoch seconds, however sent), entity keys and claim ids.

The core checks entity keys and claim ids itself, with the error tree's own types:
`json_schema_extra` documents the rule without a second, different check.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BeforeValidator, StrictFloat

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


Time = Annotated[datetime | StrictFloat, BeforeValidator(_seconds)]
"""ISO 8601, or epoch seconds."""

ENTITY_PATTERN = r"^[a-z0-9_]+(\.[a-z0-9_]+)*$"
_ENTITY = {"pattern": ENTITY_PATTERN, "maxLength": MAX_ENTITY_LEN}
EntityPath = Annotated[str, Path(description="An entity key, e.g. user.timezone", json_schema_extra=_ENTITY)]
EntityFilter = Annotated[str | None, Query(description="Only this entity key", json_schema_extra=_ENTITY)]
ClaimIdPath = Annotated[str, Path(description="A claim id", json_schema_extra={
    "pattern": r"^(?!\.\.?$)[^/]*[^/\s][^/]*$", "maxLength": 128})]
