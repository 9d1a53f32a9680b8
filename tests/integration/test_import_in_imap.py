"""Imported mail is filed into the humans' IMAP folders like any mail (core/mailboxes/uids.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from core.store.models import Mail
from core.store.raw_messages import originals_of
from tests.support.cli import agentmail, summary
from tests.support.gateway import Api
from tests.support.imap import fetched, imap_login
from tests.support.mail_archive import DOMAIN, message, write_mbox


async def test_imported_mail_is_in_inbox_sent_and_its_conversation_folder(
    api: Api, tmp_path: Path
) -> None:
    gateway = api.gateway
    await api.human("alice")
    base = datetime(2024, 5, 1, 8, tzinfo=UTC)
    root = "<root@mail.example>"
    thread = [
        message(root, "bob@example.com", [f"alice@{DOMAIN}"], "Quarterly", "question", base),
        message(
            "<reply@mail.example>", f"alice@{DOMAIN}", ["bob@example.com"], "Re: Quarterly",
            "answer", base + timedelta(hours=1), parents=[root],
        ),
    ]  # fmt: skip
    path = tmp_path / "t.mbox"
    write_mbox(path, thread)
    result = await agentmail(
        "import", str(path), db=gateway.settings.database_url, data_dir=gateway.settings.data_dir
    )
    assert summary(result.output)["imported"] == 2, result.output
    assert gateway.store is not None
    stored = await gateway.store.read(
        lambda s: {
            m.message_id: originals_of(s, [m.seq]).get(m.seq) for m in s.scalars(select(Mail))
        }
    )

    async with imap_login(gateway, "alice") as imap:
        await imap.ok("select", "INBOX")
        [uid] = await imap.search_uids("ALL")
        inbox = fetched(await imap.uid("FETCH", str(uid), "(FLAGS BODY.PEEK[])"))
        [entry] = inbox.values()
        assert entry["BODY[]"] == stored[root]  # the bytes as imported
        assert "\\Seen" in entry["FLAGS"]  # imported mail starts read
        await imap.ok("select", "Sent")
        assert len(await imap.search_uids("ALL")) == 1
        await imap.ok("select", "Sessions/quarterly")
        assert await imap.search_uids("ALL") == [1, 2]
