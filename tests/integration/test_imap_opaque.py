"""Messages over the MIME bounds are stored (250) and served over IMAP without a parse.

A 2.1 MB message of 60,000 tiny parts and a 1.4 MB one whose Subject is folded over
200,000 lines, delivered by SMTP, are marked opaque when stored
(core/store/raw_messages.py). A full `UID FETCH 1:* (BODYSTRUCTURE)`, ENVELOPE,
`BODY.PEEK[]` and `BODY.PEEK[1]` then parse nothing (the parse counter in /metrics
stays put), the process's RSS grows by less than 200 MB, the bytes come back as
they went in, and the structure is the one part docs/imap.md describes. Times go to
bench/imap_opaque.py, never here.
"""

from __future__ import annotations

import asyncio
import smtplib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.store.models import RawMessage
from tests.support.gateway import PASSWORD, Api
from tests.support.imap import fetched, imap_login
from tests.support.metrics import Samples, moved, scrape
from tests.support.raw_imap import resident_bytes

D = "agentmail.localhost"
PARSES = "agentmail_imap_message_parses_total"
OPAQUE_READS = "agentmail_imap_opaque_reads_total"
# The loop watchdog's counter (gateway/loop_watchdog.py): every read below must leave it
# where it was.
STALLS = "agentmail_loop_stalls_total"


def many_parts(sender: str, parts: int = 60_000) -> bytes:
    """~2.1 MB: `parts` one-line text parts in one multipart/mixed."""
    head = (
        f"From: {sender}\r\nTo: {sender}\r\nSubject: many parts\r\n"
        f"Message-ID: <parts@x.example>\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
    ).encode()
    return head + b"--b\r\n\r\nx\r\n" * parts + b"--b--\r\n"


def folded_subject(sender: str, lines: int = 200_000) -> bytes:
    """~1.4 MB: a Subject folded over `lines` lines."""
    head = (
        f"From: {sender}\r\nTo: {sender}\r\nMessage-ID: <folded@x.example>\r\n"
        "Date: Tue, 01 Dec 2026 10:01:00 +0000\r\n"
    ).encode()
    return head + b"Subject: folded\r\n" + b" word\r\n" * lines + b"\r\nthe body\r\n"


def _deliver(port: int, user: str, messages: list[bytes]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=120) as client:
        client.login(user, PASSWORD)
        for raw in messages:
            client.sendmail(user, [user], raw)


def _unmark(session: Session, raw: bytes) -> None:
    session.execute(update(RawMessage).where(RawMessage.size == len(raw)).values(opaque=None))


@contextmanager
def _peakresident_bytes() -> Iterator[list[int]]:
    """The highest RSS of this process (the gateway runs in it) while the block runs."""
    peak = [resident_bytes()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], resident_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()
        peak[0] = max(peak[0], resident_bytes())


async def test_messages_over_the_bounds_are_served_without_a_parse(api: Api) -> None:
    await api.human("alice")
    user = f"alice@{D}"
    sent = [many_parts(user), folded_subject(user)]
    await asyncio.to_thread(_deliver, api.gateway.smtp_port, user, sent)
    store = api.gateway.store
    assert store is not None
    marks = await store.read(lambda s: set(s.scalars(select(RawMessage.opaque))))
    assert marks == {True}  # decided once, when stored
    # A row stored before the mark existed (NULL): the reader decides, bounded.
    await store.write(lambda s: _unmark(s, sent[1]))
    metrics = api.client()
    before: Samples = await scrape(metrics)
    async with imap_login(api.gateway, "alice") as imap:
        await imap.ok("select", "INBOX")
        rss_before = resident_bytes()
        with _peakresident_bytes() as peak:
            structures = fetched(await imap.uid("FETCH", "1:*", "(BODYSTRUCTURE)"))
            envelopes = fetched(await imap.uid("FETCH", "1:*", "(ENVELOPE)"))
            whole = fetched(await imap.uid("FETCH", "1:*", "(BODY.PEEK[])"))
            first = fetched(await imap.uid("FETCH", "1:*", "(BODY.PEEK[1])"))
    after = await scrape(metrics)
    assert moved(before, after, PARSES) == 0
    assert moved(before, after, OPAQUE_READS) >= 2
    stalls = [key for key in after if key[0] == STALLS]
    assert stalls, "the loop watchdog's counter is in /metrics"
    assert sum(after[key] - before.get(key, 0.0) for key in stalls) == 0
    assert peak[0] - rss_before < 200 * 1024 * 1024, (rss_before, peak[0])

    for n, raw in enumerate(sent, 1):
        assert whole[n]["BODY[]"] == raw
        body = raw[raw.index(b"\r\n\r\n") + 4 :]
        assert first[n]["BODY[1]"] == body
        structure = structures[n]["raw"]
        wanted = b'("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" %d %d' % (
            len(body),
            body.count(b"\n"),
        )
        assert wanted in structure, structure[:300]
    # ENVELOPE: the fields read within the bounded scan; a Subject folded over more
    # lines than it reads is NIL.
    assert b'"many parts"' in envelopes[1]["raw"]
    assert b'"Tue, 01 Dec 2026 10:01:00 +0000" NIL' in envelopes[2]["raw"]
    assert b"<folded@x.example>" in envelopes[2]["raw"]
