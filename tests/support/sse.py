"""A small SSE reader over httpx for the tests (the wire format of the HTML standard)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class SseEvent:
    id: str | None
    event: str
    data: str

    @property
    def json(self) -> Any:
        return json.loads(self.data)


@dataclass
class SseStream:
    """Collects events from one open stream in the background."""

    response: httpx.Response
    events: asyncio.Queue[SseEvent] = field(default_factory=asyncio.Queue)
    comments: list[str] = field(default_factory=list)
    last_id: str | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)  # the server ended it

    async def _pump(self) -> None:
        with suppress(httpx.HTTPError):
            await self._read()
        self.finished.set()

    async def _read(self) -> None:
        event_id: str | None = None
        event_type = "message"
        data: list[str] = []
        async for line in self.response.aiter_lines():
            if line == "":
                if data or event_type != "message":
                    self.events.put_nowait(SseEvent(event_id, event_type, "\n".join(data)))
                    if event_id is not None:
                        self.last_id = event_id
                event_id, event_type, data = None, "message", []
            elif line.startswith(":"):
                self.comments.append(line[1:].strip())
            else:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "id":
                    event_id = value
                elif name == "event":
                    event_type = value
                elif name == "data":
                    data.append(value)

    async def next(self, timeout: float = 10.0) -> SseEvent:
        return await asyncio.wait_for(self.events.get(), timeout)

    async def next_of(self, event_type: str, timeout: float = 10.0) -> SseEvent:
        """The next event of this type; events of other types are skipped."""
        async with asyncio.timeout(timeout):
            while True:
                event = await self.events.get()
                if event.event == event_type:
                    return event

    async def nothing_within(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self.events.get(), seconds)
        except TimeoutError:
            return True
        return False


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient, headers: dict[str, str] | None = None, **params: Any
) -> AsyncIterator[SseStream]:
    async with client.stream(
        "GET",
        "/api/v1/events/stream",
        headers=headers or {},
        params=params,
        timeout=httpx.Timeout(10.0, read=None),
    ) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = SseStream(response)
        task = asyncio.create_task(stream._pump())
        # The server sends a ": connected" comment once it is subscribed.
        async with asyncio.timeout(10):
            while not stream.comments:
                await asyncio.sleep(0.005)
        try:
            yield stream
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError, httpx.HTTPError):
                await task
