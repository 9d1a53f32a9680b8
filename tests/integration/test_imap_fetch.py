"""IMAP FETCH, SEARCH and STORE with imaplib: bytes, structure, sections, shared `\\Seen`."""

from __future__ import annotations

import asyncio
import base64
import re
import smtplib
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import httpx
from sqlalchemy import select

from core.store.models import Mail, RawMessage
from tests.integration.test_tree_statements import quiet_api, statements
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import Imap, fetched, imap_login

D = "agentmail.localhost"
ATTACHMENT = bytes(range(256)) * 4
__all__ = ["quiet_api"]  # the fixture, imported for the statement-count test


def submitted_with_attachment() -> EmailMessage:
    message = EmailMessage()
    message["From"] = f"bob@{D}"
    message["To"] = f"jianf@{D}"
    message["Subject"] = "Report with data"
    message["Message-ID"] = "<report@client.example>"
    # A mail client always sends Date: (without one, the gateway adds it, RFC 6409 §8.2).
    message["Date"] = format_datetime(datetime.now(UTC))  # now: mutt sorts by date
    message["X-Custom"] = "kept as it was"
    message.set_content("Numbers attached.\nSecond line.\n")
    message.add_attachment(
        ATTACHMENT, maintype="application", subtype="octet-stream", filename="data.bin"
    )
    message.set_boundary("test-boundary-1")  # else each serialisation draws a new one
    return message


def _submit(port: int, message: EmailMessage) -> None:
    _submit_as(port, "bob", message)


