"""A revoked key or a changed password ends the sessions it opened: IMAP `* BYE [EXPIRED]`,
SMTP `421 4.7.0`, the SSE stream's end — within seconds, while the user's other sessions
(another key; the password, when a key is revoked) stay (docs/security.md, "Logins and
sessions"). On both databases: the check reads the keys and users rows."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx

from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api
from tests.support.metrics import moved, scrape
from tests.support.raw_lines import RawConnection, raw_connection
from tests.support.sse import SseStream, open_stream

NEW_PASSWORD = "a-new-password"
RESET_PASSWORD = "an-admin-reset"
MARGIN = 30.0  # seconds: the end comes at once; this only bounds a broken test


@asynccontextmanager
async def imap_as(gateway: Gateway, secret: str) -> AsyncIterator[RawConnection]:
    async with raw_connection(gateway.imap_port) as imap:
        assert (await imap.line()).startswith(b"* OK")
        reply = await imap.imap(b"L", b"L LOGIN alice " + secret.encode() + b"\r\n")
        assert reply[-1].startswith(b"L OK"), reply
        assert (await imap.imap(b"S", b"S SELECT INBOX\r\n"))[-1].startswith(b"S OK")
        yield imap


@asynccontextmanager
async def smtp_as(gateway: Gateway, secret: str) -> AsyncIterator[RawConnection]:
    async with raw_connection(gateway.smtp_port) as smtp:
        assert (await smtp.smtp_reply())[-1].startswith(b"220")
        assert (await smtp.smtp(b"EHLO client.example\r\n"))[-1].startswith(b"250")
        plain = base64.b64encode(b"\0alice\0" + secret.encode())
        assert (await smtp.smtp(b"AUTH PLAIN " + plain + b"\r\n"))[-1].startswith(b"235")
        yield smtp


async def ended(connection: RawConnection, prefix: bytes) -> None:
    """The server said `prefix…` unasked, then closed the connection."""
    line = await asyncio.wait_for(connection.reader.readline(), MARGIN)
    assert line.startswith(prefix), line
    assert await asyncio.wait_for(connection.reader.read(), MARGIN) == b""


async def serves(imap: RawConnection, smtp: RawConnection | None = None) -> None:
    assert (await imap.imap(b"N", b"N SEARCH ALL\r\n"))[-1].startswith(b"N OK")
    if smtp is not None:
        assert (await smtp.smtp(b"NOOP\r\n"))[-1].startswith(b"250")


async def stream_ends(stream: SseStream) -> None:
    await asyncio.wait_for(stream.finished.wait(), MARGIN)


async def user_key(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.post("/api/v1/me/keys", json={"label": "a mail client"})
    assert response.status_code == 201, response.text
    issued: dict[str, Any] = response.json()
    return issued


async def test_a_revoked_key_or_a_changed_password_ends_what_it_opened(api: Api) -> None:
    gateway, alice = api.gateway, await api.human("alice")
    first, second = await user_key(alice), await user_key(alice)
    before = await scrape(api.client())
    async with AsyncExitStack() as stack:
        enter = stack.enter_async_context
        imap_first = await enter(imap_as(gateway, first["key"]))
        imap_second = await enter(imap_as(gateway, second["key"]))
        imap_password = await enter(imap_as(gateway, PASSWORD))
        smtp_first = await enter(smtp_as(gateway, first["key"]))
        smtp_password = await enter(smtp_as(gateway, PASSWORD))
        sse_first = await enter(open_stream(api.client(first["key"])))
        sse_second = await enter(open_stream(api.client(second["key"])))

        # The first key revoked: what it opened ends; the second key's and the
        # password's sessions go on.
        revoked = await alice.delete(f"/api/v1/me/keys/{first['key_id']}")
        assert revoked.status_code == 200, revoked.text
        await ended(imap_first, b"* BYE [EXPIRED]")
        await ended(smtp_first, b"421 4.7.0")
        await stream_ends(sse_first)
        await serves(imap_second)
        await serves(imap_password, smtp_password)
        assert not sse_second.finished.is_set()

        # Her own password change: the sessions of the old password end, the key's stay.
        change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
        changed = await alice.post("/api/v1/me/password", json=change)
        assert changed.status_code == 200, changed.text
        await ended(imap_password, b"* BYE [EXPIRED]")
        await ended(smtp_password, b"421 4.7.0")
        await serves(imap_second)

        # An admin's reset: the same for the password she had until then.
        imap_new = await enter(imap_as(gateway, NEW_PASSWORD))
        admin = await api.admin()
        reset = await admin.post(
            "/api/v1/admin/users/alice/password", json={"new_password": RESET_PASSWORD}
        )
        assert reset.status_code == 200, reset.text
        await ended(imap_new, b"* BYE [EXPIRED]")
        await serves(imap_second)
        assert not sse_second.finished.is_set()

    after = await scrape(api.client())
    ended_by = {
        p: moved(before, after, "agentmail_sessions_ended_total", protocol=p)
        for p in ("imap", "smtp", "sse")
    }
    assert ended_by == {"imap": 3, "smtp": 2, "sse": 1}
