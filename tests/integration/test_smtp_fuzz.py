"""SMTP fuzzed against a real gateway: command lines before and after AUTH, and hostile
messages through DATA.

Every line gets one complete reply; none is aiosmtpd's "500 Error: (SomeException)"
(an exception in our handler) and none a 4xx for a message that can never be
accepted; a NOOP afterwards works. Messages come from tests/support/mime_fuzz.py:
each is stored (250) or refused for good (5xx). Pathological ones (deep MIME,
many parts, long folded headers, soft line breaks, deep and long HTML) are all
stored, and after each the whole process still answers HTTP, SMTP and IMAP.
"""

from __future__ import annotations

import asyncio
import base64
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from hypothesis import strategies as st

from gateway.server import Gateway
from tests.support import liveness
from tests.support.fuzzing import drawn, examples
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.mime_fuzz import messages, pathological
from tests.support.raw_lines import RawConnection, raw_connection

pytestmark = pytest.mark.fuzz


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    """No refusal or wait after failed logins: the fuzzer fails many, and that proves nothing."""
    async with running_gateway(
        database_url, tmp_path / "data", login_failures_per_address=1000, login_delay_seconds=0
    ) as running:
        yield running


D = "agentmail.localhost"
AUTH = b"AUTH PLAIN " + base64.b64encode(b"\0alice\0" + PASSWORD.encode()) + b"\r\n"


@asynccontextmanager
async def smtp_session(gateway: Gateway, *, login: bool) -> AsyncIterator[RawConnection]:
    async with raw_connection(gateway.smtp_port) as smtp:
        assert (await smtp.smtp_reply())[-1].startswith(b"220")
        assert (await smtp.smtp(b"EHLO fuzz.example\r\n"))[-1].startswith(b"250")
        if login:
            assert (await smtp.smtp(AUTH))[-1].startswith(b"235")
        yield smtp


def _code(lines: list[bytes]) -> int:
    last = lines[-1] if lines else b""
    return int(last[:3]) if last[:3].isdigit() else 0


def _clear(lines: list[bytes]) -> bool:
    """One reply with a status code, not an exception from our handler."""
    return 200 <= _code(lines) < 600 and not any(b"500 Error: (" in line for line in lines)


def _says_goodbye(lines: list[bytes]) -> bool:
    """421 (RFC 5321 §3.8), or aiosmtpd's 502 after too many unknown commands."""
    return _code(lines) == 421 or b"goodbye" in lines[-1].lower()


COMMANDS = [
    b"EHLO", b"HELO", b"MAIL FROM:", b"RCPT TO:", b"DATA", b"RSET", b"NOOP", b"VRFY", b"EXPN",
    b"HELP", b"AUTH PLAIN", b"AUTH LOGIN", b"AUTH CRAM-MD5", b"STARTTLS", b"BDAT", b"ETRN",
    b"BOGUS", b"",
]  # fmt: skip
WORDS = [
    b"<alice@" + D.encode() + b">", b"<builder+ModelRouter@" + D.encode() + b">",
    b"<builder+ModelRouter+new@" + D.encode() + b">", b"<x@example.com>", b"<>", b"<",
    b"<@relay:a@b>", b"SIZE=99999999999999", b"BODY=8BITMIME", b"SMTPUTF8", b"AUTH=<>",
    b"<caf\xc3\xa9@" + D.encode() + b">", b"<\xff@" + D.encode() + b">", b"=", b"AGFsaWNl",
    b"!!!", b"*",
]  # fmt: skip
_bytes = st.binary(max_size=16).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_line = st.one_of(
    st.tuples(st.sampled_from(COMMANDS), st.lists(st.sampled_from(WORDS) | _bytes, max_size=4)).map(
        lambda t: b" ".join([t[0], *t[1]])
    ),
    _bytes,
    st.integers(500, 3000).map(lambda n: b"NOOP " + b"x" * n),  # over RFC 5321's 512
)


@functools.cache
def command_lines(count: int) -> list[bytes]:
    return drawn(_line.filter(lambda line: not line.upper().startswith(b"QUIT")), count)