def _submit_as(port: int, name: str, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.login(name, PASSWORD)
        client.send_message(message)


async def submit(api: Api, message: EmailMessage) -> bytes:
    """Send by SMTP as bob; the bytes the gateway stored."""
    await asyncio.to_thread(_submit, api.gateway.smtp_port, message)
    store = api.gateway.store
    assert store is not None
    query = (
        select(RawMessage.data)
        .join(Mail, Mail.raw_sha256 == RawMessage.sha256)
        .where(Mail.message_id == message["Message-ID"])
    )
    raw = await store.read(lambda s: s.scalar(query))
    assert raw is not None
    return bytes(raw)


async def agent_mail(agent: httpx.AsyncClient, subject: str, body: str = "hi") -> dict[str, Any]:
    payload = {"to": "jianf@", "subject": subject, "body": body}
    return ok(await agent.post("/api/v1/mail/send", json=payload))


async def fetch_one(imap: Imap, what: str, uid: int = 1) -> dict[str, Any]:
    return fetched(await imap.uid("FETCH", str(uid), what))[1]


async def test_an_smtp_mail_is_served_byte_for_byte(api: Api) -> None:
    await api.human("jianf")
    await api.human("bob")
    message = submitted_with_attachment()
    raw = await submit(api, message)
    assert raw == message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    header, _, _ = raw.partition(b"\r\n\r\n")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        got = await fetch_one(imap, "(BODY.PEEK[] BODY.PEEK[HEADER] RFC822.SIZE)")
        assert got["BODY[]"] == raw
        assert got["BODY[HEADER]"] == header + b"\r\n\r\n"
        assert re.search(rb"RFC822.SIZE (\d+)", got["raw"]).group(1) == str(len(raw)).encode()
        got = await fetch_one(imap, "(BODY.PEEK[]<0.10> BODY.PEEK[]<10.20>)")
        assert got["BODY[]<0>"] == raw[:10]
        assert got["BODY[]<10>"] == raw[10:30]


async def test_bodystructure_sizes_are_the_sizes_of_the_part_bodies(api: Api) -> None:
    """RFC 3501 §7.4.2: a part's size counts its body, not its MIME headers."""
    await api.human("jianf")
    await api.human("bob")
    await submit(api, submitted_with_attachment())
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        got = await fetch_one(imap, "(BODYSTRUCTURE BODY.PEEK[1] BODY.PEEK[2] BODY.PEEK[2.MIME])")
    structure = got["raw"].decode()
    text, attachment = got["BODY[1]"], got["BODY[2]"]
    lines = text.count(b"\r\n")
    assert f'"text" "plain" ("charset" "utf-8") NIL NIL "7bit" {len(text)} {lines}' in structure
    assert f'"base64" {len(attachment)}' in structure
    assert base64.b64decode(attachment) == ATTACHMENT
    assert b"filename" in got["BODY[2.MIME]"] and b"data.bin" in got["BODY[2.MIME]"]
    assert '"mixed"' in structure


async def test_a_mail_born_in_the_api_is_rendered_the_same_every_time(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    sent = await agent_mail(builder, "Rendered", "Some **bold** text")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        first = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        again = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        envelope = (await fetch_one(imap, "(ENVELOPE)"))["raw"]
    assert first == again
    parsed = message_from_bytes(first, policy=policy.default)
    assert parsed["Subject"] == "Rendered"
    assert parsed["X-AgentMail-Mail-Id"] == sent["mail_id"]
    assert "Some **bold** text" in parsed.get_body(("plain",)).get_content()
    assert b'"Rendered"' in envelope and b"builder+ModelRouter" in envelope
    assert f'ENVELOPE ("{parsed["Date"]}" "Rendered"'.encode() in envelope  # as written


async def test_fetching_the_body_marks_it_seen_everywhere(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    sent = await agent_mail(builder, "read me")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")  # the first SELECT since it came: \Recent here
        assert (await fetch_one(imap, "(FLAGS)"))["FLAGS"] == {"\\Recent"}
        await imap.uid("FETCH", "1", "(BODY[])")
        assert (await fetch_one(imap, "(FLAGS)"))["FLAGS"] == {"\\Seen", "\\Recent"}
    mail = ok(await jianf.get(f"/api/v1/me/mail/{sent['mail_id']}"))
    assert mail["status"] == "read"


async def test_seen_is_shared_with_rest_both_ways(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = await agent_mail(builder, "one")
    second = await agent_mail(builder, "two")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        await imap.uid("STORE", "1", "+FLAGS", "(\\Seen)")
        mail = ok(await jianf.get(f"/api/v1/me/mail/{first['mail_id']}"))
        assert mail["status"] == "read"
        ok(await jianf.post(f"/api/v1/me/mail/{second['mail_id']}/read"))
        noop = await imap.ok("noop")
        assert noop  # an untagged FETCH tells the client about the change
        assert await imap.search_uids("SEEN") == [1, 2]
        await imap.uid("STORE", "1:2", "-FLAGS", "(\\Seen)")
        assert await imap.search_uids("UNSEEN") == [1, 2]
    inbox = ok(await jianf.get("/api/v1/me/mail/inbox", params={"status": "unread"}))
    assert inbox["total"] == 2


async def test_flagged_and_deleted_are_kept_across_sessions(api: Api) -> None:
    """`\\Deleted` is kept across sessions, like `\\Flagged`."""
    await api.human("jianf")
    await agent_mail(await api.agent("builder"), "flags")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        await imap.uid("STORE", "1", "+FLAGS", "(\\Flagged \\Seen \\Deleted)")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        assert (await fetch_one(imap, "(FLAGS)"))["FLAGS"] == {"\\Seen", "\\Flagged", "\\Deleted"}


async def test_uid_search(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    await agent_mail(builder, "Deploy plan", "roll out the canary first")
    await submit(api, submitted_with_attachment())  # from bob, X-Custom header
    third = await agent_mail(builder, "Status", "all green")
    ok(await jianf.post(f"/api/v1/me/mail/{third['mail_id']}/read"))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        cases: list[tuple[tuple[str, ...], list[int]]] = [
            (("ALL",), [1, 2, 3]),
            (("FROM", "bob"), [2]),
            (("FROM", '"builder+ModelRouter"'), [1, 3]),
            (("SUBJECT", "deploy"), [1]),
            (("UNSEEN",), [1, 2]),
            (("SEEN",), [3]),
            (("OR", "SUBJECT", "status", "FROM", "bob"), [2, 3]),
            (("HEADER", "X-Custom", '"kept as it was"'), [2]),
            (("BODY", "canary"), [1]),
            (("TEXT", "green"), [3]),
            (("TEXT", "Report"), [2]),  # TEXT covers the header too
            (("SINCE", "1-Jan-2020"), [1, 2, 3]),
            (("BEFORE", "1-Jan-2020"), []),
            (("NOT", "FROM", "bob"), [1, 3]),
        ]
        for criteria, expected in cases:
            assert await imap.search_uids(*criteria) == expected, criteria


async def test_fetch_and_store_use_set_queries(quiet_api: Api) -> None:
    """The statements a FETCH or STORE runs do not grow with the number of messages."""
    api = quiet_api
    await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(12):
        await agent_mail(builder, f"mail {n}")
    store = api.gateway.store
    assert store is not None
    counts = {}
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        for span in ("1:2", "1:12"):
            # Each FETCH after a STORE: the STORE's commit wakes the session, so both
            # FETCHes also read what changed (a session nothing woke reads no changes).
            with statements(store) as seen:
                await imap.ok("store", span, "+FLAGS", "(\\Seen)")
            counts[("store", span)] = len(seen)
            with statements(store) as seen:
                await imap.ok("fetch", span, "(FLAGS ENVELOPE BODY.PEEK[])")
            counts[("fetch", span)] = len(seen)
    assert counts[("fetch", "1:2")] == counts[("fetch", "1:12")], counts
    assert counts[("store", "1:2")] == counts[("store", "1:12")], counts


async def test_append_to_sent_of_a_mail_sent_by_smtp_adds_no_duplicate(api: Api) -> None:
    """Clients save their sent copy by APPEND after submitting it by SMTP."""
    await api.human("jianf")
    await api.agent("builder")
    message = EmailMessage()
    message["From"] = f"jianf@{D}"
    message["To"] = f"builder+ModelRouter@{D}"
    message["Subject"] = "sent by a client"
    message["Message-ID"] = "<sent-copy@client.example>"
    message.set_content("the copy")
    await asyncio.to_thread(_submit_as, api.gateway.smtp_port, "jianf", message)
    copy = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    async with imap_login(api.gateway, "jianf") as imap:
        typ, data = await imap("append", "Sent", "(\\Seen)", None, copy)
        assert typ == "OK" and re.search(rb"APPENDUID \d+ 1\]", data[0]), data
        await imap.ok("select", "Sent")
        assert await imap.search_uids("ALL") == [1]
        assert await imap.search_uids("ALL") == [1]
        # A copy of a mail sent elsewhere is a message the person files: a new one.
        stranger = copy.replace(b"<sent-copy@client.example>", b"<never-sent@client.example>")
        typ, data = await imap("append", "Sent", None, None, stranger)
        assert typ == "OK" and re.search(rb"APPENDUID \d+ 2\]", data[0]), data
        await imap.ok("noop")
        assert await imap.search_uids("ALL") == [1, 2]


async def test_cached_contents_follow_renames_and_decisions(api: Api) -> None:
    """Parsed contents are cached across sessions by what they are made from."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "Merge?", "options": ["yes", "no"]},
        )
    )
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        before = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        again = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        assert again == before
        patch = {"session_alias": "renamed-now"}
        ok(await jianf.patch(f"/api/v1/me/sessions/{asked['session_id']}", json=patch))
        renamed = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        assert b"+renamed-now@" in renamed and renamed != before
        decision = {"mail_id": asked["mail_id"], "decision": "yes"}
        ok(await jianf.post("/api/v1/me/permission/decide", json=decision))
        decided = (await fetch_one(imap, "(BODY.PEEK[])"))["BODY[]"]
        assert decided != renamed
