"""A revoked key or a changed password ends the sessions it opened: IMAP `* BYE [EXPIRED]`,
SMTP `421 4.7.0`, the SSE stream's end — within seconds, while the user's other sessions
(another key; the password, when a key is revoked) stay (docs/security.md, "Logins and
sessions"). On both databases: the check reads the keys and users rows."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

import httpx

from tests.support.gateway import PASSWORD, Api
from tests.support.metrics import moved, scrape
from tests.support.sessions import MARGIN, ended, imap_as, serves, smtp_as
from tests.support.sse import SseStream, open_stream

NEW_PASSWORD = "a-new-password"
RESET_PASSWORD = "an-admin-reset"


async def stream_ends(stream: SseStream) -> None:
    await asyncio.wait_for(stream.finished.wait(), MARGIN)
    assert stream.comments[-1] == "the key or login of this stream was revoked"


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
        imap_first = await enter(imap_as(gateway.imap_port, "alice", first["key"]))
        imap_second = await enter(imap_as(gateway.imap_port, "alice", second["key"]))
        imap_password = await enter(imap_as(gateway.imap_port, "alice", PASSWORD))
        smtp_first = await enter(smtp_as(gateway.smtp_port, "alice", first["key"]))
        smtp_password = await enter(smtp_as(gateway.smtp_port, "alice", PASSWORD))
        sse_first = await enter(open_stream(api.client(first["key"])))
        sse_second = await enter(open_stream(api.client(second["key"])))

        await imap_first.send(b"I IDLE\r\n")  # a mail client waiting for new mail
        assert (await imap_first.line()).startswith(b"+ ")

        # The first key revoked: what it opened ends (IDLE or not); the second key's and
        # the password's sessions go on.
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
        imap_new = await enter(imap_as(gateway.imap_port, "alice", NEW_PASSWORD))
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
