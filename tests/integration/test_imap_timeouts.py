"""Security issue, hole 8 (IMAP): slow and idle clients are cut off, busy ones are kept.

An unauthenticated idle connection and a 1-byte/s endless line stayed open past
5 minutes. The timeouts are settings; here they are a second or two, and the
tests check for the `* BYE` with its reason (RFC 3501 §7.1.5) and the close.
Nothing is stored, so on SQLite alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from gateway.server import Gateway
from tests.support.gateway import ADMIN_PASSWORD, running_gateway
from tests.support.raw_imap import RawImap

SHORT = 1.5  # seconds: each timeout under test
NOT_LOGGED_IN = b"* BYE Not logged in within 1.5 seconds of connecting.\r\n"
AUTOLOGOUT = b"* BYE Autologout: idle for 1.5 seconds.\r\n"
WELL_BEHAVED = 0.25  # seconds between the commands of a client that must be kept


@asynccontextmanager
async def gateway_with(tmp_path: Path, **settings: Any) -> AsyncIterator[Gateway]:
    async with running_gateway(
        f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "data", **settings
    ) as gateway:
        yield gateway


async def test_a_client_that_does_not_log_in_is_cut_off(tmp_path: Path) -> None:
    async with gateway_with(tmp_path, imap_login_timeout_seconds=SHORT) as gateway:
        idle = await RawImap.open(gateway.imap_port)
        assert await idle.to_the_end() == NOT_LOGGED_IN
        # NOOPs do not keep an unauthenticated connection: the time counts from connecting.
        busy = await RawImap.open(gateway.imap_port)
        with contextlib.suppress(ConnectionError):
            for _ in range(int(3 * SHORT / WELL_BEHAVED)):
                await busy.send(b"n NOOP\r\n")
                await asyncio.sleep(WELL_BEHAVED)
        reply = await busy.to_the_end()
        assert reply.endswith(NOT_LOGGED_IN), reply
        await idle.close()
        await busy.close()
        # One that logs in in time is kept.
        prompt = await RawImap.open(gateway.imap_port)
        await prompt.login("admin", ADMIN_PASSWORD)
        await asyncio.sleep(2 * SHORT)
        assert (await prompt.command(b"n NOOP"))[-1].startswith(b"n OK")
        await prompt.close()


async def test_an_endless_line_is_cut_off(tmp_path: Path) -> None:
    """One byte at a time, faster than any idle timeout, never ending the line."""
    async with gateway_with(tmp_path, imap_command_timeout_seconds=SHORT) as gateway:
        raw = await RawImap.open(gateway.imap_port)
        await raw.login("admin", ADMIN_PASSWORD)
        ended = asyncio.create_task(raw.to_the_end())
        with contextlib.suppress(ConnectionError):
            while not ended.done():
                await raw.send(b"a")
                await asyncio.sleep(WELL_BEHAVED)
        assert await ended == b"* BYE Command not completed within 1.5 seconds.\r\n"
        await raw.close()


async def test_a_silent_logged_in_client_is_logged_out_and_a_busy_one_kept(
    tmp_path: Path,
) -> None:
    """RFC 3501 §5.4's autologout (30 minutes by default), IDLE included: a client
    re-issues IDLE to stay (RFC 2177 §3)."""
    async with gateway_with(tmp_path, imap_idle_timeout_seconds=SHORT) as gateway:
        silent, idling, busy, reidling = [await RawImap.open(gateway.imap_port) for _ in range(4)]
        for raw in (silent, idling, busy, reidling):
            await raw.login("admin", ADMIN_PASSWORD)
        for raw in (idling, reidling):
            await raw.command(b"s SELECT INBOX")
            await raw.send(b"i IDLE\r\n")
            assert (await raw.line()).startswith(b"+ ")
        for _ in range(int(3 * SHORT / WELL_BEHAVED)):
            assert (await busy.command(b"n NOOP"))[-1].startswith(b"n OK")
            await reidling.send(b"DONE\r\n")
            assert (await reidling.tagged(b"i"))[-1].startswith(b"i OK")
            await reidling.send(b"i IDLE\r\n")
            assert (await reidling.line()).startswith(b"+ ")
            await asyncio.sleep(WELL_BEHAVED)
        assert await silent.to_the_end() == AUTOLOGOUT
        assert await idling.to_the_end() == AUTOLOGOUT
        assert (await busy.command(b"n NOOP"))[-1].startswith(b"n OK")
        await reidling.send(b"DONE\r\n")
        assert (await reidling.tagged(b"i"))[-1].startswith(b"i OK")
        for raw in (silent, idling, busy, reidling):
            await raw.close()


async def test_connections_per_address_are_limited(tmp_path: Path) -> None:
    async with gateway_with(tmp_path, imap_max_connections_per_address=3) as gateway:
        kept = [await RawImap.open(gateway.imap_port) for _ in range(3)]
        assert all(raw.greeting.startswith(b"* OK ") for raw in kept)
        # RFC 3501 §7.1.5: a BYE as the greeting, and the connection is closed.
        over = await RawImap.open(gateway.imap_port)
        turned_away = b"* BYE [LIMIT] Too many connections from your address (at most 3).\r\n"
        assert over.greeting == turned_away
        assert await over.to_the_end() == b""
        await over.close()
        # A connection that ends gives its place back.
        leaving = kept.pop()
        await leaving.command(b"l LOGOUT")
        await leaving.close()
        again = await _greeted(gateway.imap_port)
        assert again.greeting.startswith(b"* OK ")
        for raw in [*kept, again]:
            await raw.close()


async def _greeted(port: int) -> RawImap:
    """A connection that got `* OK` (the server notices a closed one a moment later)."""
    for _ in range(100):
        raw = await RawImap.open(port)
        if raw.greeting.startswith(b"* OK "):
            return raw
        await raw.close()
        await asyncio.sleep(0.05)
    raise AssertionError("the place of a closed connection was never given back")
