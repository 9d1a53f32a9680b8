"""SSE: `GET /api/v1/events/stream`, resumable with `Last-Event-ID`.

Each event's `id:` is its row id in the events table; a reconnect with
`Last-Event-ID: N` replays the caller's events after N, in order. A resume from
before the retention window gets a `resync` event first (reload state). The
`: connected` frame carries `id:` = the stream's position, so a client resumes
without a gap even before its first event. A stream ends when the key or login it
was opened with is revoked (core/identity/signed_in.py): the client's reconnect is
then refused (401).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from api.deps import AnyPrincipal, SettingsDep, StoreDep
from api.metrics import observe_push, sse_connection
from api.paging import MAX_EVENT_ID, EventId
from core.errors import InvalidRequest
from core.identity.signed_in import SignedIn
from core.principal import Principal
from core.store import events
from core.store.bus import StoredEvent, Subscription
from core.store.engine import Store

router = APIRouter(tags=["events"])
BATCH = 500
RECONNECT_MS = 2000  # the `retry:` hint sent when the stream ends for a shutdown


def _cursor(header: str | None, query: int | None) -> int | None:
    if query is not None:
        return query
    if header is None or not header.strip():
        return None
    text = header.strip()
    # ASCII digits only: str.isdigit() also takes '²', which int() then refuses.
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_EVENT_ID:
        raise InvalidRequest(
            f"Last-Event-ID must be an event id (an integer from 0 to {MAX_EVENT_ID})"
        )
    return int(text)


def _encoded(events: list[StoredEvent]) -> bytes:
    """The events as one chunk, byte for byte what `ServerSentEvent(id=, event=, data=)`
    encodes each to (WHATWG HTML §9.2.6: `id`, `event` and one `data` line; `json.dumps`
    escapes every line break, and ids and types have none), without building an
    object and a buffer per event: one write, one send down the ASGI stack, per wake."""
    return "".join(
        f"id: {e.id}\r\nevent: {e.type}\r\ndata: {json.dumps(e.payload)}\r\n\r\n" for e in events
    ).encode()


async def _stream(
    store: Store, caller: Principal, cursor: int | None, signed_in: SignedIn | None
) -> AsyncGenerator[ServerSentEvent | bytes, None]:
    # Subscribe before reading, so nothing committed in between is missed.
    with store.bus.subscribe(caller.name, events=True) as subscription, sse_connection():
        ended = _Ended(subscription)
        since = store.credentials.generation
        held = signed_in.hold(caller, "sse", ended.end, since) if signed_in else None
        try:
            if cursor is None:
                cursor = await events.latest_event_id(store)
            elif await events.resume_needs_resync(store, cursor):
                cursor = await events.latest_event_id(store)
                yield ServerSentEvent(id=str(cursor), event="resync", data="{}")
            # The position travels with `connected` (an `id:` without data sets the
            # client's last event id and dispatches nothing, WHATWG HTML §9.2.6): a
            # client that saw no event yet resumes from here, not from a later "now".
            yield ServerSentEvent(id=str(cursor), comment="connected")
            live = False  # the first batch replays what was missed: not a push latency
            while not store.bus.closed and not ended.ended:
                subscription.clear()
                if subscription.complete:
                    # Committed by this process and handed over at commit: nothing to read
                    # (core/store/bus.py says when a stream must read the rows instead).
                    batch, more = subscription.take(cursor), False
                else:
                    generation = subscription.generation
                    read = await events.events_after(store, caller.name, cursor, BATCH)
                    batch, more = read.events, len(read.events) == BATCH
                    if not more:
                        subscription.caught_up(read.through, generation)
                if batch:
                    cursor = batch[-1].id
                    if live:
                        for item in batch:
                            observe_push(item)
                    yield _encoded(batch)
                if not more:
                    await subscription.wait()
                    live = True
        finally:
            if held is not None and signed_in is not None:
                signed_in.release(held)
        if ended.ended:
            yield ServerSentEvent(comment="the key or login of this stream was revoked")
        else:
            # The gateway is shutting down (SIGTERM): tell the client when to come back; it
            # resumes with Last-Event-ID, on this gateway once restarted or on a replica.
            yield ServerSentEvent(comment="the gateway is shutting down", retry=RECONNECT_MS)


class _Ended:
    """Set when the stream's key or login is revoked: the stream ends at its next turn."""

    def __init__(self, subscription: Subscription) -> None:
        self.ended = False
        self._subscription = subscription

    def end(self) -> None:
        self.ended = True
        self._subscription.wake()


@router.get("/events/stream", response_class=EventSourceResponse)
async def stream(
    request: Request,
    caller: AnyPrincipal,
    store: StoreDep,
    settings: SettingsDep,
    last_event_id: Annotated[str | None, Header()] = None,
    after: EventId = None,
) -> EventSourceResponse:
    cursor = _cursor(last_event_id, after)
    signed_in: SignedIn | None = request.app.state.signed_in
    stream = await _started(_stream(store, caller, cursor, signed_in))
    return EventSourceResponse(stream, ping=settings.sse_ping_seconds)


async def _started(
    stream: AsyncGenerator[ServerSentEvent | bytes, None],
) -> AsyncIterator[ServerSentEvent | bytes]:
    """`stream` run to its first item before the response begins: when a client sees the
    response open, the stream is subscribed and its position read, so whatever the client
    fetches from then on is older than the events the stream will send
    (web/src/app/useLiveUpdates.ts fetches its lists again then). A failure there is an
    error response, not a stream that breaks at once."""
    first = await anext(stream)

    async def rest() -> AsyncIterator[ServerSentEvent | bytes]:
        try:
            yield first
            async for item in stream:
                yield item
        finally:
            await stream.aclose()

    return rest()
