"""SEARCH's address and text keys, ENVELOPE's addresses and a HEADER.FIELDS list, as
Dovecot 2.3 answers them, on messages written to trip their readers.

tests/support/search_corpus.py's messages (imaptest's fetch-envelope, search-addresses
and search-body kinds, and more: names given as comments, source routes, groups,
empty Sender and Reply-To, words behind a quoted-printable soft line break, base64, a
charset, a part's header, a preamble, an attachment, a carried message) are APPENDed
to a private Dovecot (tests/support/dovecot.py) and to the gateway, and both are asked
the same commands: every `COMMANDS` search (FROM, TO, CC, BCC, BODY, TEXT), each
message's ENVELOPE (served from the structures kept when it was stored) and
`BODY.PEEK[HEADER.FIELDS (FROM FROM)]` and `(subject From)` (the list is answered as
written). The answers must be the same. Dovecot answers once for the module; the
gateway on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_values import Value, fetch_items, read_response
from tests.support.raw_imap import RawImap
from tests.support.search_corpus import COMMANDS, MESSAGES

FETCHES = [
    b"FETCH 1:* (ENVELOPE)",
    b"FETCH 1:* (BODY.PEEK[HEADER.FIELDS (FROM FROM)] BODY.PEEK[HEADER.FIELDS (subject From)])",
]
Answers = dict[bytes, object]


class _Session:
    """One IMAP connection, commands tagged in turn, responses read whole."""

    def __init__(self, raw: RawImap) -> None:
        self.raw, self.count = raw, 0

    async def command(self, line: bytes, literal: bytes | None = None) -> bytes:
        self.count += 1
        tag = b"t%d" % self.count
        if literal is None:
            await self.raw.send(tag + b" " + line + b"\r\n")
        else:  # LITERAL+ (RFC 7888): no continuation to wait for
            await self.raw.send(
                tag + b" " + line + b" {%d+}\r\n" % len(literal) + literal + b"\r\n"
            )
        response = await read_response(self.raw.reader, tag)
        assert response[response.rindex(tag + b" ") :].startswith(tag + b" OK"), (line, response)
        return response


def _found(response: bytes) -> list[int]:
    line = re.search(rb"^\* SEARCH([ \d]*)\r$", response, re.MULTILINE)
    assert line is not None, response
    return sorted(int(n) for n in line.group(1).split())


async def _answers(port: int, user: str, password: str) -> Answers:
    """Every message APPENDed to INBOX, then each command's answer."""
    session = _Session(await RawImap.open(port))
    try:
        await session.command(b'LOGIN "%s" "%s"' % (user.encode(), password.encode()))
        for raw in MESSAGES:
            await session.command(b"APPEND INBOX", raw)
        await session.command(b"SELECT INBOX")
        answers: Answers = {}
        for line in COMMANDS:
            answers[line] = _found(await session.command(line))
        for line in FETCHES:
            fetched: dict[int, dict[bytes, Value]] = fetch_items(await session.command(line))
            for number, items in fetched.items():
                answers[line + b" #%d" % number] = items
        return answers
    finally:
        await session.raw.close()


async def _dovecots(workdir: Path) -> Answers:
    async with running_dovecot(workdir, plaintext=True) as dovecot:
        return await _answers(dovecot.port, dovecot.user, dovecot.password)


@pytest.fixture(scope="module")
def dovecot_answers(tmp_path_factory: pytest.TempPathFactory) -> Answers:
    """Dovecot's answers, once for the module (its own loop, in a thread of its own)."""
    workdir = tmp_path_factory.mktemp("dovecot")
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _dovecots(workdir)).result()


async def test_search_and_envelope_answer_as_dovecot(api: Api, dovecot_answers: Answers) -> None:
    await api.human("alice")
    ours = await _answers(api.gateway.imap_port, "alice", PASSWORD)
    differences = [
        f"{line.decode(errors='replace')}\n  gateway {ours[line]!r}\n  dovecot {theirs!r}"
        for line, theirs in dovecot_answers.items()
        if ours[line] != theirs
    ]
    assert not differences, "\n".join(differences)
    assert dovecot_answers[b"SEARCH CHARSET UTF-8 FROM realfrom"] == [2, 4]  # a comment names
    assert dovecot_answers[b"SEARCH CHARSET UTF-8 BODY qwertyuiop"] == [4]  # not 2's Subject
