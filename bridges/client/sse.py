"""The gateway's event stream, resumed where it stopped.

`GET /api/v1/events/stream` sends each event with `id:` = its row id. When the
connection ends (the gateway restarts, the network drops, nothing arrives within
`idle_timeout` although the gateway pings every 15 s), the stream reconnects after
a jittered backoff with `Last-Event-ID` (WHATWG HTML, "Server-sent events" §9.2),
and the gateway replays what was missed, in order. If those events were pruned,
the gateway sends `resync` first: the consumer must reload its state (the bridge
runtime catches up from the inbox), then events go on from there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from bridges.client.backoff import Backoff
from bridges.client.errors import GatewayError
from bridges.client.models import Event

STREAM_PATH = "/api/v1/events/stream"
_log = logging.getLogger("agentmail.bridge.sse")


@dataclass(slots=True)
class _Frame:
    """One parsed block of the stream: an event, or a comment."""

    event_id: str | None = None
    event_type: str = ""
    data: list[str] = field(default_factory=list)
    comment: str | None = None


async def parse_frames(lines: AsyncIterator[str]) -> AsyncIterator[_Frame]:
    """Lines into frames (WHATWG HTML §9.2.6): `field: value`, a blank line dispatches;
    a line starting with `:` is a comment (the gateway's `: connected`, pings), kept
    with the frame it is in: the gateway's `connected` frame carries an `id:` too."""
    frame = _Frame()
    async for line in lines:
        if not line:
            if (
                frame.data
                or frame.event_type
                or frame.event_id is not None
                or frame.comment is not None
            ):
                yield frame
            frame = _Frame()
            continue
        if line.startswith(":"):
            frame.comment = line[1:].strip()
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            frame.data.append(value)
        elif name == "event":
            frame.event_type = value
        elif name == "id" and "\0" not in value:
            frame.event_id = value


class EventStream:
    """Async iterator of `Event`s that never ends by itself: it reconnects and resumes.

    `last_event_id` is the cursor (store it to resume across restarts of the bridge).
    The gateway gives it from the first moment: its `: connected` frame carries
    `id:` = the stream's position when it subscribed (an `id:` without data sets
    the cursor and dispatches nothing, §9.2.6), so a stream that saw no event yet
    still resumes without a gap. `connected` is set while subscribed, so nothing
    committed after that moment is missed. `on_connected(resumed)` is awaited after
    each subscription, before its events: `resumed` is false when the connection
    was opened without a cursor, which is when the consumer must catch up itself
    (an older gateway sends no position).
    """

    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        last_event_id: int | None = None,
        backoff: Backoff = Backoff(),
        idle_timeout: float = 60.0,
        on_connected: Callable[[bool], Awaitable[None]] | None = None,
    ) -> None:
        self._http = http
        self.last_event_id = last_event_id
        self._backoff = backoff
        self._idle_timeout = idle_timeout
        self._on_connected = on_connected
        self.connected = asyncio.Event()
        self.reconnects = 0

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        attempt = 0
        while True:
            try:
                async for event in self._one_connection():
                    attempt = 0
                    yield event
                _log.info("event stream ended; reconnecting")
            except (httpx.TransportError, httpx.StreamError) as error:
                _log.info("event stream lost (%s); reconnecting", type(error).__name__)
            except GatewayError as error:
                if not error.retryable:
                    raise
                _log.warning("event stream refused (%s); reconnecting", error)
            finally:
                self.connected.clear()
            await asyncio.sleep(self._backoff.delay(attempt))
            attempt += 1
            self.reconnects += 1

    async def _one_connection(self) -> AsyncIterator[Event]:
        headers = {"Accept": "text/event-stream"}
        resumed = self.last_event_id is not None
        if resumed:
            headers["Last-Event-ID"] = str(self.last_event_id)
        timeout = httpx.Timeout(10.0, read=self._idle_timeout)
        async with self._http.stream("GET", STREAM_PATH, headers=headers, timeout=timeout) as r:
            if r.status_code != 200:
                await r.aread()
                raise error_of(r)
            async for frame in parse_frames(r.aiter_lines()):
                if frame.event_id is not None and frame.event_id.isdigit():
                    self.last_event_id = int(frame.event_id)
                if frame.comment == "connected":
                    self.connected.set()
                    if self._on_connected is not None:
                        await self._on_connected(resumed)
                if not (frame.data or frame.event_type):
                    continue  # a comment, or the position alone
                yield Event.parse(frame.event_id, frame.event_type, "\n".join(frame.data))


def error_of(response: httpx.Response) -> GatewayError:
    """The gateway's `{error: {code, message}}`, or what the status says."""
    try:
        error = response.json()["error"]
        return GatewayError(response.status_code, str(error["code"]), str(error["message"]))
    except (ValueError, KeyError, TypeError):
        text = response.text[:200] if response.is_stream_consumed else ""
        return GatewayError(response.status_code, f"http_{response.status_code}", text)
