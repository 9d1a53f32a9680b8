"""Logged-in IMAP and SMTP sessions over raw connections, and how a test sees one end.

Raw (tests/support/raw_lines.py) so that a line the server sends unasked — IMAP's
`* BYE`, SMTP's `421` — is read as it is, then the close after it.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tests.support.raw_lines import RawConnection, raw_connection

MARGIN = 30.0  # seconds: what a test waits for an end that comes at once


@asynccontextmanager
async def imap_as(port: int, name: str, secret: str) -> AsyncIterator[RawConnection]:
    """An IMAP session logged in as `name`, INBOX selected."""
    async with raw_connection(port) as imap:
        assert (await imap.line()).startswith(b"* OK")
        login = b"L LOGIN " + name.encode() + b" " + secret.encode() + b"\r\n"
        reply = await imap.imap(b"L", login)
        assert reply[-1].startswith(b"L OK"), reply
        assert (await imap.imap(b"S", b"S SELECT INBOX\r\n"))[-1].startswith(b"S OK")
        yield imap


@asynccontextmanager
async def smtp_as(port: int, name: str, secret: str) -> AsyncIterator[RawConnection]:
    """An SMTP session past EHLO and AUTH PLAIN as `name`."""
    async with raw_connection(port) as smtp:
        assert (await smtp.smtp_reply())[-1].startswith(b"220")
        assert (await smtp.smtp(b"EHLO client.example\r\n"))[-1].startswith(b"250")
        plain = base64.b64encode(b"\0" + name.encode() + b"\0" + secret.encode())
        assert (await smtp.smtp(b"AUTH PLAIN " + plain + b"\r\n"))[-1].startswith(b"235")
        yield smtp


async def ended(connection: RawConnection, prefix: bytes) -> None:
    """The server said `prefix…` unasked, then closed the connection."""
    line = await asyncio.wait_for(connection.reader.readline(), MARGIN)
    assert line.startswith(prefix), line
    assert await asyncio.wait_for(connection.reader.read(), MARGIN) == b""


async def serves(imap: RawConnection, smtp: RawConnection | None = None) -> None:
    """The sessions still answer commands."""
    assert (await imap.imap(b"N", b"N SEARCH ALL\r\n"))[-1].startswith(b"N OK")
    if smtp is not None:
        assert (await smtp.smtp(b"NOOP\r\n"))[-1].startswith(b"250")
