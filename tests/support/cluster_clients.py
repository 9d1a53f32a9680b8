"""Clients of the cluster world: REST, SMTP and IMAP against any entrance (a replica on
its own address, or nginx in front), and the mails the scenarios send."""

from __future__ import annotations

import asyncio
import contextlib
import email
import imaplib
from email.message import EmailMessage, Message
from typing import Any

import aiosmtplib
import httpx

from tests.support.cluster_world import Entrance
from tests.support.gateway import PASSWORD
from tests.support.http import HUMAN_SEND, ok
from tests.support.imap import Imap
from tests.support.smtp import D, message

HUMAN_FILES = "/api/v1/me/attachments"
WAIT = 30.0  # the most one step of a client waits: far beyond a busy machine's answer


def mail_with_attachment(
    sender: str, to: str, subject: str, payload: bytes, filename: str
) -> EmailMessage:
    mail = message(f"{sender}@{D}", f"{to}@{D}", subject, f"{filename} attached")
    mail.add_attachment(payload, maintype="application", subtype="octet-stream", filename=filename)
    return mail


async def smtp_submit(entrance: Entrance, login: str, mail: EmailMessage) -> str:
    """Submit `mail` with AUTH as `login`; the server's reply to the end of DATA.
    Raises aiosmtplib's errors (a 4xx is `SMTPResponseException` with its code)."""
    async with aiosmtplib.SMTP(
        hostname=entrance.host, port=entrance.smtp_port, timeout=WAIT, start_tls=False
    ) as client:
        await client.login(login, PASSWORD)
        _, reply = await client.send_message(mail)
    return reply


async def upload(client: httpx.AsyncClient, name: str, payload: bytes) -> httpx.Response:
    files = {"file": (name, payload, "application/octet-stream")}
    return await client.post(HUMAN_FILES, files=files)


async def send_rest(
    client: httpx.AsyncClient, to: str, subject: str, ids: list[str], key: str | None = None
) -> httpx.Response:
    """A human's send with attachments; `key` is its Idempotency-Key."""
    headers = {"Idempotency-Key": key} if key else {}
    body = {"to": f"{to}@", "subject": subject, "body": "see attached", "attachment_ids": ids}
    return await client.post(HUMAN_SEND, json=body, headers=headers)


async def download(client: httpx.AsyncClient, attachment_id: str) -> bytes:
    response = await client.get(f"{HUMAN_FILES}/{attachment_id}")
    assert response.status_code == 200, response.text
    return response.content


async def inbox(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    page = ok(await client.get("/api/v1/me/mail/inbox", params={"status": "all", "limit": 200}))
    mails: list[dict[str, Any]] = page["mails"]
    return mails


async def imap_session(entrance: Entrance, login: str) -> Imap:
    """A logged-in stdlib IMAP client (tests/support/imap.py's wrapper)."""
    client = await asyncio.to_thread(imaplib.IMAP4, entrance.host, entrance.imap_port, timeout=WAIT)
    session = Imap(client)
    try:
        await session.ok("login", login, PASSWORD)
    except BaseException:  # refused or cut: the socket is closed here, not left to GC
        with contextlib.suppress(OSError):
            client.shutdown()
        raise
    return session


async def end_session(session: Imap) -> None:
    """LOGOUT, and the socket closed even when the session was cut (imaplib's `logout`
    leaves it open when LOGOUT itself fails)."""
    try:
        await session("logout")
    except (OSError, imaplib.IMAP4.error):
        pass
    finally:
        with contextlib.suppress(OSError):
            session.client.shutdown()


async def fetch_all(session: Imap, mailbox: str = "INBOX") -> list[Message]:
    """Every message of `mailbox`, parsed, in UID order."""
    await session.ok("select", mailbox)
    fetched = await session.uid("FETCH", "1:*", "(BODY.PEEK[])")
    return [email.message_from_bytes(item[1]) for item in fetched if isinstance(item, tuple)]


def attachments_of(mail: Message) -> dict[str, bytes]:
    """Each attached file's name and decoded bytes."""
    found = {}
    for part in mail.walk():
        name = part.get_filename()
        if name:
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            found[name] = payload
    return found
