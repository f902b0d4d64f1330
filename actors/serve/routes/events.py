"""The event stream, for any token: `GET /v1/events` answers a page of events after a
cursor as JSON, or, asked with `Accept: text/event-stream`, streams them as
Server-Sent Events that resume with `Last-Event-ID` (see `..sse`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request

from vault_ray.events import DEFAULT_LIMIT, KINDS, MAX_LIMIT, NOW, EventFilter
from vault_ray.wire import encode

from .. import sse
from ..auth import Agent, Svc
from ..params import EVENT_CURSOR
from ..schemas import EventPageOut
from . import READ, known_query_only

router = APIRouter(prefix="/v1", tags=["events"], dependencies=[Depends(known_query_only)])

STREAMED = {200: {"description": "A page of events (JSON), or with `Accept: text/event-stream` an SSE stream",
                  "content": {sse.MEDIA_TYPE: {"schema": {"type": "string"}}}}}
Cursor = Annotated[str, Query(max_length=4000, json_schema_extra={"pattern": EVENT_CURSOR}, description=(
    "Events after this cursor (one an event or a page carried, of this store: 'v1' and a "
    "'.<partition>-<position>' per partition), 'start' (everything) or 'now' (the default)"))]
_KIND = "|".join(KINDS)
Kinds = Annotated[list[str] | None, Query(description=f"Only these kinds (repeat, or comma-separated): {', '.join(KINDS)}",
                                          json_schema_extra={"items": {"type": "string",
                                                                       "pattern": f"^,*(({_KIND})(,+({_KIND}))*)?,*$"}})]


NeedsUser = Annotated[bool | None, Query(description="Only events of disputes that wait (or not) for a person")]
Entity = Annotated[str | None, Query(max_length=130, description="An entity key or pattern, e.g. user.budget.*",
                                     json_schema_extra={"pattern": r"^[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?$"})]
LastEventId = Annotated[str, Header(max_length=4000, json_schema_extra={"pattern": EVENT_CURSOR},
                                           description="The SSE resume point (a cursor)")]


@router.get("/events", response_model=EventPageOut, responses={**READ, **STREAMED})
async def events(request: Request, who: Agent, svc: Svc, since: Cursor = NOW, kinds: Kinds = None,
                 needs_user: NeedsUser = None, entity: Entity = None,
                 limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
                 last_event_id: LastEventId = "") -> Any:
    """The store's events after a cursor: claims added and superseded, disputes opened, challenged and resolved."""
    wanted = EventFilter.of([k for part in kinds or () for k in part.split(",") if k] or None, needs_user, entity)
    page = await sse.first_page(svc, last_event_id or since or NOW, wanted, limit)
    if sse.wants_stream(request):
        return sse.stream_response(svc, request, page, wanted, limit, lambda: svc.tokens.recheck(who))
    return encode(page)
