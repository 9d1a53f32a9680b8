"""SMTP submission with real clients (smtplib in a thread, aiosmtplib) on both backends."""

from __future__ import annotations

import asyncio
import base64
import re
import smtplib
from pathlib import Path

import aiosmtplib
import pytest
from sqlalchemy import select, update

from core.store.models import Conversation, Mail
from core.store.raw_messages import originals_of
from tests.support.gateway import PASSWORD, Api, guess_budget_gateway, running_gateway
from tests.support.metrics import login_outcomes, scrape
from tests.support.raw_lines import raw_connection
from tests.support.smtp import D, agent_with_key, message, send, session
from tests.support.sse import open_stream

BUILDER = f"builder+ModelRouter@{D}"


async def _original(api: Api, mail: Mail) -> bytes | None:
    store = api.gateway.store
    assert store is not None
    return (await store.read(lambda s: originals_of(s, [mail.seq]))).get(mail.seq)


async def _mails(api: Api) -> list[Mail]:
    store = api.gateway.store
    assert store is not None
    return list(await store.read(lambda s: s.scalars(select(Mail).order_by(Mail.seq)).all()))


@pytest.mark.parametrize("method", ["PLAIN", "LOGIN"])
async def test_auth_with_password_user_key_and_agent_key(api: Api, method: str) -> None:
    human = await api.human("jianf")
    await agent_with_key(api, "builder")
    user_key = await api.user_key(human)
    await send(api, "jianf", PASSWORD, message(f"jianf@{D}", BUILDER, "by password"), method)
    await send(api, f"jianf@{D}", user_key, message(f"jianf@{D}", BUILDER, "by key"), method)
    _, agent_key = await agent_with_key(api, "critic")
    await send(api, "critic", agent_key, message(f"critic@{D}", f"jianf@{D}", "by agent"), method)
    assert [m.subject for m in await _mails(api)] == ["by password", "by key", "by agent"]
    assert (await _mails(api))[2].from_name == "critic"


async def test_bad_auth_is_535_and_mail_before_auth_is_530(api: Api) -> None:
    await api.human("jianf")
    port = api.gateway.smtp_port
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, start_tls=False)
    await client.connect()
    try:
        with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
            await client.login("jianf", "wrong")
        assert refused.value.code == 535
        code, text = await client.execute_command(b"MAIL", b"FROM:<jianf@" + D.encode() + b">")
        assert (code, text.split()[0]) == (530, "5.7.0")
    finally:
        await client.quit()


async def test_spoofing_relay_and_unknown_recipients_are_refused(api: Api) -> None:
    await api.human("jianf")
    await api.human("other")
    await api.agent("builder")
    client = await session(api, "jianf", PASSWORD)
    try:
        code, text = await client.execute_command(f"MAIL FROM:<other@{D}>".encode())
        assert code == 553 and text.startswith("5.7.1") and "not you" in text
        code, text = await client.execute_command(f"MAIL FROM:<jianf+box@{D}>".encode())
        assert code == 250, text  # any session part of yourself is allowed
        code, text = await client.execute_command(b"RCPT TO:<someone@example.com>")
        assert code == 550
        assert text == f"5.7.1 relaying denied: 'someone@example.com' is not a mailbox of {D}"
        code, text = await client.execute_command(f"RCPT TO:<nobody@{D}>".encode())
        assert code == 550 and text.startswith("5.1.1") and "nobody" in text
        code, text = await client.execute_command(
            f"RCPT TO:<builder+ModelRouter+nosuch@{D}>".encode()
        )
        assert code == 550 and text.startswith("5.1.1") and "nosuch" in text
        code, text = await client.execute_command(f"RCPT TO:<builder+Elsewhere@{D}>".encode())
        assert code == 550 and text.startswith("5.1.1") and "Elsewhere" in text
        code, text = await client.execute_command(f"RCPT TO:<bad..name@{D}>".encode())
        assert code == 501 and text.startswith("5.1.3")
    finally:
        await client.quit()
    assert await _mails(api) == []


