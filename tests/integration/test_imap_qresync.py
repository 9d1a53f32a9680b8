"""QRESYNC (RFC 7162 §3.2): a client that
knew INBOX at a mod-sequence reconnects after 50 changes made over REST and by another
IMAP session and learns exactly those: `VANISHED (EARLIER)` for the UIDs that left, a
FETCH for each message that changed or arrived, and its view then equals a fresh
SELECT. Expunge records pruned past the client's mod-sequence still give the same view."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import httpx
from imapclient import IMAPClient

from core.mailboxes.expunged import prune_expunged
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap

_FETCH = re.compile(rb"\* (\d+) FETCH \(FLAGS \(([^)]*)\) UID (\d+) MODSEQ \((\d+)\)\)")

View = dict[int, frozenset[str]]  # UID -> flags


def _uid_set(text: bytes) -> set[int]:
    uids: set[int] = set()
    for part in text.decode().split(","):
        low, _, high = part.partition(":")
        uids.update(range(int(low), int(high or low) + 1))
    return uids


def _fetches(lines: list[bytes]) -> View:
    found = {}
    for line in lines:
        match = _FETCH.match(line)
        if match:
            found[int(match.group(3))] = frozenset(match.group(2).decode().split())
    return found


def _vanished(lines: list[bytes], *, earlier: bool) -> set[int]:
    prefix = b"* VANISHED (EARLIER) " if earlier else b"* VANISHED "
    gone: set[int] = set()
    for line in lines:
        if line.startswith(prefix) and (earlier or not line.startswith(b"* VANISHED (")):
            gone |= _uid_set(line[len(prefix) :].strip())
    return gone


def _code(lines: list[bytes], name: bytes) -> int:
    for line in lines:
        match = re.search(rb"\[" + name + rb" (\d+)\]", line)
        if match:
            return int(match.group(1))
    raise AssertionError((name, lines))


async def _view(raw: RawImap, select: bytes) -> tuple[list[bytes], View]:
    """SELECT (with whatever parameters), then the whole folder as a fresh client sees it."""
    selected = await raw.command(select)
    assert selected[-1].split()[1] == b"OK", selected
    listed = await raw.command(b"v UID FETCH 1:* (FLAGS)")
    view = {}
    for line in listed:
        match = re.match(rb"\* \d+ FETCH \(FLAGS \(([^)]*)\) UID (\d+)", line)
        if match:
            view[int(match.group(2))] = frozenset(match.group(1).decode().split())
    return selected, view


async def _send(agent: httpx.AsyncClient, subject: str) -> str:
    body = {"to": "jianf@", "subject": subject, "body": "hi"}
    return str(ok(await agent.post("/api/v1/mail/send", json=body))["mail_id"])


async def test_qresync_resync_after_50_changes_equals_a_fresh_select(api: Api) -> None:
    jianf = await api.human("jianf")
    # 20 each: a conversation's round-trip budget
    agents = [await api.agent("builder"), await api.agent("tester")]
    ids = [await _send(agents[i // 20], f"m{i}") for i in range(30)]  # UIDs 1..30
    raw = await RawImap.open(api.gateway.imap_port)
    await raw.login("jianf")
    assert (await raw.command(b"e ENABLE QRESYNC"))[0] == b"* ENABLED QRESYNC\r\n"
    selected, known = await _view(raw, b"s SELECT INBOX")
    validity, modseq = _code(selected, b"UIDVALIDITY"), _code(selected, b"HIGHESTMODSEQ")
    await raw.close()  # the client goes offline knowing UIDs 1..30 at `modseq`
    assert set(known) == set(range(1, 31))
    watcher = await RawImap.open(api.gateway.imap_port)  # stays selected, silent, throughout
    await watcher.login("jianf")
    await watcher.command(b"w SELECT INBOX")

    # 50 changes: 10 new (31..40), 10 flagged and 5 moved to Trash by another IMAP
    # session, 10 read, 5 archived and 5 deleted over REST, 5 of the new ones deleted
    # (\Deleted + EXPUNGE) by the other session.
    ids += [await _send(agents[i // 20], f"m{i}") for i in range(30, 40)]
    for mail_id in ids[10:20]:
        ok(await jianf.post(f"/api/v1/me/mail/{mail_id}/read"))
    for mail_id in ids[15:20]:
        ok(await jianf.post(f"/api/v1/me/mail/{mail_id}/archive"))
    for mail_id in ids[20:25]:
        ok(await jianf.post(f"/api/v1/me/mail/{mail_id}/delete"))

    def other_session() -> None:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as other:
            other.login("jianf", PASSWORD)
            other.select_folder("INBOX")
            other.add_flags(list(range(1, 11)), [b"\\Flagged"])
            other.move(list(range(26, 31)), "Trash")
            other.add_flags(list(range(36, 41)), [b"\\Deleted"])
            other.expunge()

    await asyncio.to_thread(other_session)

    fresh = await RawImap.open(api.gateway.imap_port)
    await fresh.login("jianf")
    _, truth = await _view(fresh, b"s EXAMINE INBOX")
    await fresh.close()
    assert set(truth) == set(range(1, 16)) | set(range(31, 36))

    changed = set(range(1, 16))  # flagged (1..10) and read (11..15)
    new = set(range(31, 36))
    for parameters, vanished_expected, fetched_expected in (
        # known UIDs limit both answers (RFC 7162 §3.2.5); UIDNEXT tells what is new
        (b"(QRESYNC (%d %d 1:30))" % (validity, modseq), set(range(16, 31)), changed),
        # without them: every change, and the new UIDs that left before the client saw them
        (
            b"(QRESYNC (%d %d))" % (validity, modseq),
            set(range(16, 31)) | set(range(36, 41)),
            changed | new,
        ),
    ):
        again = await RawImap.open(api.gateway.imap_port)
        try:
            await again.login("jianf")
            await again.command(b"e ENABLE QRESYNC")
            resynced = await again.command(b"s SELECT INBOX " + parameters)
            above = await again.command(b"n UID FETCH 31:* (FLAGS)")
        finally:
            await again.close()
        vanished, fetched = _vanished(resynced, earlier=True), _fetches(resynced)
        assert vanished == vanished_expected, resynced
        assert set(fetched) == fetched_expected, resynced  # exactly the changed ones
        caught_up = {uid: flags for uid, flags in known.items() if uid not in vanished}
        caught_up.update(fetched)
        caught_up.update(_fetches(above))  # the new messages, as a client fetches them
        assert caught_up == truth
        assert _code(resynced, b"UIDNEXT") == 41
        assert _code(resynced, b"HIGHESTMODSEQ") > modseq

    # Pruned records: the client that knew 1:30 still ends with the folder as it is.
    store = api.gateway.store
    assert store is not None
    assert await prune_expunged(store, timedelta(0)) >= 20
    late = await RawImap.open(api.gateway.imap_port)
    try:
        await late.login("jianf")
        await late.command(b"e ENABLE QRESYNC")
        resynced = await late.command(b"s SELECT INBOX (QRESYNC (%d %d 1:30))" % (validity, modseq))
        above = await late.command(b"n UID FETCH 31:* (FLAGS)")
    finally:
        await late.close()
    vanished = _vanished(resynced, earlier=True)
    assert vanished == set(range(16, 31)), resynced
    caught_up = {uid: flags for uid, flags in known.items() if uid not in vanished}
    caught_up.update(_fetches(resynced))
    caught_up.update(_fetches(above))
    assert caught_up == truth
    # A session selected all along, whose mod-sequence is now below the pruned records,
    # reads the folder whole at its next command: 15 EXPUNGEs, and the view is exact.
    try:
        woken = await watcher.command(b"x NOOP")
        assert sum(1 for line in woken if line.endswith(b" EXPUNGE\r\n")) == 15, woken
        seen = await watcher.command(b"y UID FETCH 1:* (FLAGS)")
        view = {}
        for line in seen:
            match = re.match(rb"\* \d+ FETCH \(FLAGS \(([^)]*)\) UID (\d+)", line)
            if match:
                view[int(match.group(2))] = frozenset(match.group(1).decode().split())
        assert view == truth
    finally:
        await watcher.close()


async def test_qresync_session_gets_vanished_not_expunge(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    ids = [await _send(builder, f"m{i}") for i in range(1, 5)]
    raw, plain = (
        await RawImap.open(api.gateway.imap_port),
        await RawImap.open(api.gateway.imap_port),
    )
    try:
        await raw.login("jianf")
        await plain.login("jianf")
        early = await raw.command(b"a SELECT INBOX (QRESYNC (1 1))")
        assert early[-1].startswith(b"a BAD"), early  # RFC 7162 §3.2.5: ENABLE first
        await raw.command(b"b ENABLE QRESYNC")
        selected = await raw.command(b"c SELECT INBOX")
        modseq = _code(selected, b"HIGHESTMODSEQ")
        await plain.command(b"c SELECT INBOX")
        ok(await jianf.post(f"/api/v1/me/mail/{ids[1]}/delete"))
        ok(await jianf.post(f"/api/v1/me/mail/{ids[2]}/read"))
        noop = await raw.command(b"d NOOP")
        assert _vanished(noop, earlier=False) == {2} and b" EXPUNGE" not in b"".join(noop), noop
        assert re.match(rb"d OK \[HIGHESTMODSEQ \d+\]", noop[-1]), noop
        flags = rb"\* 2 FETCH \(FLAGS \(\\Recent \\Seen\) UID 3 MODSEQ"  # `raw` SELECTed first
        assert any(re.match(flags, line) for line in noop)
        old = await plain.command(b"d NOOP")  # a session without QRESYNC: EXPUNGE as before
        assert b"* 2 EXPUNGE\r\n" in old and b"VANISHED" not in b"".join(old), old

        since = await raw.command(b"e UID FETCH 1:* (FLAGS) (CHANGEDSINCE %d VANISHED)" % modseq)
        assert _vanished(since, earlier=True) == {2}, since
        assert set(_fetches(since)) == {3}, since
        refused = await raw.command(b"f FETCH 1:* (FLAGS) (CHANGEDSINCE 1 VANISHED)")
        assert refused[-1].startswith(b"f BAD"), refused  # UID FETCH only (RFC 7162 §3.2.6)
        switched = await raw.command(b"g EXAMINE Archive")
        assert any(b"[CLOSED]" in line for line in switched), switched  # RFC 7162 §3.2.11
    finally:
        await raw.close()
        await plain.close()
