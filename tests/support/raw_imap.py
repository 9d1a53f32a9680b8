"""IMAP spoken byte by byte: what a misbehaving client sends, and what it reads back.

imaplib and aioimaplib never send a literal larger than they mean or a line one
byte a second; the limit tests need exactly that, so they talk over a plain
asyncio stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.gateway import PASSWORD

if TYPE_CHECKING:
    from tests.support.dovecot import Dovecot

CHUNK = b"a" * 65_536


class _Reader(asyncio.StreamReader):
    """A reset connection reads as its end: what arrived before it is still read.

    (asyncio's StreamReader raises the reset before the data it holds, and a server
    that closes on a client still sending makes the kernel send a reset.)
    """

    def set_exception(self, exc: BaseException) -> None:
        self.feed_eof()


class RawImap:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.greeting = b""

    @classmethod
    async def open(cls, port: int) -> RawImap:
        loop = asyncio.get_running_loop()
        reader = _Reader()
        protocol = asyncio.StreamReaderProtocol(reader)
        transport, _ = await loop.create_connection(lambda: protocol, "127.0.0.1", port)
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        raw = cls(reader, writer)
        raw.greeting = await raw.line()
        return raw

    @classmethod
    async def dovecot(cls, server: Dovecot, select: bytes | None = None) -> RawImap:
        """A session on the test's Dovecot, logged in (and `select`ed when given): the
        differential tests open theirs as they open the gateway's."""
        reader, writer = await asyncio.open_connection(
            server.host, server.port, ssl=server.ssl_context()
        )
        raw = cls(reader, writer)
        raw.greeting = await raw.line()
        await raw.login(server.user, server.password)
        if select is not None:
            reply = await raw.command(b"s SELECT " + select)
            assert reply[-1].startswith(b"s OK"), reply
        return raw

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def line(self, timeout: float = 15.0) -> bytes:
        return await asyncio.wait_for(self.reader.readline(), timeout)

    async def tagged(self, tag: bytes, timeout: float = 15.0) -> list[bytes]:
        """Every line up to and including the tagged reply to `tag`."""
        lines = []
        while True:
            line = await self.line(timeout)
            assert line, (tag, lines)  # the connection ended before the reply
            lines.append(line)
            if line.startswith(tag + b" "):
                return lines

    async def to_the_end(self, timeout: float = 15.0) -> bytes:
        """Everything until the server closes the connection (a timeout fails the test)."""
        received = bytearray()
        while chunk := await asyncio.wait_for(self.reader.read(65_536), timeout):
            received += chunk
        return bytes(received)

    async def login(self, name: str, secret: str = PASSWORD) -> None:
        reply = await self.command(b"L LOGIN " + name.encode() + b" " + _quoted(secret))
        assert reply[-1].startswith(b"L OK"), reply

    async def command(self, line: bytes) -> list[bytes]:
        tag = line.split(b" ", 1)[0]
        await self.send(line + b"\r\n")
        return await self.tagged(tag)

    async def stream(self, octets: int) -> int:
        """Send up to `octets` filler bytes; how many went out before the server closed."""
        sent = 0
        try:
            while sent < octets:
                await self.send(CHUNK)
                sent += len(CHUNK)
        except ConnectionError:
            pass
        return sent

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()


def _quoted(text: str) -> bytes:
    return b'"' + text.replace("\\", "\\\\").replace('"', '\\"').encode() + b'"'


def resident_bytes() -> int:
    """This process' resident memory (VmRSS): the test's gateway runs in this process."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")
