"""CONDSTORE (RFC 7162 §3.1): HIGHESTMODSEQ in SELECT and STATUS,
MODSEQ in FETCH, CHANGEDSINCE, UNCHANGEDSINCE with `[MODIFIED …]`, SEARCH MODSEQ, and
MODSEQ in the FETCHes a CONDSTORE session is sent unasked."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from imapclient import IMAPClient

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap


def _code(lines: list[bytes], name: bytes) -> int:
    for line in lines:
        match = re.search(rb"\[" + name + rb" (\d+)\]", line)
        if match:
            return int(match.group(1))
    raise AssertionError((name, lines))


def _modseqs(lines: list[bytes]) -> dict[int, int]:
    """MODSEQ by UID of the FETCH lines (which carry UID here)."""
    found = {}
    for line in lines:
        uid, modseq = re.search(rb"UID (\d+)", line), re.search(rb"MODSEQ \((\d+)\)", line)
        if line.startswith(b"* ") and b"FETCH" in line and modseq:
            assert uid is not None, line
            found[int(uid.group(1))] = int(modseq.group(1))
    return found


async def test_condstore_modseqs_changedsince_unchangedsince_and_search(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    mails = []
    for subject in ("one", "two", "three"):
        body = {"to": "jianf@", "subject": subject, "body": "hi"}
        mails.append(ok(await builder.post("/api/v1/mail/send", json=body)))
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        drafts = await raw.command(b"a SELECT Drafts")
        assert any(b"[NOMODSEQ]" in line for line in drafts), drafts  # RFC 7162 §3.1.2.2
        refused = await raw.command(b"b FETCH 1:* (MODSEQ)")
        assert refused[-1].startswith(b"b BAD"), refused
        status = await raw.command(b"c STATUS Drafts (HIGHESTMODSEQ)")
        assert b"(HIGHESTMODSEQ 0)" in status[0], status

        selected = await raw.command(b"d SELECT INBOX")
        assert any(b"[CLOSED]" in line for line in selected) is False  # no QRESYNC here
        highest = _code(selected, b"HIGHESTMODSEQ")  # in every SELECT (RFC 7162 §3.1.2.1)
        status = await raw.command(b"e STATUS INBOX (MESSAGES HIGHESTMODSEQ)")
        assert f"(MESSAGES 3 HIGHESTMODSEQ {highest})".encode() in status[0], status
        fetched = await raw.command(b"f UID FETCH 1:* (FLAGS MODSEQ)")
        before = _modseqs(fetched)
        assert set(before) == {1, 2, 3} and all(0 < m <= highest for m in before.values())

        # Another client flags message 2; a conditional STORE then leaves it alone.
        def flag_two() -> None:
            with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as other:
                other.login("jianf", PASSWORD)
                other.select_folder("INBOX")
                other.add_flags([2], [b"\\Flagged"])

        await asyncio.to_thread(flag_two)
        stored = await raw.command(b"g STORE 1:3 (UNCHANGEDSINCE %d) +FLAGS (\\Seen)" % highest)
        assert re.match(rb"g OK \[MODIFIED 2\]", stored[-1]), stored
        answered = {
            int(line.split()[1]) for line in stored if b" FETCH " in line and b"MODSEQ (" in line
        }
        assert 1 in answered and 3 in answered, stored
        flags = await raw.command(b"h UID FETCH 1:3 (FLAGS)")
        assert b"\\Seen" not in next(line for line in flags if b"UID 2" in line), flags
        assert all(b"MODSEQ (" in line for line in flags[:-1]), flags  # CONDSTORE is on now
        always = await raw.command(b"i UID STORE 3 (UNCHANGEDSINCE 0) +FLAGS.SILENT (\\Flagged)")
        assert re.match(rb"i OK \[MODIFIED 3\]", always[-1]), always  # RFC 7162 §3.1.3

        # A change made over REST reaches the CONDSTORE session with its MODSEQ.
        ok(await jianf.post(f"/api/v1/me/mail/{mails[1]['mail_id']}/read"))
        pushed = await raw.command(b"j NOOP")
        assert any(re.match(rb"\* 2 FETCH \(.*MODSEQ \(\d+\)", line) for line in pushed), pushed

        changed = await raw.command(b"k UID FETCH 1:* (FLAGS) (CHANGEDSINCE %d)" % highest)
        now = _modseqs(changed)
        assert set(now) == {1, 2, 3}, changed  # 1, 3 seen here; 2 flagged, then read
        only_two = await raw.command(b"line UID FETCH 1:* (FLAGS) (CHANGEDSINCE %d)" % now[3])
        assert set(_modseqs(only_two)) == {2}, only_two

        found = await raw.command(b"m UID SEARCH MODSEQ %d" % (now[3] + 1))
        assert found[0] == b"* SEARCH 2 (MODSEQ %d)\r\n" % now[2], found
        rest = await raw.command(b"n UID SEARCH NOT MODSEQ %d" % (now[3] + 1))
        assert rest[0].startswith(b"* SEARCH 1 3 (MODSEQ "), rest
        entry = await raw.command(b'o SEARCH MODSEQ "/flags/\\\\draft" all %d' % (now[3] + 1))
        assert entry[0].startswith(b"* SEARCH 2 (MODSEQ"), entry
        none = await raw.command(b"p UID SEARCH MODSEQ %d" % (now[2] + 1))
        assert none[0] == b"* SEARCH\r\n", none
    finally:
        await raw.close()

    def with_imapclient() -> tuple[dict[bytes, Any], dict[int, Any]]:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as client:
            client.login("jianf", PASSWORD)
            assert client.enable("CONDSTORE") == [b"CONDSTORE"]
            info = client.select_folder("INBOX")
            since = info[b"HIGHESTMODSEQ"] - 1
            return info, client.fetch([1, 2, 3], ["FLAGS"], modifiers=[f"CHANGEDSINCE {since}"])

    info, recent = await asyncio.to_thread(with_imapclient)
    assert info[b"HIGHESTMODSEQ"] == now[2]
    assert list(recent) == [2] and recent[2][b"MODSEQ"] == (now[2],)


# SEARCH MODSEQ wherever a search key may stand (RFC 7162 §3.1.5 in RFC 3501 §9's
# search-key): messages 1..4; 1 seen, then 2 and then 4 flagged, so 2 and 4 changed
# last and 4 last of all; `{t2}` matches messages 2 and 4, `{t4}` message 4 only.
NESTED_SEARCHES = [
    (b"OR MODSEQ {t4} SEEN", {1, 4}),
    (b"OR SEEN MODSEQ {t4}", {1, 4}),
    (b"(MODSEQ {t2} UID 1:3)", {2}),
    (b"(MODSEQ {t2}) UNFLAGGED", set()),
    (b"NOT (MODSEQ {t2})", {1, 3}),
    (b"NOT OR MODSEQ {t4} SEEN", {2, 3}),
    (b"NOT NOT MODSEQ {t4}", {4}),
    (b"OR (NOT MODSEQ {t2} UNSEEN) (OR SEEN (MODSEQ {t4}))", {1, 3, 4}),
    (b"UID 2:4 (OR MODSEQ {t4} (NOT (MODSEQ {t2})))", {3, 4}),
    (b'(OR MODSEQ "/flags/\\\\flagged" shared {t4} DELETED)', {4}),
]


def _found(lines: list[bytes]) -> tuple[set[int], int | None]:
    """The numbers of a `* SEARCH` reply, and its `(MODSEQ n)` if any."""
    line = next(line for line in lines if line.startswith(b"* SEARCH"))
    modseq = re.search(rb"\(MODSEQ (\d+)\)", line)
    numbers = re.sub(rb"\(MODSEQ \d+\)", b"", line)[len(b"* SEARCH") :].split()
    return {int(n) for n in numbers}, int(modseq.group(1)) if modseq else None


async def test_search_modseq_inside_or_not_and_parentheses(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    for subject in ("one", "two", "three", "four"):
        body = {"to": "jianf@", "subject": subject, "body": "hi"}
        ok(await builder.post("/api/v1/mail/send", json=body))
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        drafts = await raw.command(b"a SELECT Drafts")
        assert any(b"[NOMODSEQ]" in line for line in drafts), drafts
        for n, search in enumerate([b"OR MODSEQ 1 SEEN", b"(MODSEQ 1)", b"NOT (SEEN MODSEQ 1)"]):
            refused = await raw.command(b"d%d SEARCH %s" % (n, search))  # RFC 7162 §3.1.2.2
            assert refused[-1].startswith(b"d%d BAD" % n), refused

        await raw.command(b"b SELECT INBOX")
        # INTERNALDATE inside parentheses: loaded for the search as at the top level.
        dated = await raw.command(b"c UID SEARCH (SINCE 1-Jan-2000 OR SEEN UNSEEN)")
        assert _found(dated) == ({1, 2, 3, 4}, None), dated
        for tag, change in ((b"e", b"1 +FLAGS (\\Seen)"), (b"f", b"2 +FLAGS (\\Flagged)")):
            assert (await raw.command(tag + b" UID STORE " + change))[-1].startswith(tag + b" OK")
        assert (await raw.command(b"g UID STORE 4 +FLAGS (\\Flagged)"))[-1].startswith(b"g OK")
        modseqs = _modseqs(await raw.command(b"h UID FETCH 1:* (MODSEQ)"))
        assert modseqs[4] > modseqs[2] > max(modseqs[1], modseqs[3]), modseqs
        thresholds = {"t2": modseqs[2], "t4": modseqs[4]}

        for n, (search, expected) in enumerate(NESTED_SEARCHES):
            text = search.decode().format(**thresholds).encode()
            for command in (b"UID SEARCH", b"SEARCH"):  # sequence numbers are the UIDs here
                lines = await raw.command(b"s%d %s %s" % (n, command, text))
                assert lines[-1].startswith(b"s%d OK" % n), (text, lines)
                highest = max((modseqs[uid] for uid in expected), default=None)
                assert _found(lines) == (expected, highest), (text, lines)

        # Without MODSEQ, the same composites are pymap's keys, and no (MODSEQ n).
        plain = await raw.command(b"p UID SEARCH OR SEEN (FLAGGED UID 4)")
        assert _found(plain) == ({1, 4}, None), plain

        deep = b"(" * 40 + b"SEEN" + b")" * 40  # deeper than any client nests
        for n, bad in enumerate(
            [b"OR MODSEQ 5", b"(MODSEQ)", b"()", b"(MODSEQ 5", b"NOT", b"MODSEQ 5 OR", deep]
        ):
            refused = await raw.command(b"x%d UID SEARCH %s" % (n, bad))
            assert refused[-1].startswith(b"x%d BAD" % n), (bad, refused)
            # The session goes on (a NOOP between: five BADs in a row end it, as pymap's).
            assert (await raw.command(b"z%d NOOP" % n))[-1].startswith(b"z%d OK" % n)
    finally:
        await raw.close()
