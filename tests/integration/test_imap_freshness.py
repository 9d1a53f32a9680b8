"""What an IMAP session does not read again (imap_view/freshness.py): nothing, for the
commands of a session nothing was committed for; and what it still sees: every change,
at once when the commit woke it, within MAX_AGE when a writer outside the process
(another store on the same database, as the CLI) made it."""

from __future__ import annotations

import asyncio
import re

from core.mail.placing import set_delivery_state
from core.principal import Principal
from core.store.engine import Store
from imap_view.freshness import MAX_AGE
from tests.integration.test_tree_statements import quiet_api, statements
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap

__all__ = ["quiet_api"]  # the fixture, imported for the statement-count tests

IDLE_COMMANDS = [
    b"NOOP",
    b"STATUS INBOX (MESSAGES UNSEEN UIDNEXT)",
    b'LIST "" "*"',
    b"UID SEARCH UNSEEN",
    b"UID FETCH 1:* (FLAGS)",
    b"CHECK",
]


async def _mails(api: Api, count: int) -> list[str]:
    await api.human("jianf")
    builder = await api.agent("builder")
    sent = []
    for n in range(count):
        body = {"to": "jianf@", "subject": f"mail {n}", "body": f"number {n}"}
        sent.append(ok(await builder.post("/api/v1/mail/send", json=body))["mail_id"])
    return sent


def _seen_fetch(lines: list[bytes]) -> bool:
    return any(re.match(rb"\* \d+ FETCH \(FLAGS \([^)]*\\Seen", line) for line in lines)


async def test_commands_of_a_session_nothing_woke_read_nothing(quiet_api: Api) -> None:
    api = quiet_api
    mails = await _mails(api, 3)
    store = api.gateway.store
    assert store is not None
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        await raw.command(b"s SELECT INBOX")
        await raw.command(b"w STATUS INBOX (MESSAGES)")  # the folder list, read once
        # Pipelined, so all of them run well within MAX_AGE of the reads above.
        lines = b"".join(b"i%d %s\r\n" % (n, line) for n, line in enumerate(IDLE_COMMANDS))
        with statements(store) as seen:
            await raw.send(lines)
            replies = [await raw.tagged(b"i%d" % n) for n in range(len(IDLE_COMMANDS))]
        for number, reply in enumerate(replies):
            assert reply[-1].startswith(b"i%d OK" % number), reply
        assert seen == [], seen
        jianf = await api.login("jianf", PASSWORD)
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]}/read"))  # commits, wakes jianf
        with statements(store) as seen:
            woken = await raw.command(b"n NOOP")
        assert seen, "a woken session reads what changed"
        assert _seen_fetch(woken), woken
    finally:
        await raw.close()


async def test_a_writer_outside_the_process_is_seen_within_max_age(api: Api) -> None:
    """Another store on the same database has a bus of its own: the gateway's sessions
    are not woken by its commits (on PostgreSQL its NOTIFY wakes them)."""
    mails = await _mails(api, 2)
    assert api.gateway.store is not None
    outside = Store(api.gateway.store.url)
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        await raw.command(b"s SELECT INBOX")
        jianf = Principal(kind="human", name="jianf")
        await set_delivery_state(outside, jianf, mails[0], read=True)
        # Seen within MAX_AGE on an idle machine; never seen is what this catches (a
        # TimeoutError after a margin no load reaches).
        async with asyncio.timeout(MAX_AGE + 30.0):
            while not _seen_fetch(await raw.command(b"n NOOP")):
                await asyncio.sleep(0.2)
    finally:
        await raw.close()
        await outside.close()


async def test_one_message_per_command_reads_the_keys_once(quiet_api: Api) -> None:
    """mbsync's pull: `UID FETCH n (BODY.PEEK[])` per message. The first command's read
    takes the following messages' content keys along; the contents are cached already."""
    api = quiet_api
    mails = await _mails(api, 12)
    store = api.gateway.store
    assert store is not None
    warm = await RawImap.open(api.gateway.imap_port)
    pull = await RawImap.open(api.gateway.imap_port)
    try:
        await warm.login("jianf")
        await warm.command(b"s EXAMINE INBOX")
        await warm.command(b"f FETCH 1:* (BODY.PEEK[])")  # rendered and cached for everyone
        # A commit for jianf: the renderings' keys the warm session read no longer hold.
        jianf = await api.login("jianf", PASSWORD)
        ok(await jianf.post(f"/api/v1/me/mail/{mails[0]}/read"))
        await pull.login("jianf")
        await pull.command(b"s SELECT INBOX")
        with statements(store) as first:
            await pull.command(b"u1 UID FETCH 1 (BODY.PEEK[])")
        with statements(store) as rest:
            for uid in range(2, 13):
                reply = await pull.command(b"u%d UID FETCH %d (BODY.PEEK[])" % (uid, uid))
                assert b"number %d" % (uid - 1) in b"".join(reply), reply
        assert len(first) == 1, first  # the keys of 1 and the 11 after it
        assert rest == [], rest
    finally:
        await warm.close()
        await pull.close()


async def test_the_sessions_of_one_human_read_a_change_once(quiet_api: Api) -> None:
    """A commit wakes every session of the human; the first to look reads what changed,
    the others take its read (imap_view/shared_reads.py) and show the same change."""
    api = quiet_api
    mails = await _mails(api, 3)
    store = api.gateway.store
    assert store is not None
    first, second = (
        await RawImap.open(api.gateway.imap_port),
        await RawImap.open(api.gateway.imap_port),
    )
    try:
        for raw in (first, second):
            await raw.login("jianf")
            await raw.command(b"s SELECT INBOX")
        jianf = await api.login("jianf", PASSWORD)
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]}/read"))  # commits, wakes both
        with statements(store) as read:
            one = await first.command(b"n NOOP")
        with statements(store) as taken:
            other = await second.command(b"n NOOP")
        assert read, "the first woken session reads what changed"
        assert taken == [], taken
        assert _seen_fetch(one) and _seen_fetch(other), (one, other)
    finally:
        await first.close()
        await second.close()
