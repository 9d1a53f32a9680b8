"""Mailbox names that are no valid modified UTF-7, before and after login: a tagged
reply as Dovecot gives it, and the whole gateway still serving after each.

pymap's own decoder looped forever on `SELECT &AAA` (HTTP, SMTP and IMAP stopped)
and ended the connection with `* BYE [SERVERBUG]` on `SELECT &'+,-`; the names are
decoded by imap_view/mailbox_names.py now. The gateway runs in a thread
(tests/support/threaded.py), so a hang fails the liveness check instead of
hanging the test. Dovecot 2.3 (tests/support/dovecot.py) answers the same lines
with the same status (`NO Mailbox name is not valid mUTF-7`, OK with nothing listed
for a LIST or LSUB pattern): the last test replays them against it. Dovecot 2.3 has
no UTF8=ACCEPT, so the lines after ENABLE are ours alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from gateway.server import Gateway
from imap_view.mailbox_names import MAX_NAME_OCTETS
from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.liveness import assert_alive, baseline
from tests.support.raw_lines import RawConnection, raw_connection
from tests.support.threaded import gateway_in_thread

INVALID = b"NO Mailbox name is not valid modified UTF-7."
# The lines of the report, and their kin: (command after the tag, the tagged reply).
AFTER_LOGIN = [
    (b"SELECT &AAA", INVALID),
    (b'LIST "" &AAA', b"OK"),  # as Dovecot: a pattern that is no name lists nothing
    (b"STATUS &AAA (MESSAGES)", INVALID),
    (b'EXAMINE "&AAA"', INVALID),
    (b"SELECT &'+,-", INVALID),
    (b"SELECT &", INVALID),
    (b'SELECT "&Jjo"', INVALID),
    (b'SELECT "\xc3\xa9t\xc3\xa9"', INVALID),  # UTF-8 before ENABLE UTF8=ACCEPT
    (b'SELECT "\xff"', INVALID),
    (b"RENAME &AAA foo", INVALID),
    (b"APPEND &AAA {3}", INVALID),  # refused before `+`: no literal follows
    (b"SUBSCRIBE &AAA", INVALID),
    (b"UNSUBSCRIBE &AAA", INVALID),
    (b"CREATE &AAA", INVALID),
    (b"DELETE &AAA", INVALID),
    (b'LSUB "" &AAA', b"OK"),
    (b'LIST (SUBSCRIBED) "" ("&AAA" "&Jjo")', b"OK"),
    (b"LIST &AAA *", b"OK"),  # a reference that is no name: nothing listed either
    (b"SELECT &-", b"NO [NONEXISTENT]"),  # `&`: valid, and no such folder
    (b'SELECT "' + b"x" * (MAX_NAME_OCTETS + 1) + b'"', b"NO Mailbox name longer than"),
    # `}` is an ATOM-CHAR (RFC 3501 §9): a name, not a syntax error.
    (b"SELECT a}b", b"NO [NONEXISTENT]"),
    (b"STATUS a}b (MESSAGES)", b"NO [NONEXISTENT]"),
    (b'LSUB "" a}b', b"OK"),
    (b'LIST a}b ""', b"OK"),
    (b'LIST "" !#$&\'+,-.0123456789:;<=>?@^_`|[}%*', b"OK"),  # imaptest's `atoms`
    (b"COPY 1 &AAA", b"BAD"),  # no mailbox selected, as Dovecot checks first
    (b"SELECT INBOX", b"OK"),
    (b"COPY 1 &AAA", INVALID),
    (b"MOVE 1 &AAA", INVALID),
    (b"UID COPY 1 &AAA", INVALID),
    (b"UID MOVE 1 &AAA", INVALID),
    (b"ENABLE UTF8=ACCEPT", b"OK"),
    (b'SELECT "\xc3\xa9t\xc3\xa9"', b"NO [NONEXISTENT]"),  # RFC 6855 §3: a UTF-8 name
    (b'SELECT "\xff"', INVALID),
    (b"SELECT &AAA", INVALID),
]


async def _mail_for_alice(api: Api) -> None:
    alice = await api.human("alice")
    sent = await alice.post("/api/v1/me/mail/send", json={"to": "alice@", "subject": "hi"})
    assert sent.status_code == 200, sent.text


@asynccontextmanager
async def _imap(gateway: Gateway) -> AsyncIterator[RawConnection]:
    async with raw_connection(gateway.imap_port) as imap:
        assert (await imap.line()).startswith(b"* OK")
        yield imap


async def test_malformed_names_get_their_tagged_reply_and_the_gateway_serves(
    tmp_path: Path,
) -> None:
    with gateway_in_thread("sqlite", tmp_path, _mail_for_alice) as (gateway, _):
        since = await baseline(gateway)
        async with _imap(gateway) as imap:
            for tag, (command, _) in enumerate(AFTER_LOGIN[:5]):  # the report's lines
                sent = b"p%d " % tag + command + b"\r\n"
                lines = await imap.imap(b"p%d" % tag, sent)
                assert lines and lines[-1].startswith(b"p%d BAD" % tag), (command, lines)
                assert b"Must authenticate first" in lines[-1], lines
                noop = await imap.imap(b"N", b"N NOOP\r\n")  # five BADs in a row end it
                assert noop[-1].startswith(b"N OK"), noop
                await assert_alive(gateway, since)
            login = await imap.imap(b"L", b"L LOGIN alice " + PASSWORD.encode() + b"\r\n")
            assert login[-1].startswith(b"L OK"), login
            for tag, (command, expected) in enumerate(AFTER_LOGIN):
                lines = await imap.imap(b"a%d" % tag, b"a%d " % tag + command + b"\r\n")
                assert lines and lines[-1].startswith(b"a%d " % tag + expected), (command, lines)
                if command.startswith((b"LIST", b"LSUB")) and b"&AAA" in command:
                    assert lines == lines[-1:], lines  # nothing listed
                await assert_alive(gateway, since)
            noop = await imap.imap(b"N", b"N NOOP\r\n")
            assert noop[-1].startswith(b"N OK"), noop


def _status(tag: bytes, reply: bytes) -> bytes:
    """OK, NO or BAD of a tagged reply."""
    return reply[len(tag) + 1 :].split(b" ", 1)[0]


async def test_dovecot_answers_the_same_lines_with_the_same_status(tmp_path: Path) -> None:
    compared = AFTER_LOGIN[: AFTER_LOGIN.index((b"ENABLE UTF8=ACCEPT", b"OK"))]
    mail = b"From: a@example.org\r\nTo: alice@example.org\r\nSubject: hi\r\n\r\nhello\r\n"
    async with running_dovecot(tmp_path) as dovecot:
        dovecot.place("1.test", mail)
        reader, writer = await asyncio.open_connection(
            dovecot.host, dovecot.port, ssl=dovecot.ssl_context()
        )
        connection = RawConnection(reader, writer)
        try:
            assert (await connection.line()).startswith(b"* OK")
            secret = dovecot.password.encode()
            login = await connection.imap(b"L", b"L LOGIN alice " + secret + b"\r\n")
            assert login[-1].startswith(b"L OK"), login
            for tag, (command, expected) in enumerate(compared):
                lines = await connection.imap(b"d%d" % tag, b"d%d " % tag + command + b"\r\n")
                ours = _status(b"a", b"a " + expected)
                assert _status(b"d%d" % tag, lines[-1]) == ours, (command, lines)
        finally:
            writer.close()
