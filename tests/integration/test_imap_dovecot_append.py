"""APPENDed messages on the gateway next to Dovecot 2.3 (the outside oracle).

The messages of tests/support/append_corpus.py (flags, keywords, internal dates in
several zones, 8-bit text, octets as a literal8, no final CRLF, an empty body, a header
with no body, a forwarded message, long lines, no Date, a Date no one reads) are
APPENDed one command each into INBOX, and all in one MULTIAPPEND (RFC 3502) into a
folder CREATE made, on the gateway and on a private Dovecot (tests/support/dovecot.py).
Then both are asked the same: the UIDs APPENDUID (RFC 4315) names, each message's
FLAGS, INTERNALDATE, RFC822.SIZE, `BODY[]`, ENVELOPE, BODYSTRUCTURE,
`BODY[HEADER.FIELDS.NOT (SUBJECT)]` and `BINARY[]`, and the answers to `SEARCHES` and
`SORTS` in both folders. They must be the same, but for `\\Recent`, which the gateway
does not keep (docs/imap.md: RFC 9051 drops it) and which is taken out of Dovecot's
FLAGS. Both databases: flags, keywords and internal dates are stored.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.append_corpus import Appended, append_corpus
from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_values import Value, fetch_items
from tests.support.tagged import TaggedClient, tagged_client

FOLDER = b"Filed"
ITEMS = [
    b"UID", b"FLAGS", b"INTERNALDATE", b"RFC822.SIZE", b"BODY.PEEK[]", b"ENVELOPE",
    b"BODYSTRUCTURE", b"BODY.PEEK[HEADER.FIELDS.NOT (SUBJECT)]", b"BINARY.PEEK[]",
]  # fmt: skip
SEARCHES = [
    b"ALL", b"SEEN", b"UNSEEN", b"FLAGGED", b"ANSWERED", b"DELETED", b"UNDELETED", b"DRAFT",
    b"KEYWORD $Label1", b"UNKEYWORD $Label1", b"KEYWORD project-x", b"KEYWORD $Forwarded",
    b"SINCE 05-Feb-2026", b"BEFORE 04-Feb-2026", b"ON 02-Feb-2026", b"ON 03-Feb-2026",
    b"SENTSINCE 05-Feb-2026", b"SENTBEFORE 03-Feb-2026", b"SENTON 04-Feb-2026",
    b"SENTON 01-Jan-1970", b"SENTON 13-Feb-2026", b"SENTON 14-Feb-2026",
    b'SUBJECT "that is folded"', b"FROM sender3", b"TO alice@example.org", b"BODY green",
    b"CHARSET UTF-8 TEXT {7+}\r\nZ\xc3\xbcrich", b"LARGER 3000", b"SMALLER 200",
    b"HEADER Message-ID append-5", b"NOT SEEN", b"OR FLAGGED DRAFT", b"UID 2:4",
    b"SEEN KEYWORD $Label1",
]  # fmt: skip
SORTS = [
    b"SORT (ARRIVAL) UTF-8 ALL", b"SORT (REVERSE ARRIVAL) UTF-8 ALL", b"SORT (DATE) UTF-8 ALL",
    b"SORT (SUBJECT) UTF-8 ALL", b"SORT (FROM) UTF-8 ALL", b"SORT (SIZE) UTF-8 ALL",
    b"SORT (REVERSE SIZE SUBJECT) UTF-8 ALL", b"SORT (DATE) UTF-8 SEEN",
    b"UID SORT (ARRIVAL) UTF-8 UNSEEN",
]  # fmt: skip
_APPENDUID = re.compile(rb"\[APPENDUID \d+ ([0-9:,]+)\]")
_ANSWER = re.compile(rb"^\* (?:SEARCH|SORT)( [^\r\n]*)?\r\n", re.M)


def _appended(message: Appended) -> bytes:
    """`APPEND` arguments before the literal: `(flags) "date"`."""
    flags = b" (%s)" % " ".join(message.flags).encode() if message.flags else b""
    date = b' "%s"' % message.internal_date.encode() if message.internal_date else b""
    return flags + date


async def _appends(client: TaggedClient, corpus: list[Appended]) -> list[bytes]:
    """Each message into INBOX, then all in one MULTIAPPEND into FOLDER: the UIDs that
    APPENDUID names, as written."""
    uids = []
    for message in corpus:
        line = b"APPEND INBOX" + _appended(message)
        reply = await client.command_with(line, [(message.raw, message.literal8)])
        uids.append(_uids(reply))
    await client.command(b"CREATE " + FOLDER)
    line = b"APPEND " + FOLDER + b"%L".join(_appended(message) for message in corpus) + b"%L"
    literals = [(message.raw, message.literal8) for message in corpus]
    uids.append(_uids(await client.command_with(line, literals)))
    return uids


def _uids(reply: bytes) -> bytes:
    found = _APPENDUID.search(reply)
    assert found is not None, reply
    return found.group(1)


def _without_recent(items: dict[bytes, Value]) -> dict[bytes, Value]:
    """docs/imap.md: `\\Recent` is not kept (RFC 9051 drops it); flags in any order."""
    flags = items.get(b"FLAGS")
    if isinstance(flags, list):
        items[b"FLAGS"] = sorted(f for f in flags if isinstance(f, bytes) and f != b"\\Recent")
    return items


async def _answers(client: TaggedClient, corpus: list[Appended]) -> dict[str, object]:
    answers: dict[str, object] = {"APPENDUID": await _appends(client, corpus)}
    for mailbox in (b"INBOX", FOLDER):
        await client.command(b"SELECT " + mailbox)
        fetched = fetch_items(await client.command(b"FETCH 1:* (%s)" % b" ".join(ITEMS)))
        for n, items in fetched.items():
            named = {name.replace(b".PEEK", b""): value for name, value in items.items()}
            answers[f"{mailbox.decode()} {corpus[n - 1].name}"] = _without_recent(named)
        for key in SEARCHES:
            for line in (b"SEARCH " + key, b"UID SEARCH " + key):
                answers[f"{mailbox.decode()} {line!r}"] = _answer(await client.command(line))
        for line in SORTS:
            answers[f"{mailbox.decode()} {line!r}"] = _answer(await client.command(line))
    await client.close()
    return answers


def _answer(reply: bytes) -> list[int]:
    found = _ANSWER.search(reply)
    assert found is not None, reply
    return [int(n) for n in (found.group(1) or b"").split()]


async def test_appended_messages_answer_as_dovecots(api: Api, tmp_path: Path) -> None:
    corpus = append_corpus()
    await api.human("alice")
    ours = await _answers(await tagged_client(api.gateway.imap_port, "alice", PASSWORD), corpus)
    async with running_dovecot(tmp_path / "dovecot", plaintext=True) as dovecot:
        client = await tagged_client(dovecot.port, dovecot.user, dovecot.password)
        theirs = await _answers(client, corpus)
    assert ours.keys() == theirs.keys()
    differences = []
    for key, mine in ours.items():
        dovecots = theirs[key]
        if isinstance(mine, dict) and isinstance(dovecots, dict):
            differences += [
                f"{key} {name!r}:\n  gateway {mine.get(name)!r}\n  dovecot {dovecots.get(name)!r}"
                for name in sorted(set(mine) | set(dovecots))
                if mine.get(name) != dovecots.get(name)
            ]
        elif mine != dovecots:
            differences.append(f"{key}:\n  gateway {mine!r}\n  dovecot {dovecots!r}")
    assert not differences, "\n".join(differences)
