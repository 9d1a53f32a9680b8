"""An mbox of 10,000 generated messages (threads, attachments,
broken messages, repeats) imported twice through the CLI. The second import adds
nothing, the threads are rebuilt, and the summary counts are exact."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from sqlalchemy import func, select

from core.store.models import Attachment, Conversation, Mail
from tests.support.cli import agentmail, created, open_store, summary
from tests.support.mail_archive import BROKEN_REASONS, generate, write_mbox

TOTAL = 10_000


async def test_ten_thousand_messages_import_once(database_url: str, tmp_path: Path) -> None:
    archive = generate(TOTAL, seed=11)
    path = tmp_path / "archive.mbox"
    await asyncio.to_thread(write_mbox, path, archive.messages)
    data = tmp_path / "data"
    await created(database_url, data)
    broken_each = archive.broken // len(BROKEN_REASONS)
    failures = {f"failed: {why}": broken_each for why in BROKEN_REASONS.values()}

    started = time.perf_counter()
    first = await agentmail("import", str(path), db=database_url, data_dir=data)
    first_seconds = time.perf_counter() - started
    assert first.exit_code == 0, first.output
    assert summary(first.output) == {
        "read": TOTAL,
        "imported": archive.importable,
        "skipped: repeated in this import (same Message-ID)": archive.repeated,
        **failures,
    }, first.output

    started = time.perf_counter()
    second = await agentmail("import", str(path), db=database_url, data_dir=data)
    second_seconds = time.perf_counter() - started
    assert summary(second.output) == {
        "read": TOTAL,
        "imported": 0,
        "skipped: already stored (same Message-ID)": archive.importable + archive.repeated,
        **failures,
    }, second.output
    print(
        f"\n10,000-message mbox: first import {first_seconds:.1f} s, second {second_seconds:.1f} s"
    )

    store = open_store(database_url)
    try:

        def threads(session):  # type: ignore[no-untyped-def]
            rows = list(
                session.execute(select(Mail.id, Mail.message_id, Mail.parent_id, Mail.session_id))
            )
            by_id = {r.id: r for r in rows}
            return {
                r.message_id: (by_id[r.parent_id].message_id if r.parent_id else None, r.session_id)
                for r in rows
            }

        stored = await store.read(threads)
        counts = await store.read(
            lambda s: (
                s.scalar(select(func.count()).select_from(Conversation)),
                s.scalar(select(func.count()).select_from(Attachment)),
            )
        )
    finally:
        await store.close()
    assert len(stored) == archive.importable
    for message_id, parent in archive.parent_of.items():
        assert stored[message_id][0] == parent, message_id
        if parent is not None:
            assert stored[message_id][1] == stored[parent][1], message_id
    conversations = {archive.thread_of[m]: stored[m][1] for m in archive.thread_of}
    assert len(set(conversations.values())) == len(conversations)
    roots = sum(1 for parent in archive.parent_of.values() if parent is None)
    assert counts == (roots + archive.without_id, archive.attachment_count)
