"""The gateway's IMAP answers next to Dovecot 2.3's on the same bytes (the outside oracle).

A varied corpus (tests/support/mime_corpus.py) is delivered by SMTP to a gateway
user; the bytes the gateway stored (its `BODY[]`) are APPENDed to a private Dovecot
(tests/support/dovecot.py). Then, message by message: `RFC822.SIZE`, `ENVELOPE`,
`BODYSTRUCTURE`, `BODY[HEADER]`, `BODY[TEXT]`, `BODY[HEADER.FIELDS (SUBJECT TO)]`,
`BODY[n]` and `BODY[n.MIME]` of every section, `BODY[n.HEADER]` and `BODY[n.TEXT]`
of every message/rfc822 part and `BINARY[n]` of every leaf part, read from both
servers the same way (tests/support/imap_values.py) and compared; one message of each
everyday shape of tests/support/real_world_corpus.py (the benchmark's corpus) too.
The listing's items (RFC822.SIZE, ENVELOPE, BODYSTRUCTURE) come from the kept
structures the gateway stored with each message (docs/imap.md, "Kept structures").
They must be equal, but for the differences `ALLOWED` lists with their reasons
(docs/imap.md, "Differences from Dovecot").

Then the messages of tests/support/sort_corpus.py (both lists) join them (submitted by four users,
with the headers SORT and THREAD read; their FETCH items are not compared), each
APPENDed to Dovecot with the INTERNALDATE the gateway gave it, and `SORTS` (every key,
REVERSE, several keys, search criteria, UID SORT, DISPLAYFROM and DISPLAYTO), both
THREAD algorithms (also with criteria, and UID THREAD), ESEARCH and ESORT are asked of
both servers over the whole mailbox: the answers must be the same (RFC 5256, RFC 4731,
RFC 5267, RFC 5957). SQLite only: nothing compared depends on the database.
"""

from __future__ import annotations

import asyncio
import re
import smtplib
from collections.abc import Iterator
from email.header import decode_header, make_header
from pathlib import Path

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.imap_values import Value, fetch_items, read_response
from tests.support.mime_corpus import corpus
from tests.support.raw_imap import RawImap
from tests.support.real_world_corpus import SHAPES, real_world_corpus
from tests.support.sort_corpus import SENDERS, deliver, edge_corpus, sort_corpus

D = "agentmail.localhost"
FIELDS = b"BODY.PEEK[HEADER.FIELDS (SUBJECT TO)]"


def _decoded(value: Value) -> Value:
    """Every string with its RFC 2047 encoded-words decoded: the text, not its encoding."""
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    if isinstance(value, bytes):
        return str(make_header(decode_header(value.decode("utf-8")))).encode()
    return value


# (message name, item) → why the gateway answers differently from Dovecot, and what
# must still be equal: both answers are compared after `_decoded`, so only the
# encoding of the same text may differ.
ALLOWED: dict[tuple[str, str], str] = {
    ("raw UTF-8 headers", "ENVELOPE"): (
        "a raw UTF-8 Subject goes out as an encoded-word to a session that did not "
        "ENABLE UTF8=ACCEPT (RFC 6855 §3); Dovecot sends the raw UTF-8"
    ),
    ("real-world forwarded", "ENVELOPE"): (
        "a raw UTF-8 display name goes out as an encoded-word (RFC 6855 §3); Dovecot "
        "sends the raw UTF-8"
    ),
}


_FROM = re.compile(rb"^From: (.*?)<?[^<>\s]+@[^<>\s]+>?\r\n", re.MULTILINE)


def _real_world(user: str) -> list[tuple[str, bytes]]:
    """One message of each shape of tests/support/real_world_corpus.py (small
    attachments), its From: the submitting user's address under the name it had: a
    submission must come from its sender."""
    items = real_world_corpus(user, len(SHAPES), max_attachment=20_000)
    return [
        (
            f"real-world {item.shape}",
            _FROM.sub(b"From: \\1<" + user.encode() + b">\r\n", item.raw, 1),
        )
        for item in items
    ]


