"""What the cluster scenarios check after a load: each acknowledged mail stored exactly
once with its attachment (rows in PostgreSQL, bytes in the object store), and event
streams that resumed on another replica without a gap."""

from __future__ import annotations

import asyncio

import httpx

from tests.support.cluster_load import Ledger
from tests.support.cluster_sse import Follower
from tests.support.cluster_world import ClusterWorld

_STORED = """
SELECT m.subject, count(DISTINCT m.seq) AS copies,
       array_remove(array_agg(a.sha256 ORDER BY a.sha256), NULL) AS files
FROM mails m LEFT JOIN attachments a ON a.mail_seq = m.seq
WHERE m.subject = ANY($1::text[])
GROUP BY m.subject
"""


async def stored_exactly_once(world: ClusterWorld, ledger: Ledger) -> int:
    """Every acknowledged mail once with its file, an unacknowledged one at most once,
    every file's bytes in the object store; the number of mails stored."""
    rows = await world.query(_STORED, sorted(ledger.attempted))
    found = {row["subject"]: (row["copies"], list(row["files"])) for row in rows}
    wrong = {
        subject: found.get(subject)
        for subject, digest in ledger.acknowledged.items()
        if found.get(subject) != (1, [digest])
    }
    assert not wrong, f"acknowledged but not stored exactly once with its file: {wrong}"
    twice = {s: n for s, (n, _) in found.items() if n > 1}
    assert not twice, f"stored more than once: {twice}"
    blobs = await asyncio.to_thread(world.stored_blobs)
    files = {digest for _, listed in found.values() for digest in listed}
    assert files <= blobs, f"rows name files the object store lacks: {files - blobs}"
    return sum(copies for copies, _ in found.values())


async def resumed_without_gap(
    followers: list[Follower], client: httpx.AsyncClient, new_mails: int
) -> None:
    """Each follower got `new_mails` new_mail events, ids ascending and none twice, and
    exactly the events a fresh stream from its first position replays (none missed
    across its reconnects)."""
    for follower in followers:
        await follower.wait_for("new_mail", new_mails)
        ids = [event_id for event_id, _, _ in follower.events]
        assert ids == sorted(set(ids)), "an event twice or out of order"
        last_mail = follower.of("new_mail")[-1][0]
        replay = Follower(client, last_id=follower.first_id)
        replay.start()
        try:
            await replay.wait_for("new_mail", new_mails)
        finally:
            await replay.close()
        expected = [event for event in replay.events if event[0] <= last_mail]
        assert [event for event in follower.events if event[0] <= last_mail] == expected