async def test_from_header_must_be_the_sender(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    with pytest.raises(smtplib.SMTPDataError) as refused:
        await send(api, "jianf", PASSWORD, message(f"admin@{D}", BUILDER), sender=f"jianf@{D}")
    assert refused.value.smtp_code == 553
    assert await _mails(api) == []


async def test_new_conversation_reaches_the_agents_stream_and_replies_thread(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as stream:
        await send(
            api,
            "jianf",
            PASSWORD,
            message(
                f"jianf@{D}",
                f"builder+ModelRouter+new@{D}",
                "Fix the router",
                "please",
                Message_ID="<first@client.example>",
            ),
        )
        event = await stream.next_of("new_mail")
    first = event.json
    assert first["subject"] == "Fix the router"
    reply = message(
        f"jianf@{D}",
        BUILDER,
        "Re: Fix the router",
        "and the tests",
        In_Reply_To="<first@client.example>",
        Message_ID="<second@client.example>",
        Date="Tue, 01 Dec 2026 10:00:00 +0000",  # as clients send (else one is added)
    )
    await send(api, "jianf", PASSWORD, reply)
    mails = await _mails(api)
    assert [m.message_id for m in mails] == ["<first@client.example>", "<second@client.example>"]
    assert mails[1].session_id == first["session_id"]
    assert mails[1].parent_id == first["mail_id"]
    assert mails[1].body.strip() == "and the tests"
    assert await _original(api, mails[1]) == reply.as_bytes(
        policy=reply.policy.clone(linesep="\r\n")
    )


async def test_cc_rides_on_the_mail_to_the_to_recipient(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    await api.agent("critic", [("repo", "/srv/repo")])
    await send(api, "jianf", PASSWORD, message(f"jianf@{D}", BUILDER, "with cc", Cc=f"critic@{D}"))
    [mail] = await _mails(api)
    assert mail.to_name == "builder" and mail.cc == ["critic@repo"]


async def test_oversize_is_552(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    limit = api.gateway.settings.smtp_max_message_bytes
    api.gateway.settings.smtp_max_message_bytes = limit  # documented default
    big = message(f"jianf@{D}", BUILDER, "big", "x" * 70 + ("\n" + "y" * 70) * (limit // 70))
    with pytest.raises(smtplib.SMTPException) as refused:
        await send(api, "jianf", PASSWORD, big)
    assert "5.3.4" in str(refused.value)
    assert await _mails(api) == []


async def test_an_unbound_agent_key_cannot_sign_in(api: Api) -> None:
    key = await api.agent_key()
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=api.gateway.smtp_port, start_tls=False)
    await client.connect()
    try:
        with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
            await client.login("builder", key)
        assert refused.value.code == 535 and "register" in refused.value.message
    finally:
        await client.quit()


async def test_rate_limit_is_451_and_exhausted_budget_550_at_rcpt(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(
        database_url, tmp_path / "data", new_conversations_per_hour=1
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            _, key = await agent_with_key(api, "builder")
            await send(api, "builder", key, message(f"builder@{D}", f"jianf@{D}", "one"))
            client = await session(api, "builder", key)
            try:
                await client.execute_command(f"MAIL FROM:<builder@{D}>".encode())
                code, text = await client.execute_command(f"RCPT TO:<jianf++new@{D}>".encode())
                assert code == 451 and text.startswith("4.7.1")
                # The retry time, said once (it was "try again in N s (retry after N s)").
                assert len(re.findall(r"\d+ s\b", text)) == 1 and "try again in" in text, text
                store = gateway.store
                assert store is not None
                await store.write(lambda s: s.execute(update(Conversation).values(budget_limit=1)))
                code, text = await client.execute_command(f"RCPT TO:<jianf@{D}>".encode())
                assert code == 550 and text.startswith("5.7.1") and "budget" in text
            finally:
                await client.quit()
        finally:
            await api.close()


async def _mail_and_rcpt(client: aiosmtplib.SMTP) -> None:
    code, text = await client.execute_command(f"MAIL FROM:<jianf@{D}>".encode())
    assert code == 250, text
    code, text = await client.execute_command(f"RCPT TO:<{BUILDER}>".encode())
    assert code == 250, text


async def test_oversize_data_is_552_and_a_cut_connection_stores_nothing(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    limit = api.gateway.settings.smtp_max_message_bytes
    big = message(f"jianf@{D}", BUILDER, "big", ("y" * 70 + "\n") * (limit // 70 + 1))
    client = await session(api, "jianf", PASSWORD)
    try:
        await _mail_and_rcpt(client)  # no SIZE parameter: refused after the data
        with pytest.raises(aiosmtplib.SMTPDataError) as refused:
            await client.data(big.as_bytes())
        assert refused.value.code == 552 and refused.value.message.startswith("5.3.4")
    finally:
        await client.quit()
    client = await session(api, "jianf", PASSWORD)
    await _mail_and_rcpt(client)
    code, _ = await client.execute_command(b"DATA")
    assert code == 354
    client.transport.write(b"Subject: cut\r\n\r\nhalf a message\r\n")  # type: ignore[union-attr]
    client.close()
    await asyncio.sleep(0.2)
    assert await _mails(api) == []


async def test_repeated_failed_logins_are_refused_then_slowed(
    database_url: str, tmp_path: Path
) -> None:
    """The one guess budget over SMTP, seen in the server's own account (its replies and
    `/metrics`), never by a stopwatch: after two failures from one address the next AUTH
    from it is refused unchecked (454 4.7.0), even with the right password; from another
    address the account's failures slow the right password, which still logs in."""
    async with guess_budget_gateway(database_url, tmp_path) as (gateway, api):
        before = await scrape(api.client())
        async with raw_connection(gateway.smtp_port, source="127.0.0.2") as smtp:
            assert (await smtp.smtp_reply())[-1].startswith(b"220")
            assert (await smtp.smtp(b"EHLO client.example\r\n"))[-1].startswith(b"250")
            for secret in (b"bad-1", b"bad-2"):
                auth = b"AUTH PLAIN " + base64.b64encode(b"\0jianf\0" + secret) + b"\r\n"
                assert (await smtp.smtp(auth))[-1].startswith(b"535 5.7.8")
            right = base64.b64encode(b"\0jianf\0" + PASSWORD.encode())
            reply = await smtp.smtp(b"AUTH PLAIN " + right + b"\r\n")
            assert reply[-1].startswith(b"454 4.7.0"), reply  # RFC 4954 §6: try later
        client = await session(api, "jianf", PASSWORD)  # from 127.0.0.1
        await client.quit()
        after = await scrape(api.client())
        outcomes = login_outcomes(before, after, "smtp")
        assert outcomes == {"failed": 2, "refused": 1, "ok": 1, "slowed": 1}, outcomes


async def test_a_reply_to_dot_new_opens_a_new_conversation_linked_to_its_parent(
    api: Api,
) -> None:
    """ARCHITECTURE.md, threading: `.new` wins over In-Reply-To; the parent link crosses."""
    await api.human("jianf")
    await api.agent("builder")
    first = message(
        f"jianf@{D}", BUILDER, "Fix the router", "please", Message_ID="<first@client.example>"
    )
    await send(api, "jianf", PASSWORD, first)
    branch = message(
        f"jianf@{D}",
        f"builder+ModelRouter+new@{D}",
        "A side question",
        "separately: the docs",
        In_Reply_To="<first@client.example>",
        References="<first@client.example>",
    )
    await send(api, "jianf", PASSWORD, branch)
    parent, child = await _mails(api)
    assert child.session_id != parent.session_id
    assert child.parent_id == parent.id
