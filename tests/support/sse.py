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
class Block:
    """The fields up to a blank line: an event when it has data (or a type)."""

    id: str | None = None
    event: str = "message"
    data: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


async def blocks(lines: AsyncIterator[str]) -> AsyncIterator[Block]:
    """The stream's blocks (HTML §9.2.6): each ends at a blank line; `:` starts a comment."""
    block = Block()
    async for line in lines:
        if line == "":
            yield block
            block = Block()
        elif line.startswith(":"):
            block.comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "id":
                block.id = value
            elif name == "event":
                block.event = value
            elif name == "data":
                block.data.append(value)


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
        async for block in blocks(self.response.aiter_lines()):
            self.comments += block.comments
            if block.data or block.event != "message":
                self.events.put_nowait(SseEvent(block.id, block.event, "\n".join(block.data)))
                if block.id is not None:
                    self.last_id = block.id

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
    client: httpx.AsyncClient,
    headers: dict[str, str] | None = None,
    *,
    connected: bool = True,
    **params: Any,
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
        # The server sends a ": connected" comment once it is subscribed (`connected`:
        # wait for it; else the stream is handed over as soon as its headers are in).
        async with asyncio.timeout(10):
            while connected and not stream.comments:
                await asyncio.sleep(0.005)
        try:
            yield stream
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError, httpx.HTTPError):
                await task
