"""`postmaster@` and `abuse@` are accepted and reach every admin (RFC 5321 §4.5.1,
RFC 2142 §2)."""

from __future__ import annotations

import asyncio
import smtplib
from typing import Any

import pytest
from sqlalchemy import select

from core.store.models import Delivery, Mail
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api
from tests.support.imap import fetched, imap_login
from tests.support.smtp import D, message


def _sendmail(port: int, mail: Any, rcpts: list[str]) -> dict[str, Any]:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.login("alice", PASSWORD)
        return client.send_message(mail, from_addr=f"alice@{D}", to_addrs=rcpts)


async def _inbox_subjects(client: Any) -> list[str]:
    response = await client.get("/api/v1/me/mail/inbox", params={"order": "oldest"})
    assert response.status_code == 200, response.text
    return [m["subject"] for m in response.json()["mails"]]


async def test_postmaster_and_abuse_reach_every_admins_inbox(api: Api) -> None:
    await api.human("alice")
    root = await api.human("root2", is_admin=True)
    bob = await api.human("bob")
    admin = await api.admin()
    port = api.gateway.smtp_port
    # RFC 5321 §4.1.1.3: `RCPT TO:<Postmaster>` without a domain is this domain's.
    both = message(f"alice@{D}", f"postmaster@{D}", "bounce loop", Cc=f"abuse@{D}")
    await asyncio.to_thread(_sendmail, port, both, ["Postmaster", f"abuse@{D}"])
    spam = message(f"alice@{D}", f"ABUSE@{D}", "spam from you")
    await asyncio.to_thread(_sendmail, port, spam, [f"ABUSE@{D}"])

    store = api.gateway.store
    assert store is not None
    mails = await store.read(lambda s: s.scalars(select(Mail).order_by(Mail.seq)).all())
    assert [(m.to_name, m.cc) for m in mails] == [("postmaster", ["abuse@"]), ("abuse", [])]
    deliveries = await store.read(
        lambda s: sorted(s.execute(select(Delivery.mail_seq, Delivery.recipient)).all())
    )
    assert [name for _, name in deliveries] == ["admin", "root2", "admin", "root2"]

    expected = ["bounce loop", "spam from you"]
    for client in (admin, root):
        assert await _inbox_subjects(client) == expected
    assert await _inbox_subjects(bob) == []
    for name, secret in (("admin", ADMIN_PASSWORD), ("root2", PASSWORD)):
        async with imap_login(api.gateway, name, secret) as imap:
            await imap.ok("select", "INBOX")
            data = await imap.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT TO)])")
            headers = [e["BODY[HEADER.FIELDS (SUBJECT TO)]"] for e in fetched(data).values()]
            assert len(headers) == 2
            assert f"To: postmaster@{D}".encode() in headers[0] and b"bounce loop" in headers[0]
            assert b"spam from you" in headers[1]


async def test_postmaster_elsewhere_is_still_a_relay(api: Api) -> None:
    await api.human("alice")
    mail = message(f"alice@{D}", "postmaster@example.com", "relay?")
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        await asyncio.to_thread(_sendmail, api.gateway.smtp_port, mail, ["postmaster@example.com"])
    [(code, text)] = refused.value.recipients.values()
    assert code == 550 and text.decode().startswith("5.7.1 relaying denied")


async def test_rest_reaches_the_postmaster_too(api: Api) -> None:
    alice = await api.human("alice")
    sent = await alice.post(
        "/api/v1/me/mail/send", json={"to": "postmaster@", "subject": "by REST", "body": "hi"}
    )
    assert sent.status_code == 200, sent.text
    assert await _inbox_subjects(await api.admin()) == ["by REST"]
    assert await _inbox_subjects(alice) == []
