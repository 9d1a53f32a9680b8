"""Security issue, hole 1: a literal is refused when it is announced, not after it is read.

`x LOGIN {2000000000+}` followed by bytes made the gateway buffer them all before
anyone logged in (three connections: 2.3 GB resident). These tests replay it and
the synchronizing and post-login variants. Protocol only (nothing is stored), so
on SQLite alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gateway.server import Gateway
from imap_view.limits import PREAUTH_COMMAND_BYTES
from tests.support.gateway import ADMIN_PASSWORD, running_gateway
from tests.support.raw_imap import RawImap, resident_bytes

FLOOD = 16 * 1024 * 1024  # per connection; the fix must not keep any of it


@asynccontextmanager
async def gateway_with(tmp_path: Path, **settings: Any) -> AsyncIterator[Gateway]:
    async with running_gateway(
        f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "data", **settings
    ) as gateway:
        yield gateway


async def _flood(port: int) -> tuple[bytes, int]:
    """The issue's input on one connection: what the server answered, octets sent."""
    raw = await RawImap.open(port)
    await raw.send(b"x LOGIN {2000000000+}\r\n")
    answered = asyncio.create_task(raw.to_the_end())
    sent = await raw.stream(FLOOD)
    reply = await answered
    await raw.close()
    return reply, sent


async def test_a_huge_non_synchronizing_literal_before_login_is_refused_and_closed(
    tmp_path: Path,
) -> None:
    async with gateway_with(tmp_path) as gateway:
        before = resident_bytes()
        results = await asyncio.gather(*(_flood(gateway.imap_port) for _ in range(3)))
        grown = resident_bytes() - before
        for reply, _ in results:
            # RFC 7888 §4: tagged BAD [TOOBIG], then BYE, then the connection is closed.
            assert reply.startswith(b"x BAD [TOOBIG] "), reply
            assert b"\r\n* BYE " in reply, reply
        # The gateway runs in this process: 3 x 16 MB sent must not have stayed here.
        assert grown < 8 * 1024 * 1024, grown
        # The server goes on serving.
        fresh = await RawImap.open(gateway.imap_port)
        await fresh.login("admin", ADMIN_PASSWORD)
        await fresh.close()


@pytest.mark.parametrize(
    "line",
    [b"x LOGIN {2000000000}", b"x LOGIN admin {5000}", b"x APPEND INBOX {20000000}"],
)
async def test_a_large_synchronizing_literal_before_login_gets_no_continuation(
    tmp_path: Path, line: bytes
) -> None:
    """No `+` (so the client sends nothing); the session goes on."""
    async with gateway_with(tmp_path) as gateway:
        raw = await RawImap.open(gateway.imap_port)
        reply = await raw.command(line)
        assert reply == [b"x BAD [TOOBIG] Literal larger than 4096 octets.\r\n"]
        assert (await raw.command(b"y NOOP"))[-1].startswith(b"y OK")
        await raw.login("admin", ADMIN_PASSWORD)
        await raw.close()


async def test_literal_minus_before_login_literal_plus_and_appendlimit_after(
    tmp_path: Path,
) -> None:
    """APPENDLIMIT (RFC 7889) defaults to the SMTP message limit."""
    async with gateway_with(tmp_path, smtp_max_message_bytes=123_456) as gateway:
        raw = await RawImap.open(gateway.imap_port)
        assert b" LITERAL- " in raw.greeting and b"LITERAL+" not in raw.greeting
        await raw.login("admin", ADMIN_PASSWORD)
        [listed, _] = await raw.command(b"c CAPABILITY")
        assert b" LITERAL+ " in listed and b"LITERAL-" not in listed
        assert b" APPENDLIMIT=123456" in listed
        await raw.close()


