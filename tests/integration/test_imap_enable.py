"""ENABLE (RFC 5161), NAMESPACE (RFC 2342), UNSELECT (RFC 3691) and UTF8=ACCEPT (RFC 6855):
Evolution sends `ENABLE UTF8=ACCEPT` on every login, and each command is answered
as its RFC says, never `BAD Unknown command`."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from imapclient import IMAPClient

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap

SUBJECT = "排查登录问题"


async def agent_mails(agent: httpx.AsyncClient, subject: str, **extra: Any) -> dict[str, Any]:
    body = {"to": "jianf@", "subject": subject, "body": f"about {subject}", **extra}
    return ok(await agent.post("/api/v1/mail/send", json=body))


async def test_enable_and_namespace(api: Api) -> None:
    await api.human("jianf")
    raw, alone = (
        await RawImap.open(api.gateway.imap_port),
        await RawImap.open(api.gateway.imap_port),
    )
    try:
        before = await raw.command(b"a ENABLE CONDSTORE")
        assert before[-1].startswith(b"a BAD"), before  # authenticated state only
        await raw.login("jianf")
        first = await raw.command(b"b ENABLE condstore QRESYNC UTF8=ACCEPT X-NOT-A-THING")
        assert first == [b"* ENABLED CONDSTORE QRESYNC UTF8=ACCEPT\r\n", first[-1]], first
        assert first[-1].startswith(b"b OK"), first
        again = await raw.command(b"c ENABLE QRESYNC CONDSTORE")  # listed once only
        assert again[0] == b"* ENABLED\r\n" and again[-1].startswith(b"c OK"), again
        bad = await raw.command(b"d ENABLE")
        assert bad[-1].startswith(b"d BAD"), bad
        # RFC 7162 §3.2.3: enabling QRESYNC implies CONDSTORE.
        await alone.login("jianf")
        assert (await alone.command(b"a ENABLE QRESYNC"))[0] == b"* ENABLED QRESYNC\r\n"
        assert (await alone.command(b"b ENABLE CONDSTORE"))[0] == b"* ENABLED\r\n"
        reply = await raw.command(b"n NAMESPACE")
        assert reply[0] == b'* NAMESPACE (("" "/")) NIL NIL\r\n', reply
        assert reply[-1].startswith(b"n OK"), reply
    finally:
        await raw.close()
        await alone.close()

    def with_imapclient() -> Any:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as client:
            client.login("jianf", PASSWORD)
            return client.namespace()

    namespace = await asyncio.to_thread(with_imapclient)
    assert namespace.personal == (("", "/"),)
    assert namespace.other is None and namespace.shared is None


async def test_unselect_leaves_without_expunging(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, "keep me")
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        early = await raw.command(b"a UNSELECT")
        assert early[-1].startswith(b"a BAD"), early  # nothing selected
        await raw.command(b"b SELECT INBOX")
        stored = await raw.command(b"c STORE 1 +FLAGS.SILENT (\\Deleted)")
        assert stored[-1].startswith(b"c OK"), stored
        left = await raw.command(b"d UNSELECT")
        assert left == [left[-1]] and left[-1].startswith(b"d OK"), left
        after = await raw.command(b"e FETCH 1 FLAGS")
        assert after[-1].startswith(b"e BAD"), after  # no mailbox selected any more
        again = await raw.command(b"f EXAMINE INBOX")
        assert b"* 1 EXISTS\r\n" in again, again  # CLOSE would have moved it to Trash
        assert (await raw.command(b"g UNSELECT"))[-1].startswith(b"g OK")
    finally:
        await raw.close()


async def _envelope_line(raw: RawImap) -> bytes:
    await raw.command(b"s EXAMINE INBOX")
    return b"".join(await raw.command(b"f FETCH 1 (ENVELOPE)"))


async def test_utf8_accept_switches_envelope_to_utf8_for_that_session_only(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    await agent_mails(builder, SUBJECT)
    plain, utf8 = (
        await RawImap.open(api.gateway.imap_port),
        await RawImap.open(api.gateway.imap_port),
    )
    try:
        await plain.login("jianf")
        await utf8.login("jianf")
        before = await _envelope_line(utf8)
        assert SUBJECT.encode() not in before and b"=?utf-8?" in before.lower(), before
        assert (await utf8.command(b"e ENABLE UTF8=ACCEPT"))[0] == b"* ENABLED UTF8=ACCEPT\r\n"
        after = await _envelope_line(utf8)
        assert SUBJECT.encode() in after and b"=?utf-8?" not in after.lower(), after
        other = await _envelope_line(plain)  # another session of the same human: 7-bit still
        assert SUBJECT.encode() not in other and b"=?utf-8?" in other.lower(), other
    finally:
        await plain.close()
        await utf8.close()

    def with_imapclient(enable: bool) -> bytes:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as client:
            client.login("jianf", PASSWORD)
            if enable:  # imapclient allows ENABLE before SELECT only (RFC 5161 §3.1)
                assert client.enable("UTF8=ACCEPT") == [b"UTF8=ACCEPT"]
            client.select_folder("INBOX", readonly=True)
            subject: bytes = client.fetch([1], ["ENVELOPE"])[1][b"ENVELOPE"].subject
            return subject

    encoded, decoded = await asyncio.gather(
        asyncio.to_thread(with_imapclient, False), asyncio.to_thread(with_imapclient, True)
    )
    assert encoded.lower().startswith(b"=?utf-8?")
    assert decoded.decode("utf-8") == SUBJECT
