"""SORT and THREAD (RFC 5256) over the real server, on SQLite and PostgreSQL.

The corpus (tests/support/sort_corpus.py) is delivered by SMTP; the expected answers
below are Dovecot 2.3's for the same messages (tests/integration/test_imap_dovecot_diff.py
compares them live), with the RFC's reasons for the interesting ones. Mails written over
REST are served as renderings, whose keys come from their columns: they must follow
what FETCH shows, a conversation's rename included.
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime

from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.imap_values import fetch_items
from tests.support.raw_imap import RawImap
from tests.support.sort_corpus import SENDERS, deliver, sort_corpus


async def _corpus(api: Api) -> None:
    for name in SENDERS:
        await api.human(name)
    await asyncio.to_thread(deliver, api.gateway.smtp_port, sort_corpus())


async def _selected(api: Api, mailbox: bytes = b"INBOX") -> RawImap:
    imap = await RawImap.open(api.gateway.imap_port)
    await imap.login("alice")
    assert (await imap.command(b"S SELECT " + mailbox))[-1].startswith(b"S OK")
    return imap


async def answer(imap: RawImap, line: bytes, name: bytes = b"") -> bytes:
    """The data of the one `* <name>` line of a command that must succeed."""
    lines = await imap.command(line)
    assert lines[-1].startswith(line.split(b" ", 1)[0] + b" OK"), (line, lines)
    name = name or line.split(b" ")[2 if line.split(b" ")[1] == b"UID" else 1]
    found = [x for x in lines if x == b"* " + name + b"\r\n" or x.startswith(b"* " + name + b" ")]
    assert len(found) == 1, (line, lines)
    return found[0][len(b"* ") + len(name) :].strip()


def numbers(data: bytes) -> list[int]:
    return [int(n) for n in data.split()]


EXPECTED_SORTS = {
    b"(SUBJECT)": "18 19 5 6 7 24 25 15 17 16 8 9 10 11 12 13 1 2 3 4 14 20 21 22 23",
    b"(FROM)": "3 7 11 15 19 23 1 5 9 12 16 20 24 2 6 10 13 17 21 25 4 8 14 18 22",
    b"(TO)": "19 6 1 2 8 10 9 11 12 13 14 15 16 17 18 20 21 22 23 24 25 5 4 7 3",
    b"(CC)": "1 4 5 7 8 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 9 2 3 6",
    b"(DATE)": "1 2 3 4 5 6 7 8 10 11 12 13 14 15 16 17 18 19 21 20 22 23 25 24 9",
    b"(REVERSE DATE)": "9 24 25 23 22 20 21 18 19 17 15 16 14 13 12 10 11 8 7 5 6 4 3 2 1",
    b"(SIZE)": "19 15 22 10 17 25 13 12 1 24 8 14 18 20 3 23 5 9 6 16 7 21 2 11 4",
    b"(REVERSE SUBJECT REVERSE FROM)": (
        "22 23 21 20 14 4 2 1 3 13 12 8 10 9 11 16 17 15 25 24 6 5 7 18 19"
    ),
}


async def test_sort_orders_by_each_key(api: Api) -> None:
    """§3: a missing field is the empty string, first (18 has an empty subject, 19 none;
    CC); the mailbox of the first address, case-mapped (DAVE is dave; 19's To is a group,
    its name); equal sent dates keep sequence order also in REVERSE (5 and 6, 15 and 16);
    a Date that cannot be read is INTERNALDATE (9, last); zones count (21 before 20)."""
    await _corpus(api)
    imap = await _selected(api)
    for program, expected in EXPECTED_SORTS.items():
        got = await answer(imap, b"A SORT " + program + b" UTF-8 ALL")
        assert got.decode() == expected, program
    filtered = await answer(imap, b"A SORT (FROM SIZE) UTF-8 NOT SUBJECT launch")
    assert filtered.decode() == "19 15 3 23 7 12 1 24 20 5 16 17 25 13 6 21 2 22 14 18 4"
    dates = fetch_items(b"".join(await imap.command(b"F FETCH 1:* (INTERNALDATE)")))
    arrival = await answer(imap, b"A SORT (REVERSE ARRIVAL) UTF-8 ALL")
    moment = {n: _seconds(items[b"INTERNALDATE"]) for n, items in dates.items()}
    assert numbers(arrival) == sorted(moment, key=lambda n: -moment[n])  # ties: ascending
    await imap.close()


def _seconds(internal_date: object) -> int:
    assert isinstance(internal_date, bytes)
    return int(datetime.strptime(internal_date.decode(), "%d-%b-%Y %H:%M:%S %z").timestamp())


async def test_uid_sort_and_uid_thread_name_uids(api: Api) -> None:
    await _corpus(api)
    imap = await _selected(api)
    assert (await imap.command(b"D STORE 1:3 +FLAGS.SILENT (\\Deleted)"))[-1].startswith(b"D OK")
    assert (await imap.command(b"E EXPUNGE"))[-1].startswith(b"E OK")  # into Trash
    uids = fetch_items(b"".join(await imap.command(b"F FETCH 1:* (UID)")))
    uid_of: dict[int, int] = {}
    for number, items in uids.items():
        uid = items[b"UID"]
        assert isinstance(uid, int)
        uid_of[number] = uid
    by_number = numbers(await answer(imap, b"A SORT (DATE) UTF-8 ALL"))
    assert numbers(await answer(imap, b"A UID SORT (DATE) UTF-8 ALL")) == [
        uid_of[n] for n in by_number
    ]
    threads = await answer(imap, b"A THREAD REFERENCES UTF-8 ALL")
    by_uid = await answer(imap, b"A UID THREAD REFERENCES UTF-8 ALL")
    assert re.sub(rb"\d+", lambda m: b"%d" % uid_of[int(m.group(0))], threads) == by_uid
    assert threads.startswith(b"(1)(2 (3)(4))")  # 4 (Re: …) was below 1, now expunged
    await imap.close()


async def test_thread_by_both_algorithms(api: Api) -> None:
    """ORDEREDSUBJECT: one thread per base subject, by its first sent date. REFERENCES:
    chains by References (1 2 3 4, 4 by In-Reply-To), a missing parent a dummy that gives
    way to its only child (6 below 5 past <m-missing>; 7's <gone> alone), two threads of
    one subject under a dummy ((8 10)(9 11)), a loop's first link (13 12), a duplicate
    Message-ID its own message (15 17)(16), empty subjects never merged (18)(19)."""
    await _corpus(api)
    imap = await _selected(api)
    ordered = await answer(imap, b"A THREAD ORDEREDSUBJECT UTF-8 ALL")
    assert ordered == (
        b"(1 (2)(3)(4))(5 (6)(7))(8 (10)(11)(9))(12)(13)(14)(15 17)(16)(18 19)(21 20)(22 23)(25 24)"
    )
    references = await answer(imap, b"A THREAD REFERENCES UTF-8 ALL")
    assert references == (
        b"(1 2 3 4)(5 (6)(7))((8 10)(9 11))(13 12)(14)(15 17)(16)(18)(19)(21 20)(22 23)(25 24)"
    )
    assert await answer(imap, b"A THREAD REFERENCES UTF-8 SUBJECT launch") == b"((8 10)(9 11))"
    await imap.close()


async def test_search_criteria_charsets_and_refusals(api: Api) -> None:
    await _corpus(api)
    imap = await _selected(api)
    assert await answer(imap, b"A SORT (DATE) US-ASCII SUBJECT plan") == b"1 2 3 4"
    utf8 = await imap.command(b"U SORT (DATE) UTF-8 SUBJECT {5+}\r\ncaf\xc3\xa9")
    assert b"* SORT 5 6 7\r\n" in utf8 and utf8[-1].startswith(b"U OK")
    assert await answer(imap, b"A SORT (SUBJECT) UTF-8 SUBJECT nowhere") == b""
    assert await answer(imap, b"A THREAD REFERENCES UTF-8 SUBJECT nowhere") == b""
    modseq = await answer(imap, b"A SORT (REVERSE DATE) UTF-8 MODSEQ 1 SUBJECT launch")
    assert re.fullmatch(rb"9 10 11 8 \(MODSEQ \d+\)", modseq), modseq  # RFC 7162 §3.1.5
    for line, reply in [
        (b"B SORT (DATE) KOI9-X ALL", b"B NO [BADCHARSET (UTF-8 US-ASCII)]"),
        (b"B UID THREAD REFERENCES no-such ALL", b"B NO [BADCHARSET (UTF-8 US-ASCII)]"),
        (b"B SORT (DATE) UTF-8", b"B BAD"),
        (b"B SORT (REVERSE) UTF-8 ALL", b"B BAD"),
        (b"B SORT (SENDER) UTF-8 ALL", b"B BAD"),
        (b"B THREAD REFS UTF-8 ALL", b"B BAD"),
        (b"B SORT (DATE) UTF-8 SUBJECT \xff", b"B BAD"),
    ]:
        lines = await imap.command(line)
        assert lines[-1].startswith(reply), (line, lines)
        assert (await imap.command(b"N NOOP"))[-1].startswith(b"N OK")
    fresh = await RawImap.open(api.gateway.imap_port)
    await fresh.login("alice")
    unselected = await fresh.command(b"C SORT (DATE) UTF-8 ALL")
    assert unselected[-1].startswith(b"C BAD")  # RFC 3501 §6.4: the selected state
    await fresh.close()
    await imap.close()


async def test_esearch_returns(api: Api) -> None:
    """RFC 4731 §3.1: MIN, MAX, ALL (a sequence set), COUNT; none of the first three for
    nothing found; `RETURN ()` is ALL; UID for UID SEARCH; MODSEQ (RFC 7162 §3.1.5)."""
    await _corpus(api)
    imap = await _selected(api)
    got = await imap.command(b"T1 SEARCH RETURN (MIN MAX ALL COUNT) SUBJECT launch")
    assert b'* ESEARCH (TAG "T1") MIN 8 MAX 11 ALL 8:11 COUNT 4\r\n' in got
    got = await imap.command(b"T2 UID SEARCH RETURN () OR SUBJECT plan SUBJECT loop")
    assert b'* ESEARCH (TAG "T2") UID ALL 1:4,12:13\r\n' in got
    got = await imap.command(b"T3 SEARCH RETURN (MIN COUNT) SUBJECT nowhere")
    assert b'* ESEARCH (TAG "T3") COUNT 0\r\n' in got
    got = await imap.command(b"T4 SEARCH RETURN (MAX) MODSEQ 1 SUBJECT launch")
    assert re.search(rb'\* ESEARCH \(TAG "T4"\) MAX 11 MODSEQ \d+\r\n', b"".join(got)), got
    assert not any(line.startswith(b"* SEARCH") for line in got)
    assert (await imap.command(b"T5 SEARCH RETURN (SAVE) ALL"))[-1].startswith(b"T5 BAD")
    await imap.close()


async def test_rendered_mails_sort_by_what_fetch_shows(api: Api) -> None:
    """REST mails are renderings: SIZE is the rendering's RFC822.SIZE, FROM the sender's
    address with the conversation's alias, which a rename changes (never a stale key)."""
    alice = await api.human("alice")
    builder = await api.agent("builder")
    sent = []
    for alias, body in [("aaa", "x" * 900), ("mmm", "y"), ("bbb", "z" * 300)]:
        mail = {"to": "alice@", "subject": f"about {alias}", "body": body, "session_alias": alias}
        sent.append(ok(await builder.post("/api/v1/mail/send", json=mail)))
    imap = await _selected(api)
    sizes = fetch_items(b"".join(await imap.command(b"F FETCH 1:* (RFC822.SIZE)")))
    by_size = sorted(sizes, key=lambda n: sizes[n][b"RFC822.SIZE"])  # type: ignore[arg-type, return-value]
    assert numbers(await answer(imap, b"A SORT (SIZE) UTF-8 ALL")) == by_size == [2, 3, 1]
    assert numbers(await answer(imap, b"A SORT (FROM) UTF-8 ALL")) == [1, 3, 2]
    renamed = await alice.patch(
        f"/api/v1/me/sessions/{sent[0]['session_id']}", json={"session_alias": "zzz"}
    )
    ok(renamed)
    assert numbers(await answer(imap, b"A SORT (FROM) UTF-8 ALL")) == [3, 2, 1]
    reply = {
        "to": "alice@",
        "subject": "Re: about aaa",
        "body": "r",
        "reply_to": sent[0]["mail_id"],
    }
    ok(await builder.post("/api/v1/mail/send", json=reply))
    assert (await imap.command(b"N NOOP"))[-1].startswith(b"N OK")
    assert await answer(imap, b"A THREAD REFERENCES UTF-8 ALL") == b"(1 4)(2)(3)"
    await imap.close()


async def test_drafts_sort(api: Api) -> None:
    await api.human("alice")
    imap = await _selected(api)
    for subject in (b"zebra", b"Re: apple", b"mango"):
        draft = b"To: bob@example.com\r\nSubject: " + subject + b"\r\n\r\ntext\r\n"
        appended = await imap.command(b"P APPEND Drafts {%d+}\r\n" % len(draft) + draft)
        assert appended[-1].startswith(b"P OK"), appended
    assert (await imap.command(b"S SELECT Drafts"))[-1].startswith(b"S OK")
    assert await answer(imap, b"A SORT (SUBJECT) UTF-8 ALL") == b"2 3 1"
    threads = await answer(imap, b"A THREAD ORDEREDSUBJECT UTF-8 ALL")
    assert threads == b"(1)(2)(3)"  # by date (saved in this order), not by subject
    nomodseq = await imap.command(b"M SORT (DATE) UTF-8 MODSEQ 1")
    assert nomodseq[-1].startswith(b"M BAD")  # Drafts keeps no mod-sequences
    await imap.close()
