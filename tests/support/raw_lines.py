"""Raw protocol clients for fuzzing: bytes in, the server's reply lines out.

Real clients (imaplib, smtplib) refuse to send malformed commands; these send
exactly the bytes given and read until the reply is complete, the connection
closes, or `TIMEOUT` passes (a missing reply is then visible to the test).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

TIMEOUT = 10.0


class RawConnection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False

    async def line(self) -> bytes:
        """One reply line, or b"" once the server has closed the connection."""
        if self.closed:
            return b""
        try:
            data = await asyncio.wait_for(self.reader.readline(), TIMEOUT)
        except (TimeoutError, ConnectionError):
            data = b""
        if not data:
            self.closed = True
        return data

    async def send(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            self.writer.write(data)
            await self.writer.drain()
        except ConnectionError:
            self.closed = True

    async def imap(self, tag: bytes, data: bytes) -> list[bytes]:
        """Send an IMAP command; the lines up to its tagged reply (or a BYE, or EOF)."""
        await self.send(data)
        lines: list[bytes] = []
        while True:
            line = await self.line()
            if not line:
                return lines
            lines.append(line)
            if line.startswith(tag + b" ") or line.startswith(b"* BYE"):
                return lines

    async def smtp(self, data: bytes) -> list[bytes]:
        """Send SMTP bytes; the lines of one complete reply (RFC 5321 §4.2.1)."""
        await self.send(data)
        return await self.smtp_reply()

    async def smtp_reply(self) -> list[bytes]:
        lines: list[bytes] = []
        while True:
            line = await self.line()
            if not line:
                return lines
            lines.append(line)
            if len(line) < 4 or line[3:4] != b"-":
                return lines


@asynccontextmanager
async def raw_connection(port: int, source: str = "127.0.0.1") -> AsyncIterator[RawConnection]:
    """A connection to the gateway on loopback from `source` (127.0.0.2 and on are other
    client addresses of this machine, for the limits per address)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    connection = RawConnection(reader, writer)
    try:
        yield connection
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
