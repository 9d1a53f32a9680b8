"""What a message submitted over SMTP becomes: new text, attachments, one transaction."""

from __future__ import annotations

import hashlib
import os
import smtplib
from datetime import timedelta
from pathlib import Path

import aiosmtplib
import pytest
from sqlalchemy import select, update

from core.mail.attachments import MAX_PER_MAIL, collect_unsent
from core.store.file_blobs import FileBlobs
from core.store.models import Attachment, Conversation, Mail, utcnow
from core.store.raw_messages import originals_of
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import AGENT_MAIL, ok
from tests.support.smtp import D, agent_with_key, message, send, session, swaks

BUILDER = f"builder+ModelRouter@{D}"
PDF = b"%PDF-1.7\n" + os.urandom(3000)


async def _mails(api: Api) -> list[Mail]:
    store = api.gateway.store
    assert store is not None
    query = select(Mail).order_by(Mail.seq)
    return list(await store.read(lambda s: s.scalars(query).all()))


async def _attachments(api: Api) -> list[Attachment]:
    store = api.gateway.store
    assert store is not None
    query = select(Attachment).order_by(Attachment.created_at)
    return list(await store.read(lambda s: s.scalars(query).all()))


async def test_a_reply_stores_its_new_text_and_its_attachments(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    reply = message(
        f"jianf@{D}",
        BUILDER,
        "Re: the report",
        "Here it is, with the chart.\n\n"
        f"On Mon, Nov 30, 2026 at 10:00 AM Builder <{BUILDER}> wrote:\n"
        "> Can you send me the report?\n",
    )
    reply.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    reply.add_attachment(b"\x89PNG chart", maintype="image", subtype="png", filename="c/chart.png")
    await send(api, "jianf", PASSWORD, reply)
    [mail] = await _mails(api)
    view = ok(await builder.get(f"{AGENT_MAIL}/{mail.id}"))
    assert view["body"] == "Here it is, with the chart."
    assert [a["filename"] for a in view["attachments"]] == ["report.pdf", "chart.png"]
    assert view["attachments"][0]["sha256"] == hashlib.sha256(PDF).hexdigest()
    download = await builder.get(f"/api/v1/attachments/{view['attachments'][0]['attachment_id']}")
    assert download.status_code == 200 and download.content == PDF
    store = api.gateway.store
    assert store is not None
    raw = (await store.read(lambda s: originals_of(s, [mail.seq]))).get(mail.seq)
    assert raw is not None and b"Can you send me the report?" in raw


async def test_each_conversation_gets_its_mail_and_its_own_attachment_rows(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    critic = await api.agent("critic", [("repo", "/srv/repo")])
    note = message(f"jianf@{D}", f"{BUILDER}, critic+repo@{D}", "to both", "Please both look.")
    note.add_attachment(PDF, maintype="application", subtype="pdf", filename="spec.pdf")
    await send(api, "jianf", PASSWORD, note)
    mails = await _mails(api)
    assert sorted(m.to_name for m in mails) == ["builder", "critic"]
    assert len({m.session_id for m in mails}) == 2
    rows = await _attachments(api)
    assert len(rows) == 2 and len({r.id for r in rows}) == 2
    assert {r.mail_seq for r in rows} == {m.seq for m in mails}
    blobs = FileBlobs(api.gateway.settings.attachments_dir)
    assert await blobs.exists(rows[0].sha256) and rows[0].sha256 == rows[1].sha256
    for mail in mails:
        client = builder if mail.to_name == "builder" else critic
        [ref] = ok(await client.get(f"{AGENT_MAIL}/{mail.id}"))["attachments"]
        assert (await client.get(f"/api/v1/attachments/{ref['attachment_id']}")).content == PDF


async def test_too_many_attachments_is_552_and_stores_nothing(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    crowded = message(f"jianf@{D}", BUILDER, "many", "files")
    for index in range(MAX_PER_MAIL + 1):
        crowded.add_attachment(
            b"x", maintype="application", subtype="octet-stream", filename=f"f{index}.bin"
        )
    with pytest.raises(smtplib.SMTPDataError) as refused:
        await send(api, "jianf", PASSWORD, crowded)
    assert refused.value.smtp_code == 552
    assert str(refused.value).startswith(
        f"(552, b'5.3.4 a mail carries at most {MAX_PER_MAIL} attachments"
    )
    assert await _mails(api) == [] and await _attachments(api) == []


async def test_an_attachment_over_the_limit_is_552(database_url: str, tmp_path: Path) -> None:
    async with running_gateway(database_url, tmp_path / "d", max_attachment_bytes=1000) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            await api.agent("builder")
            big = message(f"jianf@{D}", BUILDER, "big file", "see attached")
            big.add_attachment(PDF, maintype="application", subtype="pdf", filename="big.pdf")
            with pytest.raises(smtplib.SMTPDataError) as refused:
                await send(api, "jianf", PASSWORD, big)
            assert refused.value.smtp_code == 552
            assert b"5.3.4 an attachment is at most 1000 bytes" in refused.value.smtp_error
            assert await _mails(api) == [] and await _attachments(api) == []
            assert not [p for p in (tmp_path / "d" / "attachments").rglob("*") if p.is_file()]
        finally:
            await api.close()


async def test_a_refused_last_mail_stores_none_and_leaves_only_collectable_uploads(
    api: Api,
) -> None:
    await api.human("jianf")
    await api.human("other")
    _, key = await agent_with_key(api, "builder")
    for human in ("jianf", "other"):
        await send(api, "builder", key, message(f"builder@{D}", f"{human}@{D}", f"to {human}"))
    before = await _mails(api)
    client = await session(api, "builder", key)
    try:
        assert (await client.mail(f"builder@{D}"))[0] == 250
        assert (await client.rcpt(f"jianf@{D}"))[0] == 250
        assert (await client.rcpt(f"other@{D}"))[0] == 250
        # Between RCPT and DATA a human's budget runs out in the second conversation.
        store = api.gateway.store
        assert store is not None
        other_session = next(m.session_id for m in before if m.to_name == "other")
        await store.write(
            lambda s: s.execute(
                update(Conversation)
                .where(Conversation.id == other_session)
                .values(budget_limit=Conversation.budget_used)
            )
        )
        both = message(f"builder@{D}", f"jianf@{D}, other@{D}", "both", "done")
        both.add_attachment(PDF, maintype="application", subtype="pdf", filename="r.pdf")
        with pytest.raises(aiosmtplib.SMTPDataError) as refused:
            await client.data(both.as_bytes())
        assert refused.value.code == 550
        assert refused.value.message.startswith("5.7.1") and "budget" in refused.value.message
    finally:
        await client.quit()
    assert [m.id for m in await _mails(api)] == [m.id for m in before]
    rows = await _attachments(api)
    assert len(rows) == 2 and all(r.mail_seq is None for r in rows)
    blobs = FileBlobs(api.gateway.settings.attachments_dir)
    assert await blobs.exists(rows[0].sha256)
    assert await collect_unsent(store, blobs, utcnow() + timedelta(seconds=1)) == 2
    assert not await blobs.exists(rows[0].sha256)


async def test_swaks_submits_a_2_mb_attachment_that_downloads_byte_identical(
    api: Api, tmp_path: Path
) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    content = os.urandom(2 * 1024 * 1024)
    attachment = tmp_path / "dataset.bin"
    attachment.write_bytes(content)
    status, transcript = await swaks(
        "--server",
        f"127.0.0.1:{api.gateway.smtp_port}",
        "--auth",
        "PLAIN",
        "--auth-user",
        "jianf",
        "--auth-password",
        PASSWORD,
        "--from",
        f"jianf@{D}",
        "--to",
        BUILDER,
        "--header",
        "Subject: the data set",
        "--body",
        "The data set you asked for.",
        "--attach",
        f"@{attachment}",
    )
    assert status == 0, transcript
    assert "250 2.0.0 1 mail stored" in transcript
    [mail] = await _mails(api)
    view = ok(await builder.get(f"{AGENT_MAIL}/{mail.id}"))
    assert view["body"] == "The data set you asked for."
    [ref] = view["attachments"]
    assert (ref["filename"], ref["size"]) == ("dataset.bin", len(content))
    download = await builder.get(f"/api/v1/attachments/{ref['attachment_id']}")
    assert download.status_code == 200
    assert hashlib.sha256(download.content).digest() == hashlib.sha256(content).digest()
    assert download.content == content
