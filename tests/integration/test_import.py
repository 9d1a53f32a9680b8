"""`agentmail import` from mbox, Maildir and `.eml` files: threads, idempotence,
malformed messages, dry run, external participants (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import mailbox
import os
import sys
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

from sqlalchemy import func, select

from core.archive.importing import SKIP_REPEATED, import_messages
from core.archive.parse import read_message
from core.archive.sources import MboxFile
from core.archive.write import ALREADY, STORED, Pending, write_batch
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.migrate import migrate
from core.store.models import Attachment, Conversation, Delivery, Mail
from tests.support.cli import agentmail, created, open_store, summary
from tests.support.gateway import Api
from tests.support.http import HUMAN_MAIL, ok
from tests.support.mail_archive import BROKEN, DOMAIN, generate, message, write_mbox


async def _mails(store: Store) -> dict[str, tuple[str | None, str]]:
    """Message-ID → (parent's Message-ID, conversation id), for every stored mail."""

    def run(session):  # type: ignore[no-untyped-def]
        parents = {m.id: m.message_id for m in session.scalars(select(Mail))}
        return {
            m.message_id: (parents.get(m.parent_id), m.session_id)
            for m in session.scalars(select(Mail))
        }

    result: dict[str, tuple[str | None, str]] = await store.read(run)
    return result


async def _count(store: Store, model: type) -> int:
    return int(await store.read(lambda s: s.scalar(select(func.count()).select_from(model))))


async def test_mbox_import_rebuilds_threads_and_a_second_run_adds_nothing(
    database_url: str, tmp_path: Path
) -> None:
    archive = generate(400, seed=3)
    path = tmp_path / "archive.mbox"
    write_mbox(path, archive.messages)
    data = tmp_path / "data"
    await created(database_url, data)

    first = await agentmail("import", str(path), db=database_url, data_dir=data)
    assert first.exit_code == 0, first.output
    counts = summary(first.output)
    assert counts["read"] == 400
    assert counts["imported"] == archive.importable
    assert counts["skipped: repeated in this import (same Message-ID)"] == archive.repeated
    assert sum(v for k, v in counts.items() if k.startswith("failed")) == archive.broken
    assert counts["failed: no From address"] == 1  # message 100: BROKEN[0]
    assert "archive.mbox message 100: no From address" in first.output
    # The progress bars (on stderr): both passes, with counts and a rate.
    assert "scanning" in first.stderr and "importing" in first.stderr
    assert "400/400" in first.stderr and "msg/s" in first.stderr

    store = open_store(database_url)
    try:
        stored = await _mails(store)
        assert len(stored) == archive.importable
        # Every parent link is the In-Reply-To, and a reply shares its parent's conversation.
        for message_id, parent in archive.parent_of.items():
            assert stored[message_id][0] == parent, message_id
            if parent is not None:
                assert stored[message_id][1] == stored[parent][1]
        threads = {archive.thread_of[m]: stored[m][1] for m in archive.thread_of}
        assert len(set(threads.values())) == len(threads)  # one conversation per thread
        attached = await _count(store, Attachment)
        assert attached == archive.attachment_count

        second = await agentmail("import", str(path), db=database_url, data_dir=data)
        assert second.exit_code == 0, second.output
        again = summary(second.output)
        assert again["imported"] == 0
        assert again["skipped: already stored (same Message-ID)"] == (
            archive.importable + archive.repeated
        )
        assert sum(v for k, v in again.items() if k.startswith("failed")) == archive.broken
        assert len(await _mails(store)) == archive.importable
        assert await _count(store, Attachment) == attached
    finally:
        await store.close()


def _thread(n: int) -> list[bytes]:
    """A root, a reply and a reply to the reply, with an external participant."""
    base = datetime(2024, 5, n, 8, tzinfo=UTC)
    hour = timedelta(hours=1)
    root = f"<root{n}@mail.example>"
    reply = f"<reply{n}@mail.example>"
    return [
        message(root, "bob@example.com", [f"alice@{DOMAIN}"], f"Q{n}", "question", base),
        message(
            reply, f"alice@{DOMAIN}", ["bob@example.com"], f"Re: Q{n}", "answer", base + hour,
            parents=[root],
        ),
        message(
            f"<again{n}@mail.example>", "bob@example.com", [f"alice@{DOMAIN}"], f"Re: Q{n}",
            "thanks", base + 2 * hour, parents=[root, reply],
            attachments=[("notes.txt", b"exact bytes \x00\x01")],
        ),
    ]  # fmt: skip


async def test_maildir_and_eml_sources(database_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "Maildir"
    box = mailbox.Maildir(folder, create=True)
    for raw in reversed(_thread(1)):  # replies first: the import still threads them
        box.add(raw)
    emls = tmp_path / "emls"
    (emls / "sub").mkdir(parents=True)
    for i, raw in enumerate(_thread(2)):
        (emls / ("sub" if i else "") / f"{i}.eml").write_bytes(raw)
    (emls / "broken.eml").write_bytes(BROKEN[1])
    data = tmp_path / "data"
    await created(database_url, data)

    from_maildir = await agentmail("import", str(folder), db=database_url, data_dir=data)
    assert summary(from_maildir.output)["imported"] == 3, from_maildir.output
    from_emls = await agentmail("import", str(emls), db=database_url, data_dir=data)
    assert summary(from_emls.output) == {
        "read": 4,
        "imported": 3,
        "failed: no To or Cc address": 1,
    }, from_emls.output
    assert "broken.eml: no To or Cc address" in from_emls.output
    one = await agentmail("import", str(emls / "0.eml"), db=database_url, data_dir=data)
    assert summary(one.output) == {
        "read": 1,
        "imported": 0,
        "skipped: already stored (same Message-ID)": 1,
    }

    store = open_store(database_url)
    try:
        stored = await _mails(store)
        for n in (1, 2):
            root, reply, again = (f"<{k}{n}@mail.example>" for k in ("root", "reply", "again"))
            assert stored[root][0] is None
            assert stored[reply][0] == root and stored[again][0] == reply
            assert stored[root][1] == stored[reply][1] == stored[again][1]
        subjects = await store.read(lambda s: sorted(s.scalars(select(Conversation.alias)).all()))
        assert subjects == ["q1", "q2"]
    finally:
        await store.close()


async def test_dry_run_reports_everything_and_stores_nothing(
    database_url: str, tmp_path: Path
) -> None:
    archive = generate(120, seed=5)
    path = tmp_path / "a.mbox"
    write_mbox(path, archive.messages)
    data = tmp_path / "data"
    await created(database_url, data)
    dry = await agentmail("import", "--dry-run", str(path), db=database_url, data_dir=data)
    assert dry.exit_code == 0, dry.output
    counts = summary(dry.output)
    assert counts["would be imported (dry run)"] == archive.importable
    assert sum(v for k, v in counts.items() if k.startswith("failed")) == archive.broken
    store = open_store(database_url)
    try:
        assert await _count(store, Mail) == 0
        assert await _count(store, Conversation) == 0
    finally:
        await store.close()
    blobs = data / "attachments"
    assert not blobs.exists() or not [p for p in blobs.rglob("*") if p.is_file()]


async def test_external_participants_are_kept_and_shown(api: Api, tmp_path: Path) -> None:
    gateway = api.gateway
    alice = await api.human("alice")
    path = tmp_path / "t.mbox"
    thread = _thread(3)
    write_mbox(path, thread)
    result = await agentmail(
        "import", str(path), db=gateway.settings.database_url, data_dir=gateway.settings.data_dir
    )
    assert summary(result.output)["imported"] == 3, result.output

    inbox = ok(await alice.get(f"{HUMAN_MAIL}/inbox", params={"order": "oldest"}))["mails"]
    assert [m["from"] for m in inbox] == ["mailto:bob@example.com"] * 2
    assert [m["from_email"] for m in inbox] == ["bob@example.com"] * 2
    assert inbox[0]["to"] == "alice@.q3" and inbox[0]["status"] == "read"
    sent = ok(await alice.get(f"{HUMAN_MAIL}/sent"))["mails"]
    assert sent[0]["to"] == "mailto:bob@example.com" and sent[0]["to_email"] == "bob@example.com"
    last = ok(await alice.get(f"{HUMAN_MAIL}/{inbox[1]['mail_id']}"))
    assert last["body"] == "thanks"
    [attachment] = last["attachments"]
    download = await alice.get(f"/api/v1/me/attachments/{attachment['attachment_id']}")
    assert download.content == b"exact bytes \x00\x01"

    # Nobody is called "" or bob: external participants are neither users nor agents.
    assert gateway.store is not None
    recipients = await gateway.store.read(
        lambda s: set(s.scalars(select(Delivery.recipient)).all())
    )
    assert recipients == {"alice"}


async def test_two_imports_at_once_store_each_message_once(
    database_url: str, tmp_path: Path
) -> None:
    archive = generate(300, seed=9)
    path = tmp_path / "same.mbox"
    write_mbox(path, archive.messages)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")},
        "COLUMNS": "200",
    }
    command = [sys.executable, "-m", "gateway", "import", str(path)]
    command += ["--data-dir", str(tmp_path / "data"), "--database-url", database_url]
    await created(database_url, tmp_path / "data")

    async def run() -> str:
        process = await asyncio.create_subprocess_exec(
            *command, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await asyncio.wait_for(process.communicate(), 120)
        assert process.returncode == 0, err.decode()
        return out.decode()

    outputs = await asyncio.gather(run(), run())
    counts = [summary(output) for output in outputs]
    assert sum(c["imported"] for c in counts) == archive.importable, outputs
    store = open_store(database_url)
    try:
        assert await _count(store, Mail) == archive.importable
    finally:
        await store.close()


async def test_a_message_the_database_refuses_fails_alone(
    database_url: str, tmp_path: Path
) -> None:
    """The batch is written again one message per transaction; only the bad one fails.
    (The reader never hands over such a message: a naive time stands in for anything
    a database may refuse.)"""
    raws = _thread(5)
    items = [
        Pending(f"m{i}", raw, f"<m{i}@x>", read_message(raw, 1000)) for i, raw in enumerate(raws)
    ]
    bad = items[1].parsed
    assert bad is not None
    bad.date = datetime(2024, 5, 5, 9)  # no time zone: the column refuses it
    store = open_store(database_url)
    await migrate(store)
    try:
        outcomes = await write_batch(store, FileBlobs(tmp_path / "blobs"), DOMAIN, items, False)
        assert outcomes[0] == outcomes[2] == STORED
        assert outcomes[1].startswith("not stored: StatementError") and "naive" in outcomes[1]
        assert await _count(store, Mail) == 2
        again = await write_batch(store, FileBlobs(tmp_path / "blobs"), DOMAIN, items[:1], False)
        assert again == [ALREADY]
    finally:
        await store.close()


async def test_nul_and_undecodable_bytes_are_stored_as_replacement_characters(
    database_url: str, tmp_path: Path
) -> None:
    raw = b"From: a@b.example\nTo: c@d.example\nSubject: x\xff\x00y\n"
    raw += b"Message-ID: <n\xffl@x>\n\nbo\x00dy\n"
    path = tmp_path / "one.eml"
    path.write_bytes(raw)
    await created(database_url, tmp_path / "data")
    result = await agentmail("import", str(path), db=database_url, data_dir=tmp_path / "data")
    assert summary(result.output) == {"read": 1, "imported": 1}, result.output
    store = open_store(database_url)
    try:
        row = await store.read(
            lambda s: s.execute(select(Mail.subject, Mail.body, Mail.message_id)).one()
        )
    finally:
        await store.close()
    assert tuple(row) == ("x\ufffd\ufffdy", "bo\ufffddy", "<n\ufffdl@x>")


async def test_a_repeat_in_the_batch_read_ahead_is_settled_after_the_write(
    database_url: str, tmp_path: Path
) -> None:
    """Batch N+1 is read and parsed while batch N is written; a copy of a message N is
    writing is held until N is done, then counted as a repeat (never as stored)."""
    day = datetime(2024, 6, 1, tzinfo=UTC)
    first = message("<a@x>", "bob@example.com", [f"alice@{DOMAIN}"], "A", "a", day)
    malformed = b"From: nobody\nTo: c@d.example\nMessage-ID: <x@x>\nDate: "
    malformed += format_datetime(day + timedelta(hours=1)).encode() + b"\n\nx\n"
    fine = message(
        "<x@x>", "bob@example.com", [f"alice@{DOMAIN}"], "X", "x", day + timedelta(hours=2)
    )
    copy = message(
        "<a@x>", "bob@example.com", [f"alice@{DOMAIN}"], "A", "again", day + timedelta(hours=3)
    )
    path = tmp_path / "batches.mbox"
    write_mbox(path, [copy, fine, malformed, first])  # by date: [first, malformed] [fine, copy]
    store, source = open_store(database_url), MboxFile(path)
    await migrate(store)
    try:
        report = await import_messages(
            store, FileBlobs(tmp_path / "blobs"), DOMAIN, source,
            max_attachment_bytes=1000, batch_size=2,
        )  # fmt: skip
        stored = await _mails(store)
    finally:
        await source.close()
        await store.close()
    assert (report.total, report.imported) == (4, 2)
    assert report.skipped == {SKIP_REPEATED: 1}
    assert [f.why for f in report.failed] == ["From: 'nobody' is not an address"]
    assert set(stored) == {"<a@x>", "<x@x>"}
