"""A loopback HTTP proxy that loses events: in front of a gateway, it passes every
connection through untouched, except the event stream's response, from which it drops
the events of the types it is told to (their frames, re-chunked; pings and the rest go
on). The stream stays open and healthy-looking, so the bridge behind it has no
reason to reconnect — what a buffering or faulty middlebox does to a long-lived
response. A test sees what the bridge does about mail whose event never came.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

STREAM_REQUEST = b"GET /api/v1/events/stream"
FRAME_END = b"\r\n\r\n"


class EventFilter:
    def __init__(self, upstream_port: int, dropping: set[str]) -> None:
        self.upstream_port = upstream_port
        self.dropping = {f"event: {kind}".encode() for kind in dropping}
        self.dropped: list[bytes] = []  # the frames that never reached the client
        self.streams = 0  # event-stream requests seen
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        stream = asyncio.Event()  # this connection carries the event stream now
        pipes = [
            asyncio.create_task(self._requests(reader, up_writer, stream)),
            asyncio.create_task(self._responses(up_reader, writer, stream)),
        ]
        self._pipes.update(pipes)
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pipe in pipes:
                pipe.cancel()
                self._pipes.discard(pipe)
            for end in (writer, up_writer):
                end.close()

    async def _requests(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stream: asyncio.Event
    ) -> None:
        while chunk := await reader.read(65536):
            if STREAM_REQUEST in chunk:  # set before it goes up: see `_responses`
                self.streams += 1
                stream.set()
            writer.write(chunk)
            await writer.drain()

    async def _responses(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stream: asyncio.Event
    ) -> None:
        # httpx sends a request when the last response is read: once the stream's request
        # went up, what comes down is its response.
        while chunk := await reader.read(65536):
            if stream.is_set():
                await self._filtered(_Buffered(reader, chunk), writer)
                return
            writer.write(chunk)
            await writer.drain()

    async def _filtered(self, reader: _Buffered, writer: asyncio.StreamWriter) -> None:
        """The stream's response: its headers as they are, then its chunked body
        (RFC 9112 §7.1) frame by frame, without the dropped events' frames."""
        writer.write(await reader.until(FRAME_END))
        body = b""
        while True:
            size = int((await reader.until(b"\r\n")).split(b";")[0], 16)
            body += (await reader.exactly(size + 2))[:-2]
            if size == 0:
                writer.write(b"0\r\n\r\n")
                await writer.drain()
                return
            while FRAME_END in body:
                frame, body = body.split(FRAME_END, 1)
                if any(kind in frame for kind in self.dropping):
                    self.dropped.append(frame)
                    continue
                out = frame + FRAME_END
                writer.write(f"{len(out):x}\r\n".encode() + out + b"\r\n")
            await writer.drain()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for pipe in list(self._pipes):
            pipe.cancel()
        if self._server is not None:
            await self._server.wait_closed()


class _Buffered:
    """A reader with bytes already read in front of it."""

    def __init__(self, reader: asyncio.StreamReader, first: bytes) -> None:
        self._reader, self._buffer = reader, first

    async def until(self, separator: bytes) -> bytes:
        while separator not in self._buffer:
            self._buffer += await self._more()
        head, _, self._buffer = self._buffer.partition(separator)
        return head + separator

    async def exactly(self, count: int) -> bytes:
        while len(self._buffer) < count:
            self._buffer += await self._more()
        head, self._buffer = self._buffer[:count], self._buffer[count:]
        return head

    async def _more(self) -> bytes:
        chunk = await self._reader.read(65536)
        if not chunk:
            raise asyncio.IncompleteReadError(self._buffer, None)
        return chunk


@contextlib.asynccontextmanager
async def event_filter(upstream_port: int, dropping: set[str]) -> AsyncIterator[EventFilter]:
    proxy = EventFilter(upstream_port, dropping)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()