def _deliver(port: int, user: str, messages: list[bytes]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.login(user, PASSWORD)
        for raw in messages:
            client.sendmail(user, [user], raw)


# What SORT, THREAD, SEARCH RETURN and SORT RETURN are asked (RFC 5256 §3, RFC 4731 §3.1,
# RFC 5267 §3, RFC 5957: DISPLAYFROM and DISPLAYTO).
SORTS = [
    b"SORT (SUBJECT) UTF-8 ALL", b"SORT (DATE) UTF-8 ALL", b"SORT (ARRIVAL) UTF-8 ALL",
    b"SORT (FROM) UTF-8 ALL", b"SORT (TO) UTF-8 ALL", b"SORT (CC) UTF-8 ALL",
    b"SORT (SIZE) UTF-8 ALL", b"SORT (REVERSE DATE) UTF-8 ALL",
    b"SORT (REVERSE ARRIVAL) UTF-8 ALL", b"SORT (REVERSE SUBJECT DATE) UTF-8 ALL",
    b"SORT (FROM REVERSE SIZE) UTF-8 ALL", b"SORT (TO CC SUBJECT) US-ASCII ALL",
    b"SORT (REVERSE FROM REVERSE DATE) UTF-8 NOT SUBJECT launch",
    b"SORT (SUBJECT) UTF-8 OR SUBJECT plan SUBJECT menu", b"UID SORT (DATE SIZE) UTF-8 ALL",
    b"THREAD ORDEREDSUBJECT UTF-8 ALL", b"THREAD REFERENCES UTF-8 ALL",
    b"UID THREAD REFERENCES UTF-8 ALL", b"THREAD REFERENCES UTF-8 NOT SUBJECT plan",
    b"THREAD ORDEREDSUBJECT US-ASCII SUBJECT re", b"THREAD REFERENCES UTF-8 SUBJECT nothing",
    b"SEARCH RETURN (MIN MAX ALL COUNT) SUBJECT launch", b"UID SEARCH RETURN () NOT SUBJECT re",
    b"SEARCH RETURN (COUNT MIN) SUBJECT nothing",
    b"SORT (DISPLAYFROM) UTF-8 ALL", b"SORT (DISPLAYTO) UTF-8 ALL",
    b"SORT (REVERSE DISPLAYTO DATE) UTF-8 ALL", b"UID SORT (DISPLAYFROM SUBJECT) UTF-8 ALL",
    b"SORT RETURN (MIN MAX COUNT ALL) (DISPLAYFROM SUBJECT) UTF-8 ALL",
    b"SORT RETURN (ALL) (REVERSE DATE) UTF-8 NOT SUBJECT launch",
    b"UID SORT RETURN () (SUBJECT DATE) UTF-8 ALL",
    b"SORT RETURN (COUNT MIN) (SIZE) UTF-8 SUBJECT nothing",
]  # fmt: skip
_ESEARCH_TAG = re.compile(rb'^\(TAG "[^"]*"\) ?')


def _answer(response: bytes) -> bytes:
    """The data of a SORT, THREAD or ESEARCH answer, its tag left out."""
    [line] = [
        x for x in response.split(b"\r\n") if x.startswith((b"* SORT", b"* THREAD", b"* ESEARCH"))
    ]
    data = line.split(b" ", 2)[2] if line.count(b" ") > 1 else b""
    return _ESEARCH_TAG.sub(b"", data).strip()


class _Client:
    """One IMAP connection, commands numbered, responses read whole."""

    def __init__(self, raw: RawImap) -> None:
        self.raw, self.n = raw, 0

    async def command(self, line: bytes, literal: bytes | None = None) -> bytes:
        self.n += 1
        tag = b"t%d" % self.n
        if literal is not None:  # LITERAL+ (RFC 7888): no continuation to wait for
            await self.raw.send(
                tag + b" " + line + b" {%d+}\r\n" % len(literal) + literal + b"\r\n"
            )
        else:
            await self.raw.send(tag + b" " + line + b"\r\n")
        response = await read_response(self.raw.reader, tag)
        last = response[response.rindex(tag + b" ") :]
        assert last.startswith(tag + b" OK"), (line, response[-500:])
        return response


async def _client(port: int, user: str, password: str) -> _Client:
    client = _Client(await RawImap.open(port))
    await client.command(b'LOGIN "%s" "%s"' % (user.encode(), password.encode()))
    return client


def _is_multipart(body: Value) -> bool:
    return isinstance(body, list) and bool(body) and isinstance(body[0], list)


def _children(body: list[Value], number: str) -> Iterator[tuple[str, list[Value]]]:
    """body-type-mpart = 1*body SP media-subtype …: the parts come first, unwrapped."""
    parts = [part for part in body if isinstance(part, list)][: _part_count(body)]
    for i, part in enumerate(parts, 1):
        yield from _sections(part, f"{number}.{i}" if number else str(i))


def _part_count(body: list[Value]) -> int:
    count = 0
    while count < len(body) and isinstance(body[count], list):
        count += 1
    return count


def _sections(part: list[Value], number: str) -> Iterator[tuple[str, list[Value]]]:
    """IMAP section numbers of a part and those below it (RFC 3501 §6.4.5)."""
    yield number, part
    if _is_multipart(part):
        yield from _children(part, number)
    elif _lower(part[0]) == b"message" and _lower(part[1]) == b"rfc822":
        inner = part[8]
        assert isinstance(inner, list)
        if _is_multipart(inner):
            yield from _children(inner, number)
        else:
            yield f"{number}.1", inner


def _all_sections(body: list[Value]) -> list[tuple[str, list[Value]]]:
    if _is_multipart(body):
        return list(_children(body, ""))
    return [("1", body)]


def _lower(value: Value) -> Value:
    return value.lower() if isinstance(value, bytes) else value


def _leaf(part: list[Value]) -> bool:
    return not _is_multipart(part) and not (
        _lower(part[0]) == b"message" and _lower(part[1]) == b"rfc822"
    )


async def _items(client: _Client, uid: int, items: list[bytes]) -> dict[bytes, Value]:
    response = await client.command(b"UID FETCH %d (%s)" % (uid, b" ".join(items)))
    [found] = fetch_items(response).values()
    return {name.replace(b".PEEK", b""): value for name, value in found.items()}


async def test_imap_answers_as_dovecot_does(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with (
        running_dovecot(tmp_path / "dovecot", plaintext=True) as dovecot,
        running_gateway(url, tmp_path / "data", background_jobs=False) as gateway,
    ):
        api = Api(gateway)
        try:
            for name in SENDERS:
                await api.human(name)
        finally:
            await api.close()
        user = f"alice@{D}"
        messages = corpus(user) + _real_world(user)
        await asyncio.to_thread(_deliver, gateway.smtp_port, user, [raw for _, raw in messages])
        sorting = sort_corpus() + edge_corpus()
        await asyncio.to_thread(deliver, gateway.smtp_port, sorting)
        ours = await _client(gateway.imap_port, "alice", PASSWORD)
        theirs = await _client(dovecot.port, dovecot.user, dovecot.password)
        await ours.command(b"SELECT INBOX")
        stored = fetch_items(await ours.command(b"UID FETCH 1:* (UID INTERNALDATE BODY.PEEK[])"))
        assert len(stored) == len(messages) + len(sorting)
        for n in sorted(stored):
            data, arrived = stored[n][b"BODY[]"], stored[n][b"INTERNALDATE"]
            assert isinstance(data, bytes) and isinstance(arrived, bytes)
            await theirs.command(b'APPEND INBOX "%s"' % arrived, data)
        await theirs.command(b"SELECT INBOX")

        differences: list[str] = []
        whole = [b"UID", b"RFC822.SIZE", b"ENVELOPE", b"BODYSTRUCTURE"]
        for uid, (name, _) in enumerate(messages, 1):
            mine, dovecots = await _items(ours, uid, whole), await _items(theirs, uid, whole)
            structure = dovecots[b"BODYSTRUCTURE"]
            assert isinstance(structure, list)
            asked = [b"BODY.PEEK[HEADER]", b"BODY.PEEK[TEXT]", FIELDS]
            for section, part in _all_sections(structure):
                number = section.encode()
                asked += [b"BODY.PEEK[%s]" % number, b"BODY.PEEK[%s.MIME]" % number]
                if _leaf(part):
                    asked.append(b"BINARY.PEEK[%s]" % number)
                elif not _is_multipart(part):  # message/rfc822
                    asked += [b"BODY.PEEK[%s.HEADER]" % number, b"BODY.PEEK[%s.TEXT]" % number]
            mine.update(await _items(ours, uid, asked))
            dovecots.update(await _items(theirs, uid, asked))
            for item in sorted(set(mine) | set(dovecots)):
                if item == b"UID" or mine.get(item) == dovecots.get(item):
                    continue
                if (name, item.decode()) in ALLOWED and _decoded(mine.get(item)) == _decoded(
                    dovecots.get(item)
                ):
                    continue
                differences.append(
                    f"{name} {item.decode()}:\n  gateway {mine.get(item)!r}\n"
                    f"  dovecot {dovecots.get(item)!r}"
                )
        for line in SORTS:
            mine, dovecots = _answer(await ours.command(line)), _answer(await theirs.command(line))
            if mine != dovecots:
                differences.append(f"{line.decode()}:\n  gateway {mine!r}\n  dovecot {dovecots!r}")
        await ours.raw.close()
        await theirs.raw.close()
        assert not differences, "\n".join(differences)
