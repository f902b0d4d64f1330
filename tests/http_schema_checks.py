"""The schema tests' check that a request `/openapi.json` takes is not refused as invalid
(schemathesis' `positive_data_acceptance`), with the refusals no schema can say: each
names its reason, and a 422 for any other reason fails the test."""

from __future__ import annotations

import re
from typing import Any

import schemathesis
from schemathesis.specs.openapi.checks import positive_data_acceptance

from vault_ray.actors.serve.params import EVENT_CURSOR

BEYOND_THE_SCHEMA = re.compile("|".join([
    r"is in the future \(more than",  # a fact's observed_at against the server's clock
    r"was already used for another fact",  # a claim id (or Idempotency-Key) the store already holds
    r"the latest user message is empty",  # which message is the latest of role 'user': order, not shape
    r"give mine or agent, not both",  # mine=true with another agent's name: two parameters together
    r"need 0 <= ask_threshold <= align_threshold",  # two fields of a policy together
    r"rate_limit must be null or \{rate, burst\}",  # a patch of half a rate limit onto a policy with none
    r"is already an alias of|is a registry key of its own",  # the registry as it stands
    r"holds live claims: as an alias of",  # an alias naming a key that earlier requests wrote claims to
    r"is an alias of .*: writes to it are stored there",  # a key (or a policy pattern) an earlier request made an alias
    r"is high stakes \(policy\.high_stakes",  # a high-stakes alias of a key that is not: the policy as it stands
    r"is not a high-stakes pattern of the policy",  # DELETE of a pattern the policy (as it stands) does not have
    r"is the entry's own key; an alias names another label",  # the path's key named in the body
    r"the policy allows \d+",  # a text (or a meta's JSON) over the policy's max_text, which an admin may change
    # narrowing to 'one' over values at odds the store holds (an earlier widening kept both sides of a dispute)
    r"cardinality 'one' would leave several current values at odds",
]))


def _cursor(case: Any) -> str | None:
    headers = {k.lower(): v for k, v in (case.headers or {}).items()}
    return headers.get("last-event-id") or (case.query or {}).get("since")


def beyond_the_schema(response: Any, case: Any) -> bool:
    """Whether a 422 refused the request for a reason the schema cannot express."""
    try:
        detail = str(response.json().get("detail", ""))
    except ValueError:
        return False
    if detail.startswith("not an event cursor of this store"):  # the grammar is the schema's; the positions the store's
        cursor = _cursor(case)
        return cursor is not None and re.fullmatch(EVENT_CURSOR, cursor) is not None
    return response.status_code == 422 and BEYOND_THE_SCHEMA.search(detail) is not None


@schemathesis.check
def valid_data_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """`positive_data_acceptance`, but for the refusals `beyond_the_schema`."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except Exception:
        if beyond_the_schema(response, case):
            return None
        raise