async def test_an_append_over_the_limit_after_login_is_too_big_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    message = b"Subject: x\r\nTo: admin@agentmail.localhost\r\n\r\n" + b"y" * 3000 + b"\r\n"
    async with gateway_with(tmp_path, imap_max_append_bytes=2000) as gateway:
        raw = await RawImap.open(gateway.imap_port)
        await raw.login("admin", ADMIN_PASSWORD)
        # Synchronizing: NO [TOOBIG] instead of `+` (RFC 7889 §4); nothing more is sent.
        reply = await raw.command(b"a APPEND Drafts {%d}" % len(message))
        assert reply == [b"a NO [TOOBIG] Message larger than the APPENDLIMIT of 2000 octets.\r\n"]
        assert (await raw.command(b"b NOOP"))[-1].startswith(b"b OK")
        # Within the limit, without waiting for `+` (LITERAL+ after login): stored.
        small = message[:1000]
        await raw.send(b"c APPEND Drafts {%d+}\r\n" % len(small) + small + b"\r\n")
        assert (await raw.tagged(b"c"))[-1].startswith(b"c OK [APPENDUID ")
        # Non-synchronizing over the limit: its octets are on the way, so BYE (RFC 7888 §4).
        await raw.send(b"d APPEND Drafts {%d+}\r\n" % len(message))
        answered = asyncio.create_task(raw.to_the_end())
        await raw.stream(len(message))
        reply_bytes = await answered
        assert reply_bytes.startswith(b"d NO [TOOBIG] "), reply_bytes
        assert b"\r\n* BYE " in reply_bytes
        await raw.close()


async def test_commands_and_lines_are_bounded_before_login(tmp_path: Path) -> None:
    async with gateway_with(tmp_path) as gateway:
        # Many small literals add up: a command before login is at most 16 KiB.
        raw = await RawImap.open(gateway.imap_port)
        literal = b"{4000+}\r\n" + b"z" * 4000
        await raw.send(b"x LOGIN " + literal + b" " + literal + b" " + literal + b" " + literal)
        await raw.send(b" " + literal + b"\r\n")
        reply = await raw.to_the_end()
        assert reply.startswith(b"x BAD [TOOBIG] Command larger than 16384 octets.\r\n* BYE")
        await raw.close()
        # Many empty literals: each would make pymap parse the command again.
        raw = await RawImap.open(gateway.imap_port)
        await raw.send(b"x ID (" + b"{0+}\r\n " * 65 + b")\r\n")
        reply = await raw.to_the_end()
        assert reply.startswith(b"x BAD More than 64 literals in one command.\r\n* BYE"), reply
        await raw.close()
        # ID at the largest RFC 2971 §3.3 allows (30 pairs, fields of 30 octets, values of
        # 1024), every octet escaped in quoted strings: more than 16 KiB, and answered.
        raw = await RawImap.open(gateway.imap_port)
        pairs = [b'"%b%02d" "%b"' % (b"\\\\" * 28, i, b'\\"' * 1024) for i in range(30)]
        largest = b"i ID (" + b" ".join(pairs) + b")"
        assert len(largest) > PREAUTH_COMMAND_BYTES
        reply = await raw.command(largest)
        assert reply[0].startswith(b"* ID ") and reply[-1].startswith(b"i OK"), reply
        # ID is bounded all the same, at 64 KiB, with synchronizing literals too: refused
        # before the `+` that would go over, and the session goes on.
        await raw.send(b"x ID ({4000}\r\n")
        for _ in range(15):
            assert (await raw.line()).startswith(b"+ ")
            await raw.send(b"z" * 4000 + b" {4000}\r\n")
        assert (await raw.line()).startswith(b"+ ")
        await raw.send(b"z" * 4000 + b" {4000}\r\n")
        assert await raw.line() == b"x BAD [TOOBIG] Command larger than 65536 octets.\r\n"
        assert (await raw.command(b"y NOOP"))[-1].startswith(b"y OK")
        await raw.close()
        # A line of 100,000 octets: refused at 64 KiB, never read whole.
        raw = await RawImap.open(gateway.imap_port)
        await raw.send(b"x LOGIN " + b"a" * 100_000 + b"\r\n")
        reply = await raw.to_the_end()
        assert b"* BYE " in reply, reply
        await raw.close()
