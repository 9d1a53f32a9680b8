"""A webhook receiver for the tests: a plain HTTP/1.1 server on loopback (asyncio streams),
keeping every request it gets and answering each with the next status it was given.

Small on purpose: one request per connection (it answers `Connection: close`), a body
of `Content-Length` bytes, nothing else of HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from standardwebhooks import Webhook


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def verified(self, secret: str) -> Any:
        """The JSON body, once its Standard Webhooks signature checks out (raises if not)."""
        return Webhook(secret).verify(self.body, self.headers)


@dataclass
class Receiver:
    url: str
    statuses: list[int] = field(default_factory=list)  # the next answers; then 200
    received: list[Received] = field(default_factory=list)
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """The first `count` requests, once they have come."""
        async with asyncio.timeout(timeout), self._arrived:
            await self._arrived.wait_for(lambda: len(self.received) >= count)
        return self.received[:count]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            status = self.statuses.pop(0) if self.statuses else 200
            writer.write(
                f"HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".encode()
            )
            await writer.drain()
            async with self._arrived:
                self.received.append(Received(path, headers, body))
                self._arrived.notify_all()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def webhook_receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver(url="")
    server = await asyncio.start_server(receiver._serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    receiver.url = f"http://127.0.0.1:{port}/hooks"
    try:
        yield receiver
    finally:
        server.close()
        await server.wait_closed()
