"""Messages over the bounds of reading (MIME depth, parts, lines; HTML size and nesting)
are stored with 250 and served back byte for byte; only the text read from them
degrades (core/mime/bounds.py, core/mail/html_text.py). As Drafts, they are saved
too: an APPEND gets a tagged answer, never `BYE`.
"""

from __future__ import annotations

import asyncio
import smtplib

from sqlalchemy import select

from core.store.models import Mail
from tests.support.gateway import PASSWORD, Api
from tests.support.imap import fetched, imap_login
from tests.support.mime_bounds import (
    nested_divs,
    nested_messages,
    nested_multiparts,
    soft_breaks,
)
from tests.support.smtp import D

ALICE = f"alice@{D}"


def _send(port: int, raw: bytes) -> tuple[int, bytes]:
    with smtplib.SMTP("127.0.0.1", port, timeout=120) as client:
        client.login("alice", PASSWORD)
        client.mail(ALICE)
        client.rcpt(ALICE)
        return client.data(raw)


async def test_messages_over_the_bounds_are_stored_and_read_back_byte_for_byte(api: Api) -> None:
    await api.human("alice")
    sent = {
        "nested 1,000 deep": nested_multiparts(1000),
        "message/rfc822 300 deep": nested_messages(300),
        "5,000 nested divs": nested_divs(5000),
        "100,000 nested divs": nested_divs(100_000),
        "quoted-printable soft breaks": soft_breaks(100_000),
    }
    for name, raw in sent.items():
        code, reply = await asyncio.to_thread(_send, api.gateway.smtp_port, raw)
        assert code == 250, (name, code, reply)
    store = api.gateway.store
    assert store is not None
    query = select(Mail.subject, Mail.body).order_by(Mail.seq)
    bodies = dict(await store.read(lambda s: s.execute(query).all()))
    assert "did not read the text" in bodies["nested 1,000 deep"]
    assert "did not read the text" in bodies["message/rfc822 300 deep"]
    assert bodies["5,000 nested divs"] == "deep inside"
    assert bodies["100,000 nested divs"] == "deep inside"
    async with imap_login(api.gateway, "alice") as imap:
        await imap.ok("select", "INBOX")
        data = await imap.uid("FETCH", "1:*", "(UID BODY.PEEK[])")
        served = [entry["BODY[]"] for entry in fetched(data).values()]
        assert served == list(sent.values())
        await imap.ok("noop")


async def test_drafts_over_the_bounds_are_saved_with_a_note(api: Api) -> None:
    await api.human("alice")
    async with imap_login(api.gateway, "alice") as imap:
        for raw in (nested_multiparts(1000), nested_messages(300), nested_divs(5000)):
            typ, data = await imap("append", "Drafts", None, None, raw)
            assert typ == "OK", data
        await imap.ok("select", "Drafts")
        data = await imap.uid("FETCH", "1:*", "(BODY.PEEK[TEXT])")
        texts = [entry["BODY[TEXT]"] for entry in fetched(data).values()]
    assert len(texts) == 3
    assert b"not read" in texts[0] and b"not read" in texts[1]
    assert b"deep inside" in texts[2]
