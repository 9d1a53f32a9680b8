"""Mail sent through one replica is read through the others, bytes equal, with nothing
shared between them but PostgreSQL and the object store (tests/support/cluster_world.py)."""

from __future__ import annotations

import asyncio
import hashlib
import os

import pytest

from tests.support.cluster_clients import (
    attachments_of,
    download,
    fetch_all,
    imap_session,
    inbox,
    mail_with_attachment,
    send_rest,
    smtp_submit,
    upload,
)
from tests.support.cluster_world import ClusterWorld, api
from tests.support.gateway import PASSWORD
from tests.support.http import ok
from tests.support.imap import exists_reaches, idle_client
from tests.support.sse import open_stream

pytestmark = [pytest.mark.cluster, pytest.mark.postgres]


async def test_mail_sent_through_a_is_read_byte_equal_through_b_and_c(
    cluster_world: ClusterWorld,
) -> None:
    """REST and SMTP into replica A; SSE on B and IMAP IDLE on C see both mails; B's REST
    downloads and C's IMAP bodies carry the very bytes sent."""
    a, b, c = cluster_world.replicas
    on_a, on_b = api(a), api(b)
    try:
        await on_a.human("writer")
        await on_a.human("reader")
        writer = await on_a.login("writer", PASSWORD)
        reader = await on_b.login("reader", PASSWORD)
        chart, report = os.urandom(200_000), b"%PDF-1.7\n" + os.urandom(300_000)
        async with open_stream(reader) as stream:
            idle = await idle_client(c, "reader")
            waiting = await idle.idle_start(timeout=60)
            uploaded = ok(await upload(writer, "chart.png", chart))
            ok(await send_rest(writer, "reader", "by rest", [uploaded["attachment_id"]]))
            mail = mail_with_attachment("writer", "reader", "by smtp", report, "report.pdf")
            assert (await smtp_submit(a, "writer", mail)).startswith("2")
            seen = [(await stream.next_of("new_mail", timeout=30)).json for _ in range(2)]
            await exists_reaches(idle, 2)
            idle.idle_done()
            await asyncio.wait_for(waiting, 30)
            await idle.logout()
        assert sorted(event["subject"] for event in seen) == ["by rest", "by smtp"]

        sent = {"chart.png": chart, "report.pdf": report}
        for listed in await inbox(reader):
            [attachment] = listed["attachments"]
            assert (
                await download(reader, attachment["attachment_id"]) == sent[attachment["filename"]]
            )
        session = await imap_session(c, "reader")
        try:
            read = [attachments_of(m) for m in await fetch_all(session)]
        finally:
            await session("logout")
        assert sorted(read, key=lambda found: sorted(found)) == [
            {"chart.png": chart},
            {"report.pdf": report},
        ]
        stored = await asyncio.to_thread(cluster_world.stored_blobs)
        assert {hashlib.sha256(chart).hexdigest(), hashlib.sha256(report).hexdigest()} <= stored
        for replica in cluster_world.replicas:  # nothing of the mail on any replica's disk
            assert not (cluster_world.root / f"replica-{replica.name}" / "attachments").exists()
    finally:
        await on_a.close()
        await on_b.close()
