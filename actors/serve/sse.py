"""Server-Sent Events over the store's event stream (`Vault.events(since=...)`).

A stream polls the claim logs every `AppSettings.event_poll_s` and sends each new
event as

    id: <the cursor right after it>
    event: <kind>
    data: <the event as JSON>

so a browser's `EventSource` (or any client) that reconnects with the last `id` as
`Last-Event-ID` misses none and repeats none. When the filters skipped events, an
`id:` line alone moves the client's cursor past them. A comment line every
`heartbeat_s` keeps proxies from closing an idle stream; after `stream_max_s` the
server ends the stream and the client reconnects (`retry:` says when), which lets a
replica be replaced without losing a client.

The caller's token is checked again before every poll (`check`): once it is revoked
(or the token file cannot be read), the stream sends its `closing` message and ends,
so a revoked holder receives nothing more; its reconnect gets 401.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse

from vault_ray.errors import VaultError
from vault_ray.events import EventFilter, EventPage
from vault_ray.wire import encode

from .service import Service

MEDIA_TYPE = "text/event-stream"
RETRY_MS = 1000
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
REVOKED = "the token of this stream was revoked (or can no longer be checked): the stream ends"
Check = Callable[[], object]
"""Raises a VaultError once the stream's caller may no longer read (its token revoked)."""


def comment_closing(reason: str) -> str:
    """A last comment line: clients of `/v1/events` (which decode every `data:` as an event) skip it."""
    return f": {reason}\n\n"


def wants_stream(request: Request) -> bool:
    return MEDIA_TYPE in request.headers.get("accept", "")


async def first_page(svc: Service, since: str, wanted: EventFilter, limit: int) -> EventPage:
    """The first read, before the answer starts: a bad cursor is still a 422, and "now" is
    pinned to the moment the client connected."""
    return await svc.run(svc.vault.events, since=since, kinds=wanted.kinds, needs_user=wanted.needs_user,
                         entity=wanted.entity, limit=limit)  # type: ignore[no-any-return]


def stream_response(svc: Service, request: Request, page: EventPage, wanted: EventFilter, limit: int, check: Check,
                    closing: Callable[[str], str] = comment_closing) -> StreamingResponse:
    """`check` is called before every poll; when it raises, `closing(why)` is the stream's last message."""
    return StreamingResponse(frames(svc, request, page, wanted, limit, check, closing), media_type=MEDIA_TYPE,
                             headers=HEADERS)


def frame(event: Any) -> str:
    return f"id: {event.cursor}\nevent: {event.kind}\ndata: {json.dumps(encode(event), separators=(',', ':'))}\n\n"


async def frames(svc: Service, request: Request, page: EventPage, wanted: EventFilter, limit: int, check: Check,
                 closing: Callable[[str], str]) -> AsyncIterator[str]:
    settings = svc.settings
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.stream_max_s
    yield f"retry: {RETRY_MS}\n\n"
    sent, quiet_since = None, loop.time()
    while True:
        for event in page.events:
            yield frame(event)
            sent = event.cursor
        if page.cursor != sent:
            yield f"id: {page.cursor}\n\n"  # past what the filters skipped (or where "now" began)
            sent = page.cursor
        if page.events:
            quiet_since = loop.time()
        if not page.more:
            if loop.time() >= deadline or await request.is_disconnected():
                return
            if loop.time() - quiet_since >= settings.heartbeat_s:
                yield ": keep-alive\n\n"
                quiet_since = loop.time()
            await asyncio.sleep(settings.event_poll_s)
        try:
            check()
        except VaultError:  # revoked while the stream was open: nothing more for this holder
            yield closing(REVOKED)
            return
        try:
            page = await first_page(svc, page.cursor, wanted, limit)
        except VaultError:  # the store is restarting: the client reconnects with its last id
            return
