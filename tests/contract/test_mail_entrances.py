"""The store operations of the ways mail comes in, run the same way on SQLite and
PostgreSQL, in process: REST under an `Idempotency-Key`, an SMTP submission (its
files, its kept bytes, a resend, a reply that decides), uploads carried by a send
and a forward, and an archive imported.

Each calls core as its transport does (api/routes/mail.py, smtp_in/handler.py,
api/routes/attachments.py, `agentmail import`); blobs go to a directory of the
scenario's own (they are files, not rows).
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from core.approvals.permissions import PermissionRequest, permission_writer
from core.approvals.reply_decision import with_reply_decision
from core.archive.importing import import_messages
from core.archive.sources import MboxFile
from core.errors import IdempotencyKeyReused
from core.mail.attachment_files import FileContent, store_files
from core.mail.attachments import collect_unsent, register_upload
from core.mail.delivery_check import replied_mail
from core.mail.forward import ForwardRequest, forward_mail
from core.mail.idempotency import idempotency_key, prune_idempotency_keys, write_once
from core.mail.recipients import plan_mails
from core.mail.resubmission import send_once, submission_key
from core.mail.send import Permission, SendRequest, mail_writer
from core.principal import Principal
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import IdempotencyRecord, Mail, utcnow
from core.store.raw_messages import Original
from tests.contract.scenario import ANA, BUILDER, D, Scenario, assert_same_rows, send
from tests.support.mail_archive import BROKEN, generate, message, write_mbox
from tests.support.two_stores import Stores

LIMIT = 1 << 20  # bytes an attachment may have


@asynccontextmanager
async def blob_store() -> AsyncIterator[BlobStore]:
    with tempfile.TemporaryDirectory() as directory:
        yield FileBlobs(Path(directory))


async def rest_with_idempotency_keys(store: Store) -> None:
    """A send and a permission request under keys: the same request again answers the
    first result, a different one under the key is refused; an expired key is pruned."""
    request = SendRequest(to="builder@ws", subject="once", body="only once")
    for _ in range(2):
        key = idempotency_key("mail/send", "k-1", request)
        await write_once(store, ANA, key, mail_writer(D, ANA, request))
    other = SendRequest(to="builder@ws", subject="other")
    with pytest.raises(IdempotencyKeyReused):
        key = idempotency_key("mail/send", "k-1", other)
        await write_once(store, ANA, key, mail_writer(D, ANA, other))
    await write_once(store, ANA, None, mail_writer(D, ANA, other))
    asked = PermissionRequest(to="ana@", question="may I?", options=["yes", "no"])
    key = idempotency_key("permission/request", "k-2", asked)
    await write_once(store, BUILDER, key, permission_writer(D, BUILDER, asked))
    yesterday = utcnow() - timedelta(hours=25)
    aged = update(IdempotencyRecord).where(IdempotencyRecord.key == "k-1")
    await store.write(lambda session: session.execute(aged.values(created_at=yesterday)))
    assert await prune_idempotency_keys(store) == 1


@dataclass(frozen=True, slots=True)
class Submission:
    """What an SMTP client submits (`RCPT TO`, headers, body, files)."""

    rcpt_tos: list[str]
    subject: str
    body: str
    message_id: str
    replies_to: list[str] = field(default_factory=list)
    files: list[FileContent] = field(default_factory=list)


async def _submit(
    store: Store, blobs: BlobStore, sender: Principal, sent: Submission
) -> tuple[str, bool]:
    """A submission as smtp_in/handler.py stores it: the plan, the files first, then
    the mails and the decision a reply makes in one transaction, under its resend key."""
    raw = f"Message-ID: {sent.message_id}\r\nSubject: {sent.subject}\r\n\r\n{sent.body}\r\n"
    original = Original.of(raw.encode())
    key = submission_key(sent.message_id, f"{sender.name}@{D}", sent.rcpt_tos, original.sha256)
    reply_to = await replied_mail(store, sender, sent.replies_to)
    plan = await plan_mails(store, D, sent.rcpt_tos, to_header=sent.rcpt_tos, reply_to=reply_to)
    carried = await store_files(
        store, blobs, sender.name, sent.files, copies=len(plan.mails), limit=LIMIT
    )
    writes = [
        mail_writer(
            D,
            sender,
            SendRequest(
                to=mail.to,
                cc=mail.cc,
                subject=sent.subject,
                body=sent.body,
                reply_to=reply_to,
                attachment_ids=ids,
            ),
            message_id=sent.message_id,
            raw=original,
        )
        for mail, ids in zip(plan.mails, carried, strict=True)
    ]
    writes = await with_reply_decision(writes, D, sender, reply_to, sent.body)
    return await send_once(store, sender.name, key, writes, lambda done: f"250 {len(done)}")


async def smtp_submission(store: Store) -> None:
    """A message with files to two conversations (one kept copy of its bytes), sent
    again (answered, nothing stored but the resend's files); a reply deciding a
    request by its option's number, and one after it was decided (a notice)."""
    files = [FileContent("plan.txt", "text/plain", b"the plan"), FileContent("a", "x/y", b"")]
    to_two = Submission([f"builder+ws@{D}", f"bo@{D}"], "by mail", "hi", "<m1@c>", files=files)
    permission = Permission(["ship", "hold"])
    asked = await send(
        store, BUILDER, "ana@", "ship it?", mail_type="permission_request", permission=permission
    )
    request = [await _message_id(store, asked)]
    decides = Submission(["builder@ws"], "Re: ship it?", "2\nnot before Monday", "<m2@c>", request)
    too_late = Submission(["builder@ws"], "Re: ship it?", "1", "<m3@c>", request)
    async with blob_store() as blobs:
        assert await _submit(store, blobs, ANA, to_two) == ("250 2", False)
        assert await _submit(store, blobs, ANA, to_two) == ("250 2", True)
        await _submit(store, blobs, ANA, decides)
        await _submit(store, blobs, ANA, too_late)
    decided = select(Mail.decision).where(Mail.id == asked)
    assert await store.read(lambda session: session.scalar(decided)) == "hold"


async def _message_id(store: Store, mail_id: str) -> str:
    query = select(Mail.message_id).where(Mail.id == mail_id)
    found: str | None = await store.read(lambda session: session.scalar(query))
    assert found is not None
    return found


async def uploads(store: Store) -> None:
    """Uploads carried by a send, copied by a forward; one never sent is collected."""
    async with blob_store() as blobs:
        ids = []
        for name, data in (("notes.txt", b"notes"), ("same.bin", b"notes"), ("left.bin", b"x")):
            async with blobs.writer(LIMIT) as writer:
                await writer.write(data)
                view = await register_upload(store, writer, ANA, name, "text/plain; charset=utf-8")
            ids.append(view.attachment_id)
        sent = await send(store, ANA, "builder@ws", "with files", attachment_ids=ids[:2])
        await forward_mail(store, D, ANA, sent, ForwardRequest(to="bo@", body="fyi"))
        soon = utcnow() + timedelta(seconds=1)  # every unsent upload is old enough
        assert await collect_unsent(store, blobs, soon) == 1


async def archive_import(store: Store) -> None:
    """An mbox imported: threads across conversations, external people, names of the
    domain that are not registered, attachments, a message without Message-ID, a broken
    one; a dry run first (nothing stays), then the import, then again (nothing new)."""
    day = datetime(2024, 6, 1, 9, tzinfo=UTC)
    archive = generate(40, thread_size=6).messages
    to_ana = message("<x1@e>", "bob@example.com", [f"ana@{D}"], "Hi", "hi", day, cc=[f"bo@{D}"])
    back = message(
        "<x2@e>", f"ana@{D}", ["bob@example.com"], "Re: Hi", "yes", day, parents=["<x1@e>"]
    )
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "archive.mbox"
        write_mbox(path, [*archive, to_ana, back, BROKEN[0]])
        async with blob_store() as blobs:
            for dry_run in (True, False, False):
                source = MboxFile(path)
                try:
                    await import_messages(
                        store,
                        blobs,
                        D,
                        source,
                        max_attachment_bytes=LIMIT,
                        dry_run=dry_run,
                        batch_size=16,
                    )
                finally:
                    await source.close()


SCENARIOS: list[Scenario] = [rest_with_idempotency_keys, smtp_submission, uploads, archive_import]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_both_backends_leave_the_same_rows(stores: Stores, scenario: Scenario) -> None:
    await assert_same_rows(stores, scenario)
