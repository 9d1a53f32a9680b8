"""SMTP replies as a strict client reads them:
an RFC 3463 code on every reply, the EHLO keywords, SMTPUTF8 refused clearly,
pipelining, and no log warning per connection."""

from __future__ import annotations

import asyncio
import base64
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from core.store.models import Mail
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.smtp import D, session

CODED = re.compile(r"^\d{3}[ -]\d\.\d{1,3}\.\d{1,3} ")
PLAIN_OK = base64.b64encode(f"\0jianf\0{PASSWORD}".encode()).decode()
PLAIN_BAD = base64.b64encode(b"\0jianf\0wrong-password").decode()

# Every kind of reply aiosmtpd gives by itself: out of order, syntax errors, unknown
# and bad commands, bad AUTH, too long lines, SMTPUTF8, before and after signing in.
WALK = [
    "EHLO",
    "HELO",
    "MAIL FROM:<jianf@agentmail.localhost>",
    "FOO",
    "",
    "NOOP",
    "EHLO client.example",
    "RCPT TO:<jianf@agentmail.localhost>",
    "DATA",
    "AUTH",
    "AUTH BOGUS",
    "AUTH PLAIN a b c",
    "AUTH PLAIN !!!notbase64",
    f"AUTH PLAIN {PLAIN_BAD}",
    f"AUTH PLAIN {PLAIN_OK}",
    f"AUTH PLAIN {PLAIN_OK}",
    "RCPT TO:<jianf@agentmail.localhost>",
    "DATA",
    "MAIL FROM:",
    "MAIL FROM:<jianf@agentmail.localhost> BODY=BOGUS",
    "MAIL FROM:<jianf@agentmail.localhost> SIZE=999999999999",
    "MAIL FROM:<jianf@agentmail.localhost> SMTPUTF8",
    "MAIL FROM:<jiänf@agentmail.localhost>",
    "MAIL FROM:<jianf@agentmail.localhost> FOO=bar",
    "MAIL FROM:<other@agentmail.localhost>",
    "MAIL FROM:<jianf@agentmail.localhost>",
    "MAIL FROM:<jianf@agentmail.localhost>",
    "RCPT TO:",
    "RCPT TO:<nobody@agentmail.localhost>",
    "RCPT TO:<x@example.com>",
    "RCPT TO:<bad..name@agentmail.localhost>",
    "RCPT TO:<jianf@agentmail.localhost> FOO=bar",
    "DATA",
    "VRFY jianf",
    "VRFY",
    "EXPN list",
    "HELP",
    "HELP FOO",
    "STARTTLS",
    "X" * 2000,
    "RSET now",
    "RSET",
    "DATA now",
    "QUIT now",
    "QUIT",
]


@pytest.fixture
async def sqlite_api(tmp_path: Path) -> AsyncIterator[Api]:
    """The protocol walk stores nothing: one backend is enough."""
    async with running_gateway(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "d") as gw:
        api = Api(gw)
        try:
            yield api
        finally:
            await api.close()


async def _reply(reader: asyncio.StreamReader) -> list[str]:
    lines = []
    while True:
        line = (await asyncio.wait_for(reader.readline(), 10)).decode().rstrip("\r\n")
        lines.append(line)
        if len(line) < 4 or line[3] != "-":
            return lines


async def test_every_reply_of_a_walk_through_aiosmtpd_carries_an_enhanced_code(
    sqlite_api: Api,
) -> None:
    await sqlite_api.human("jianf")
    reader, writer = await asyncio.open_connection("127.0.0.1", sqlite_api.gateway.smtp_port)
    try:
        greeting = await _reply(reader)
        assert greeting[0].startswith("220 ")  # RFC 2034 §3: the greeting has no code
        uncoded: list[tuple[str, str]] = []
        for command in WALK:
            writer.write(command.encode() + b"\r\n")
            lines = await _reply(reader)
            if command.startswith("EHLO client"):
                keywords = {line[4:].split()[0] for line in lines[1:]}
                assert {"PIPELINING", "ENHANCEDSTATUSCODES", "AUTH"} <= keywords, lines
                assert "SMTPUTF8" not in keywords
                continue  # RFC 2034 §3: the EHLO lines are keywords, not coded replies
            uncoded += [(command[:40], line) for line in lines if not CODED.match(line)]
            if command == "MAIL FROM:<jianf@agentmail.localhost> SMTPUTF8":
                assert lines == [
                    "555 5.6.7 SMTPUTF8 is not offered by this server (RFC 6531): send"
                    " the message without it; addresses of this gateway are ASCII"
                ]
            if command.startswith("MAIL FROM:<jiä"):
                assert lines[0].startswith("553 5.6.7 non-ASCII characters in a command")
            if command == "RCPT TO:<jianf@agentmail.localhost>":
                assert lines[0][:10] in ("530 5.7.0 ", "503 5.5.1 ")
        assert uncoded == []
    finally:
        writer.close()


async def test_a_line_over_998_characters_in_data_gets_500_with_its_code(sqlite_api: Api) -> None:
    await sqlite_api.human("jianf")
    client = await session(sqlite_api, "jianf", PASSWORD)
    try:
        await client.mail(f"jianf@{D}")
        await client.rcpt(f"jianf@{D}")
        code, text = await client.execute_command(b"DATA")
        assert (code, text.split()[0]) == (354, "End")  # RFC 2034 §3: no code on 354
        client.transport.write(b"Subject: " + b"x" * 1200 + b"\r\n\r\nbody\r\n.\r\n")  # type: ignore[union-attr]
        response = await client.protocol.read_response(timeout=10)  # type: ignore[union-attr]
        assert response.code == 500 and response.message.startswith("5.5.2 a line"), response
    finally:
        await client.quit()


async def test_a_pipelined_transaction_is_answered_in_order_and_stored(api: Api) -> None:
    await api.human("jianf")
    await api.human("bob")
    reader, writer = await asyncio.open_connection("127.0.0.1", api.gateway.smtp_port)
    try:
        await _reply(reader)
        writer.write(b"EHLO client.example\r\n")
        await _reply(reader)
        # RFC 2920 §3.1: MAIL, RCPT and DATA in one write, the message after 354.
        writer.write(
            f"AUTH PLAIN {PLAIN_OK}\r\nMAIL FROM:<jianf@{D}>\r\n"
            f"RCPT TO:<bob@{D}>\r\nRCPT TO:<nobody@{D}>\r\nDATA\r\n".encode()
        )
        replies = [(await _reply(reader))[0][:9] for _ in range(5)]
        assert replies == ["235 2.7.0", "250 2.1.0", "250 2.1.5", "550 5.1.1", "354 End d"]
        writer.write(b"Subject: pipelined\r\n\r\nin one go\r\n.\r\nQUIT\r\n")
        stored = (await _reply(reader))[0]
        assert stored == "250 2.0.0 1 mail stored", stored
        assert (await _reply(reader))[0].startswith("221 2.0.0")
    finally:
        writer.close()
    store = api.gateway.store
    assert store is not None
    mails = await store.read(lambda s: s.scalars(select(Mail)).all())
    assert [(m.to_name, m.subject) for m in mails] == [("bob", "pipelined")]


async def test_a_connection_and_auth_log_no_warning(
    sqlite_api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    await sqlite_api.human("jianf")
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            client = await session(sqlite_api, "jianf", PASSWORD)
            await client.noop()
            await client.quit()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
