"""IMAP IDLE with aioimaplib: changes committed by any entrance are pushed, not polled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aioimaplib

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import imap_login

PUSH_TIMEOUT = 10.0


@asynccontextmanager
async def idling(api: Api, name: str, mailbox: str = "INBOX") -> AsyncIterator[aioimaplib.IMAP4]:
    client = aioimaplib.IMAP4("127.0.0.1", api.gateway.imap_port, timeout=15)
    await client.wait_hello_from_server()
    assert (await client.login(name, PASSWORD)).result == "OK"
    assert (await client.select(mailbox)).result == "OK"
    idle = await client.idle_start(timeout=PUSH_TIMEOUT * 3)
    try:
        yield client
    finally:
        client.idle_done()
        await asyncio.wait_for(idle, PUSH_TIMEOUT)
        await client.logout()


async def pushed_until(client: aioimaplib.IMAP4, wanted: bytes) -> list[bytes]:
    """Server pushes until one contains `wanted`; fails after PUSH_TIMEOUT."""
    lines: list[bytes] = []
    while not any(wanted in line for line in lines):
        push = await client.wait_server_push(timeout=PUSH_TIMEOUT)
        assert isinstance(push, list), push
        lines += [line if isinstance(line, bytes) else line.encode() for line in push]
    return lines


async def test_a_mail_sent_over_rest_is_pushed_as_exists(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    payload = {"to": "jianf@", "subject": "first", "body": "x"}
    ok(await builder.post("/api/v1/mail/send", json=payload))
    async with idling(api, "jianf") as client:
        ok(await builder.post("/api/v1/mail/send", json={**payload, "subject": "second"}))
        assert b"2 EXISTS" in await pushed_until(client, b"EXISTS")


async def test_read_state_changed_elsewhere_is_pushed_as_fetch(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    payload = {"to": "jianf@", "subject": "first", "body": "x"}
    first = ok(await builder.post("/api/v1/mail/send", json=payload))
    ok(await builder.post("/api/v1/mail/send", json={**payload, "subject": "second"}))
    async with idling(api, "jianf") as client:
        ok(await jianf.post(f"/api/v1/me/mail/{first['mail_id']}/read"))  # over REST
        lines = await pushed_until(client, b"FETCH")
        assert any(b"1 FETCH" in line and b"\\Seen" in line for line in lines), lines
        async with imap_login(api.gateway, "jianf") as other:  # another IMAP session
            await other.ok("select", "INBOX")
            await other.ok("store", "2", "+FLAGS", "(\\Seen)")
        lines = await pushed_until(client, b"2 FETCH")
        assert any(b"2 FETCH" in line and b"\\Seen" in line for line in lines), lines


async def test_archiving_over_rest_is_pushed_as_expunge(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    sent = ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "a"}))
    async with idling(api, "jianf") as client:
        ok(await jianf.post(f"/api/v1/me/mail/{sent['mail_id']}/archive"))
        assert b"1 EXPUNGE" in await pushed_until(client, b"EXPUNGE")


async def test_deleting_elsewhere_is_pushed_as_expunge_and_exists(api: Api) -> None:
    """IDLE on INBOX sees another session's EXPUNGE into Trash; IDLE on Trash sees it come."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = [
        ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": s}))
        for s in ("a", "b")
    ]
    async with idling(api, "jianf") as inbox, idling(api, "jianf", "Trash") as trash:
        async with imap_login(api.gateway, "jianf") as other:
            await other.ok("select", "INBOX")
            await other.uid("STORE", "1", "+FLAGS", "(\\Deleted)")
            await other.ok("expunge")
        assert b"1 EXPUNGE" in await pushed_until(inbox, b"EXPUNGE")
        assert b"1 EXISTS" in await pushed_until(trash, b"EXISTS")
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]['mail_id']}/delete"))  # over REST
        assert b"1 EXPUNGE" in await pushed_until(inbox, b"EXPUNGE")
        assert b"2 EXISTS" in await pushed_until(trash, b"2 EXISTS")


async def test_a_draft_saved_over_rest_is_pushed_to_drafts(api: Api) -> None:
    jianf = await api.human("jianf")
    async with idling(api, "jianf", "Drafts") as client:
        saved = await jianf.post("/api/v1/me/drafts", json={"to": "bob@", "subject": "later"})
        assert saved.status_code == 201, saved.text
        assert b"1 EXISTS" in await pushed_until(client, b"EXISTS")
        ok(await jianf.delete(f"/api/v1/me/drafts/{saved.json()['draft_id']}"))
        assert b"1 EXPUNGE" in await pushed_until(client, b"EXPUNGE")
