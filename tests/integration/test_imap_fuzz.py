"""IMAP command lines, malformed and random, before and after login: always a reply.

Every line gets its tagged reply (OK, NO or BAD) or a deliberate `BYE` (too many
bad commands in a row), never `SERVERBUG` or a silent close; a NOOP afterwards
works, so the server keeps serving. The SEARCH charset cases replay the lines
that used to drop the connection (imap_view/search_charset.py); the mailbox-name
cases check the whole gateway alive after every line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import strategies as st

from gateway.server import Gateway
from tests.support.fuzzing import drawn, examples
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.imap_replay import TAG, imap_session, replay
from tests.support.liveness import baseline
from tests.support.threaded import gateway_in_thread

pytestmark = pytest.mark.fuzz


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    """No refusal or wait after failed logins: the fuzzer fails many, and that proves nothing."""
    async with running_gateway(
        database_url, tmp_path / "data", login_failures_per_address=1000, login_delay_seconds=0
    ) as running:
        yield running


async def alice_with_mail(api: Api) -> None:
    alice = await api.human("alice")
    await api.agent("builder")
    sent = await alice.post(
        "/api/v1/me/mail/send", json={"to": "alice@", "subject": "café", "body": "hello"}
    )
    assert sent.status_code == 200, sent.text


# --- the SEARCH charset defects -------------------------------------------------------

SEARCH_CASES = [
    # (command after the tag, what the tagged reply starts with)
    (b"SEARCH CHARSET UTF-8 SUBJECT {1+}\r\n\xc3\r\n", (b"BAD", b"NO [BADCHARSET")),
    (b'SEARCH SUBJECT "\xff"\r\n', (b"BAD", b"NO [BADCHARSET")),
    (b"SEARCH CHARSET US-ASCII SUBJECT {1+}\r\n\xe9\r\n", (b"BAD", b"NO [BADCHARSET")),
    (b"SEARCH CHARSET BOGUS ALL\r\n", (b"NO [BADCHARSET (UTF-8 US-ASCII)]",)),
    (b"SEARCH CHARSET BOGUS\r\n", (b"NO [BADCHARSET (UTF-8 US-ASCII)]",)),
    (b"UID SEARCH CHARSET BOGUS ALL\r\n", (b"NO [BADCHARSET (UTF-8 US-ASCII)]",)),
    (b'SEARCH CHARSET "\xe9" ALL\r\n', (b"NO [BADCHARSET (UTF-8 US-ASCII)]",)),
    (b"SEARCH CHARSET rot13 ALL\r\n", (b"NO [BADCHARSET (UTF-8 US-ASCII)]",)),
    # Still answered as before: valid strings in a supported charset.
    (b"SEARCH CHARSET UTF-8 SUBJECT {5+}\r\ncaf\xc3\xa9\r\n", (b"OK",)),
    (b"UID SEARCH CHARSET US-ASCII SUBJECT caf\r\n", (b"OK",)),
]


async def test_search_strings_bad_in_their_charset_get_a_reply(api: Api, gateway: Gateway) -> None:
    await alice_with_mail(api)
    async with imap_session(gateway, login=True) as imap:
        for command, expected in SEARCH_CASES:
            lines = await imap.imap(TAG, TAG + b" " + command)
            assert lines and lines[-1].startswith(TAG + b" "), (command, lines)
            assert lines[-1][len(TAG) + 1 :].startswith(expected), (command, lines)
            if expected == (b"OK",):
                assert any(line.startswith(b"* SEARCH 1") for line in lines), lines
            noop = await imap.imap(b"N", b"N NOOP\r\n")
            assert noop[-1].startswith(b"N OK"), (command, noop)


# --- random command lines -------------------------------------------------------------

COMMANDS = [
    b"CAPABILITY", b"NOOP", b"LOGIN", b"AUTHENTICATE X", b"STARTTLS", b"SELECT", b"EXAMINE",
    b"CREATE", b"DELETE", b"RENAME", b"SUBSCRIBE", b"UNSUBSCRIBE", b"LIST", b"LSUB",
    b"STATUS", b"APPEND", b"CHECK", b"CLOSE", b"UNSELECT", b"EXPUNGE", b"SEARCH",
    b"UID SEARCH", b"FETCH", b"UID FETCH", b"STORE", b"UID STORE", b"COPY", b"UID COPY",
    b"MOVE", b"UID MOVE", b"UID EXPUNGE", b"ID", b"ENABLE", b"NAMESPACE", b"GETQUOTAROOT",
    b"BOGUS", b"",
]  # fmt: skip
WORDS = [
    b"INBOX", b"Sent", b"Drafts", b"Trash", b"Sessions/x", b"\"Needs decision\"", b"*", b"%",
    b"1", b"1:*", b"*:1", b"0", b"4294967296", b"1,2,3:5", b"ALL", b"UNSEEN", b"SUBJECT",
    b"BODY", b"TEXT", b"FROM", b"CHARSET", b"UTF-8", b"US-ASCII", b"BOGUS", b"NOT", b"OR",
    b"SINCE", b"1-Jan-2026", b"32-Foo-99999", b"LARGER", b"99999999999999999999", b"(FLAGS)",
    b"(BODY[1.2.3]<0.9999999999>)", b"BODY.PEEK[HEADER.FIELDS (SUBJECT)]", b"RFC822.SIZE",
    b"ENVELOPE", b"BODYSTRUCTURE", b"+FLAGS", b"-FLAGS.SILENT", b"(\\Seen)", b"(\\Bogus \\\\)",
    b"(", b")", b"[", b"]", b"{", b"\"", b"\"\"", b"NIL", b"(MESSAGES UIDNEXT)", b"RETURN (ALL)",
    b"alice", PASSWORD.encode(),
]  # fmt: skip
_bytes = st.binary(max_size=12).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_token = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    _bytes,
    _bytes.map(lambda b: b'"' + b.replace(b'"', b"").replace(b"\\", b"") + b'"'),
    st.binary(max_size=20).map(lambda b: b"{%d+}\r\n%b" % (len(b), b)),  # LITERAL+, RFC 7888
    st.integers(-1, 2**70).map(lambda n: str(n).encode()),
)
_line = st.one_of(
    st.tuples(st.sampled_from(COMMANDS), st.lists(_token, max_size=6)).map(
        lambda t: b" ".join([t[0], *t[1]])
    ),
    st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
)


# A line ending in `{n}` or `{n+}` makes the server wait for n more bytes, as it
# should; literals come from `_token`, with exactly their bytes.
_WAITS_FOR_LITERAL = re.compile(rb"\{\d+\+?\}$")


@functools.cache
def command_lines(count: int) -> list[bytes]:
    """`count` command lines (after the tag) drawn by hypothesis; the same every CI run."""
    return drawn(_line.filter(lambda line: not _WAITS_FOR_LITERAL.search(line)), count)


# Found by `make test-long`: a name or password that is not UTF-8 was hashed with
# str.encode and the connection ended with SERVERBUG.
BEFORE_LOGIN = [
    (b"LOGIN {0+}\r\n {2+}\r\n\x0c\x8c", b"NO [AUTHENTICATIONFAILED]"),
    (b"LOGIN alice {2+}\r\n\xff\xfe", b"NO [AUTHENTICATIONFAILED]"),
    (b"LOGIN {2+}\r\n\xff\xfe x", b"NO [AUTHENTICATIONFAILED]"),
]


async def test_random_command_lines_always_get_a_reply(api: Api, gateway: Gateway) -> None:
    await alice_with_mail(api)
    async with imap_session(gateway, login=False) as imap:
        for line, expected in BEFORE_LOGIN:
            lines = await imap.imap(TAG, TAG + b" " + line + b"\r\n")
            assert lines and lines[-1].startswith(TAG + b" " + expected), (line, lines)
            assert (await imap.imap(b"N", b"N NOOP\r\n"))[-1].startswith(b"N OK")
    cases = command_lines(examples(300))
    for login in (False, True):
        await replay(gateway, cases, login=login)
    async with imap_session(gateway, login=True) as fresh:
        assert (await fresh.imap(b"N", b"N NOOP\r\n"))[-1].startswith(b"N OK")


# --- mailbox names ----------------------------------------------------------------------
# Every command that takes a mailbox, with names drawn from modified UTF-7's traps: shifts
# never closed (`&AAA`, which looped pymap's decoder forever), broken ones (`&'+,-`, which
# ended the connection), `&-`, encoded ASCII, lone surrogates, 8-bit octets, long names.
# After every line the whole gateway must still serve (tests/support/liveness.py): it
# runs in a thread, so a hung loop fails the check instead of hanging the test.

NAME_COMMANDS = [
    b"SELECT %b", b"EXAMINE %b", b"STATUS %b (MESSAGES UIDNEXT)", b"CREATE %b", b"DELETE %b",
    b"RENAME %b %b", b"SUBSCRIBE %b", b"UNSUBSCRIBE %b", b'LIST "" %b', b"LIST %b %b",
    b'LSUB "" %b', b'LIST (SUBSCRIBED) "" (%b %b)', b"APPEND %b {5+}\r\nhello", b"COPY 1 %b",
    b"MOVE 1 %b", b"UID COPY 1 %b", b"UID MOVE 1 %b", b"GETQUOTAROOT %b",
]  # fmt: skip
NAME_PIECES = [
    b"&", b"&-", b"&AAA", b"&'+,-", b"&Jjo", b"&Jjo-", b"&ZeVnLIqe-", b"&2D0-", b"&AGE-",
    b"&,,,,-", b"&A", b"-", b"*", b"%", b"/", b"INBOX", b"Sessions/", b"Sent", b"\xc3\xa9",
    b"\xff\xfe", b"\x00",
]  # fmt: skip
_name = st.one_of(
    st.lists(st.sampled_from(NAME_PIECES) | _bytes, min_size=1, max_size=6).map(b"".join),
    st.integers(1, 5000).map(lambda n: b"&" + b"A" * n),  # a long shift, never closed
    st.integers(1000, 20_000).map(lambda n: b"x" * n),  # over the name bound
)
_argument = st.one_of(
    _name.filter(lambda n: n and not re.search(rb"[\s(){\"\\\x00-\x1f\x7f]", n)),  # an atom
    _name.map(lambda n: b'"' + n.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'),
    _name.map(lambda n: b"{%d+}\r\n%b" % (len(n), n)),  # a literal (LITERAL+/-, RFC 7888)
)
_name_line = st.tuples(st.sampled_from(NAME_COMMANDS), _argument, _argument).map(
    lambda t: t[0] % t[1 : 1 + t[0].count(b"%b")]
)


@functools.cache
def name_lines(count: int) -> list[bytes]:
    """`count` command lines with mailbox arguments, the same every CI run."""
    return drawn(_name_line, count)


# The report's lines, first: each stopped the gateway or ended the connection.
REPORTED = [b"SELECT &AAA", b'LIST "" &AAA', b"STATUS &AAA (MESSAGES)", b'EXAMINE "&AAA"']
REPORTED += [b"SELECT &'+,-"]


async def test_mailbox_names_never_stop_the_gateway(tmp_path: Path) -> None:
    cases = REPORTED + name_lines(examples(20))
    with gateway_in_thread("sqlite", tmp_path, alice_with_mail) as (running, _):
        since = await baseline(running)
        for login in (False, True):
            await replay(running, cases, login=login, since=since)
