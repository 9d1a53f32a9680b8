"""The headers a submission server adds (RFC 6409 §8):
`From:`, `Date:` and `Message-ID:` when missing, the Message-ID the store keeps, and
no subject borrowed from the conversation."""

from __future__ import annotations

import asyncio
import smtplib
from email.parser import BytesParser
from email.policy import default
from email.utils import parsedate_to_datetime
from pathlib import Path

from sqlalchemy import select

from core.store.models import Mail
from core.store.raw_messages import originals_of
from tests.support.cli import agentmail, summary
from tests.support.gateway import PASSWORD, Api
from tests.support.imap import fetched, imap_login
from tests.support.smtp import D, message, send

NO_HEADERS = b"just a line\r\n"


def _sendmail(port: int, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.login("alice", PASSWORD)
        client.sendmail(f"alice@{D}", [f"bob@{D}"], raw)


async def test_a_message_with_no_headers_gets_from_date_and_the_stored_message_id(
    api: Api, tmp_path: Path
) -> None:
    alice = await api.human("alice")
    await api.human("bob")
    # The default conversation of alice and bob exists, with a subject of its own.
    await send(api, "alice", PASSWORD, message(f"alice@{D}", f"bob@{D}", "earlier"))
    await asyncio.to_thread(_sendmail, api.gateway.smtp_port, NO_HEADERS)
    store = api.gateway.store
    assert store is not None
    mails = await store.read(lambda s: s.scalars(select(Mail).order_by(Mail.seq)).all())
    assert mails[0].session_id == mails[1].session_id
    bare = mails[1]
    assert bare.subject == ""  # not "earlier": the message has no subject
    original = (await store.read(lambda s: originals_of(s, [bare.seq])))[bare.seq]
    assert original.endswith(b"\r\n\r\n" + NO_HEADERS)  # the body stays a body
    parsed = BytesParser(policy=default).parsebytes(original)
    assert parsed["From"].addresses[0].addr_spec == f"alice@{D}"
    assert parsedate_to_datetime(str(parsed["Date"])).tzinfo is not None
    assert parsed["Subject"] is None
    # One Message-ID: in the bytes, in the store, in REST and over IMAP.
    shown = (await alice.get(f"/api/v1/me/mail/{bare.id}")).json()
    assert parsed["Message-ID"] == bare.message_id == shown["message_id"]
    assert shown["subject"] == ""
    async with imap_login(api.gateway, "bob") as imap:
        await imap.ok("select", "INBOX")
        data = await imap.uid("FETCH", "2", "(BODY.PEEK[HEADER.FIELDS (DATE MESSAGE-ID)])")
        [entry] = fetched(data).values()
        header = entry["BODY[HEADER.FIELDS (DATE MESSAGE-ID)]"]
        assert f"Message-ID: {bare.message_id}".encode() in header and b"Date: " in header

    # Export, then import the export into the same store: nothing is stored twice.
    settings = api.gateway.settings
    archive = tmp_path / "alice.mbox"
    exported = await agentmail(
        "export", str(archive), "--user", "alice", db=settings.database_url,
        data_dir=settings.data_dir,
    )  # fmt: skip
    assert exported.exit_code == 0, exported.output
    again = await agentmail(
        "import", str(archive), db=settings.database_url, data_dir=settings.data_dir
    )
    assert summary(again.output) == {
        "read": 2,
        "imported": 0,
        "skipped: already stored (same Message-ID)": 2,
    }, again.output
    assert len(await store.read(lambda s: s.scalars(select(Mail)).all())) == 2
