"""An SMTP session is bounded in time and commands, and one address in connections:
a NOOP every few seconds does not keep a session forever.

Small setting values keep the tests fast; the defaults are in docs/smtp.md. These
bounds are the protocol's, not the store's: the tests run on SQLite only.
"""

from __future__ import annotations

import asyncio
import base64
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import select

from core.store.models import Mail
from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.smtp import D

Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@asynccontextmanager
async def _gateway(tmp_path: Path, **limits: object) -> AsyncIterator[Gateway]:
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(url, tmp_path / "data", **limits) as gateway:
        yield gateway


@asynccontextmanager
async def _connected(gateway: Gateway) -> AsyncIterator[Stream]:
    reader, writer = await asyncio.open_connection("127.0.0.1", gateway.smtp_port)
    try:
        yield reader, writer
    finally:
        writer.close()
        await writer.wait_closed()


async def _line(reader: asyncio.StreamReader) -> str:
    return (await asyncio.wait_for(reader.readline(), timeout=10)).decode()


async def _command(stream: Stream, text: str) -> str:
    reader, writer = stream
    writer.write(text.encode() + b"\r\n")
    await writer.drain()
    return await _line(reader)


async def _closed(reader: asyncio.StreamReader) -> bool:
    return await asyncio.wait_for(reader.read(), timeout=10) == b""


async def test_a_noop_every_few_moments_no_longer_keeps_a_session(tmp_path: Path) -> None:
    async with (
        _gateway(tmp_path, smtp_max_session_seconds=1.5) as gateway,
        _connected(gateway) as stream,
    ):
        reader, writer = stream
        assert (await _line(reader)).startswith("220")
        replies = []
        for _ in range(50):  # 10 s at most: without the bound this went on for ever
            writer.write(b"NOOP\r\n")
            await writer.drain()
            reply = await _line(reader)
            replies.append(reply)
            if not reply.startswith("250"):
                break
            await asyncio.sleep(0.2)
        assert replies[-1].startswith("421 4.4.2"), replies
        assert all(r.startswith("250") for r in replies[:-1]) and len(replies) > 2
        assert await _closed(reader)


async def test_a_silent_session_ends_at_its_time_too(tmp_path: Path) -> None:
    async with (
        _gateway(tmp_path, smtp_max_session_seconds=0.5) as gateway,
        _connected(gateway) as (reader, _),
    ):
        assert (await _line(reader)).startswith("220")
        assert (await _line(reader)).startswith("421 4.4.2")  # unasked, RFC 5321 §3.8
        assert await _closed(reader)


async def test_an_idle_session_is_told_421_before_it_is_closed(tmp_path: Path) -> None:
    async with (
        _gateway(tmp_path, smtp_idle_timeout_seconds=0.5) as gateway,
        _connected(gateway) as stream,
    ):
        assert (await _line(stream[0])).startswith("220")
        assert (await _command(stream, "NOOP")).startswith("250")
        # Then silence: Postfix's words, unasked (RFC 5321 §3.8), and the end.
        assert await _line(stream[0]) == f"421 4.4.2 {D} Error: timeout exceeded\r\n"
        assert await _closed(stream[0])


async def test_the_command_after_the_last_allowed_gets_421(tmp_path: Path) -> None:
    async with (
        _gateway(tmp_path, smtp_max_commands=5) as gateway,
        _connected(gateway) as stream,
    ):
        assert (await _line(stream[0])).startswith("220")
        for _ in range(5):
            assert (await _command(stream, "NOOP")).startswith("250")
        assert (await _command(stream, "NOOP")).startswith("421 4.4.2")
        assert await _closed(stream[0])


async def test_connections_per_address_are_bounded_at_greeting(tmp_path: Path) -> None:
    async with _gateway(tmp_path, smtp_max_connections_per_address=2) as gateway:
        async with _connected(gateway) as first, _connected(gateway) as second:
            assert (await _line(first[0])).startswith("220")
            assert (await _line(second[0])).startswith("220")
            async with _connected(gateway) as third:
                assert (await _line(third[0])).startswith("421 4.7.0")
                assert await _closed(third[0])
            assert (await _command(first, "QUIT")).startswith("221")
            assert await _closed(first[0])
        # The closed ones no longer count.
        async with _connected(gateway) as again:
            assert (await _line(again[0])).startswith("220")


async def test_a_message_being_stored_when_time_runs_out_gets_its_250_first(
    tmp_path: Path,
) -> None:
    """SQLite only: another connection holds the write lock, so the store waits while
    the session's time runs out; the session ends only after the 250, and the mail is
    stored once (a client cut off mid-store would send it again)."""
    path = tmp_path / "agentmail.db"
    async with _gateway(tmp_path, smtp_max_session_seconds=2.0) as gateway:
        api = Api(gateway)
        try:
            await api.human("alice")
        finally:
            await api.close()
        async with _connected(gateway) as stream:
            assert (await _line(stream[0])).startswith("220")
            await _command(stream, "EHLO client.example")
            while not (await _line(stream[0])).startswith("250 "):
                pass
            plain = base64.b64encode(f"\0alice\0{PASSWORD}".encode()).decode()
            assert (await _command(stream, f"AUTH PLAIN {plain}")).startswith("235")
            assert (await _command(stream, f"MAIL FROM:<alice@{D}>")).startswith("250")
            assert (await _command(stream, f"RCPT TO:<alice@{D}>")).startswith("250")
            assert (await _command(stream, "DATA")).startswith("354")
            blocker = sqlite3.connect(path, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")  # the gateway's write now waits for it
            stream[1].write(b"Subject: late\r\n\r\nstored while time ran out\r\n.\r\n")
            await stream[1].drain()
            await asyncio.sleep(2.5)  # past the session's 2 s
            blocker.rollback()
            blocker.close()
            assert (await _line(stream[0])).startswith("250 2.0.0")
            assert (await _line(stream[0])).startswith("421 4.4.2")
            assert await _closed(stream[0])
        store = gateway.store
        assert store is not None
        subjects = await store.read(lambda s: s.scalars(select(Mail.subject)).all())
        assert subjects == ["late"]