@functools.cache
def fuzzed_messages(count: int, hostile: bool = False) -> list[bytes]:
    return drawn(pathological if hostile else messages, count)


async def _command(smtp: RawConnection, line: bytes) -> list[bytes]:
    lines = await smtp.smtp(line + b"\r\n")
    if _code(lines) == 354:  # DATA accepted: end an empty message
        lines = await smtp.smtp(b".\r\n")
    elif _code(lines) == 334:  # an AUTH challenge: cancel it (RFC 4954 §4)
        lines = await smtp.smtp(b"*\r\n")
    return lines


async def _replay_lines(gateway: Gateway, cases: list[bytes], *, login: bool) -> None:
    session = smtp_session(gateway, login=login)
    smtp = await session.__aenter__()
    try:
        for line in cases:
            lines = await _command(smtp, line)
            assert _clear(lines), (line, lines)
            noop = await smtp.smtp(b"NOOP\r\n")
            if not noop and _says_goodbye(lines):  # the server ended the session, saying so
                await session.__aexit__(None, None, None)
                session = smtp_session(gateway, login=login)
                smtp = await session.__aenter__()
                continue
            assert _code(noop) == 250, (line, lines, noop)
    finally:
        await session.__aexit__(None, None, None)


async def test_random_command_lines_always_get_a_clear_reply(api: Api, gateway: Gateway) -> None:
    await api.human("alice")
    cases = command_lines(examples(200))
    for login in (False, True):
        await _replay_lines(gateway, cases, login=login)


def _data(raw: bytes) -> bytes:
    """The DATA payload: dot-stuffed lines (RFC 5321 §4.5.2), then the end mark."""
    lines = raw.replace(b"\r\n", b"\n").split(b"\n")
    stuffed = b"\r\n".join(b"." + line if line.startswith(b".") else line for line in lines)
    return stuffed + b"\r\n.\r\n"


async def test_hostile_messages_are_stored_or_refused_for_good(api: Api, gateway: Gateway) -> None:
    await api.human("alice")
    codes: list[int] = []
    async with smtp_session(gateway, login=True) as smtp:
        for raw in fuzzed_messages(examples(60)):
            assert _code(await smtp.smtp(b"MAIL FROM:<alice@" + D.encode() + b">\r\n")) == 250
            assert _code(await smtp.smtp(b"RCPT TO:<alice@" + D.encode() + b">\r\n")) == 250
            assert _code(await smtp.smtp(b"DATA\r\n")) == 354
            reply = await smtp.smtp(_data(raw))
            assert (_clear(reply) and _code(reply) < 400) or _code(reply) >= 500, (raw, reply)
            codes.append(_code(reply))
            assert _code(await smtp.smtp(b"RSET\r\n")) == 250
    print(sorted(codes))
    assert codes.count(250) >= len(codes) // 4, codes  # most of them are mail, after all


# Generous: a reply slower than this is a hang, not load.
ANSWER_SECONDS = 60.0


async def test_pathological_messages_are_stored_and_the_gateway_keeps_answering(
    api: Api, gateway: Gateway
) -> None:
    await api.human("alice")
    cases = fuzzed_messages(examples(12), hostile=True)  # drawn before: drawing blocks the loop
    since = await liveness.baseline(gateway)
    async with smtp_session(gateway, login=True) as smtp:
        for raw in cases:
            assert _code(await smtp.smtp(b"MAIL FROM:<alice@" + D.encode() + b">\r\n")) == 250
            assert _code(await smtp.smtp(b"RCPT TO:<alice@" + D.encode() + b">\r\n")) == 250
            assert _code(await smtp.smtp(b"DATA\r\n")) == 354
            await smtp.send(_data(raw))
            async with asyncio.timeout(ANSWER_SECONDS):
                reply = await smtp.reader.readline()
            assert reply.startswith(b"250 "), (raw[:300], len(raw), reply)
            await liveness.assert_alive(gateway, since)
