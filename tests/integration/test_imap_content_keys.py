"""IMAP's content cache: the light keys (core/rendering/batch.py `content_keys`) equal
the keys of the loaded mails (`content_key`), and a listing's envelopes (from the kept
structures) are those the whole messages give."""

from __future__ import annotations

import asyncio
import smtplib
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.rendering.batch import content_key, content_keys, load_many
from core.store.models import Mail
from imap_view.header_text import seven_bit_text
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import fetched, imap_login

D = "agentmail.localhost"


def _submit(port: int) -> None:
    message = EmailMessage()
    message["From"] = f"bob@{D}"
    message["To"] = f"jianf@{D}"
    message["Subject"] = "by smtp"
    message["Message-ID"] = "<keys@client.example>"
    message.set_content("raw bytes")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.login("bob", PASSWORD)
        client.send_message(message)


async def test_light_keys_equal_the_keys_of_the_loaded_mails(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "rendered"}))
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "Merge?", "options": ["yes", "no"]},
        )
    )
    ok(
        await jianf.post(
            "/api/v1/me/permission/decide", json={"mail_id": asked["mail_id"], "decision": "no"}
        )
    )
    patch = {"session_alias": "renamed"}
    ok(await jianf.patch(f"/api/v1/me/sessions/{asked['session_id']}", json=patch))
    await asyncio.to_thread(_submit, api.gateway.smtp_port)
    store = api.gateway.store
    assert store is not None

    def both(session: Session) -> tuple[dict[int, object], dict[int, object]]:
        seqs = list(session.scalars(select(Mail.seq)))
        loaded = load_many(session, seqs)
        return content_keys(session, seqs), {s: content_key(s, i) for s, i in loaded.items()}

    light, full = await store.read(both)
    assert len(light) == 3
    assert light == full


async def test_envelopes_of_a_listing_equal_those_of_whole_messages(api: Api) -> None:
    """A FETCH of only ENVELOPE (and FLAGS, UID, INTERNALDATE) reads kept structures
    (made for these renderings at that read); later, with the whole message cached,
    the same envelopes."""
    await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    first = ok(
        await builder.post(
            "/api/v1/mail/send",
            json={"to": "jianf@", "cc": ["bob@"], "subject": "Größe prüfen", "body": "*x*"},
        )
    )
    reply = {"to": "jianf@", "subject": "Re: Größe prüfen", "reply_to": first["mail_id"]}
    ok(await builder.post("/api/v1/mail/send", json=reply))
    await asyncio.to_thread(_submit, api.gateway.smtp_port)
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        alone = await imap.ok("fetch", "1:3", "(UID FLAGS ENVELOPE)")
        header = fetched(await imap.ok("fetch", "1:3", "(BODY.PEEK[HEADER])"))
        whole = fetched(await imap.ok("fetch", "1:3", "(BODY.PEEK[])"))
        again = await imap.ok("fetch", "1:3", "(UID FLAGS ENVELOPE)")
    assert alone == again
    text = b"".join(b"".join(item) if isinstance(item, tuple) else item for item in alone)
    assert text.count(b"ENVELOPE (") == 3
    # RFC 6855 §3: the subject as stored, RFC 2047 encoded, not UTF-8.
    assert text.isascii() and seven_bit_text("Größe prüfen").encode() in text
    assert f'"<{first["mail_id"]}@{D}>"'.encode() in text
    for number in (1, 2, 3):  # the header section is always the whole message's
        body = whole[number]["BODY[]"]
        assert body.startswith(header[number]["BODY[HEADER]"])
        assert b"Content-Type" in header[number]["BODY[HEADER]"]
