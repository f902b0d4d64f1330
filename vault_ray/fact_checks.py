"""Validating a `Fact` before anything is written: one check, shared by every surface that
takes facts (`add_facts`, extraction's output, the HTTP client before it sends)."""

from __future__ import annotations

import math
import numbers
from datetime import datetime

from .errors import InvalidEntity, InvalidFact
from .models import MAX_FUTURE, Fact, Kind, as_utc, routable, utcnow, validate_entity
from .nesting import check_meta
from .texts import off_line, shown, unstorable


def check_fact(fact: Fact, index: int, *, max_text: int, latest: datetime | None = None) -> Fact:
    """Validate one fact; raise InvalidFact/InvalidEntity naming its index. `latest`: the
    latest observed_at taken (now + MAX_FUTURE by default; a batch reads the clock once)."""
    if not isinstance(fact, Fact):
        raise InvalidFact(f"expected a Fact, got {type(fact).__name__}", index=index)
    try:
        validate_entity(fact.entity)
    except InvalidEntity as exc:
        raise InvalidEntity(fact.entity, f"fact {index}", index=index) from exc
    if not isinstance(fact.text, str) or not fact.text.strip():
        raise InvalidFact("text must be a non-empty string", index=index, field="text")
    if isinstance(fact.claim_id, str) and (why := off_line(fact.claim_id)) is not None:  # before the texts' rule
        raise InvalidFact(f"claim_id {why}: {shown(fact.claim_id)}", index=index, field="claim_id")
    for name in ("text", "value", "claim_id", "source"):
        if isinstance(getattr(fact, name), str) and (why := unstorable(getattr(fact, name))) is not None:
            raise InvalidFact(f"{name} {why}", index=index, field=name)
    if len(fact.text) > max_text:
        raise InvalidFact(f"text is {len(fact.text)} characters; the policy allows {max_text}", index=index, field="text")
    if fact.value is not None and (not isinstance(fact.value, str) or not fact.value.strip() or len(fact.value) > max_text):
        raise InvalidFact(f"value must be a non-empty string of at most {max_text} characters, or None",
                          index=index, field="value")
    if fact.kind not in Kind._value2member_map_:
        raise InvalidFact(f"kind must be one of {[k.value for k in Kind]}", index=index, field="kind")
    conf = fact.confidence
    if isinstance(conf, bool) or not isinstance(conf, numbers.Real):  # numpy's numbers too: stored as float(conf)
        raise InvalidFact(f"confidence must be a number in [0, 1], got {shown(conf)}", index=index, field="confidence")
    if not math.isfinite(conf) or not 0 <= conf <= 1:
        raise InvalidFact(f"confidence {conf!r} is outside [0, 1]", index=index, field="confidence")
    if fact.claim_id is not None and not (routable(fact.claim_id) and len(fact.claim_id) <= 128):
        raise InvalidFact("claim_id must be a non-blank string of at most 128 characters without '/' (nor '.' or '..')",
                          index=index, field="claim_id")
    if fact.meta is not None and not isinstance(fact.meta, dict):
        raise InvalidFact("meta must be a dict", index=index, field="meta")
    if fact.meta:
        check_meta(fact.meta, index, max_text)
    if fact.source is not None and (not isinstance(fact.source, str) or len(fact.source) > max_text * 10):
        raise InvalidFact(f"source must be a string of at most {max_text * 10} characters", index=index, field="source")
    try:
        when = as_utc(fact.observed_at)
    except InvalidFact as exc:
        raise InvalidFact(str(exc), index=index, field="observed_at") from exc
    if when is not None and when > (latest or utcnow() + MAX_FUTURE):
        raise InvalidFact(f"observed_at {when.isoformat()} is in the future (more than {MAX_FUTURE} ahead of this "
                          "clock): under recency it would outrank every later write", index=index, field="observed_at")
    return fact
