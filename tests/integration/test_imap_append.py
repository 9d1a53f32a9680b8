"""APPEND into any folder (RFC 3501 §6.3.11) and MULTIAPPEND (RFC 3502): the message is
the appending person's alone, stored as given, with the flags and date given."""

from __future__ import annotations

import asyncio
import re
import smtplib
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any

import pytest

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import Imap, fetched, imap_login
from tests.support.sse import open_stream

D = "agentmail.localhost"


def message(subject: str, **headers: str) -> bytes:
    mail = EmailMessage()
    mail["Subject"] = subject
    for name, value in headers.items():
        mail[name.replace("_", "-")] = value
    mail.set_content(f"body of {subject}\n")
    mail.add_attachment(b"\x00\x01" * 600, maintype="application", subtype="octet-stream",
                        filename="data.bin")  # fmt: skip
    return mail.as_bytes(policy=mail.policy.clone(linesep="\r\n"))


async def fetch_one(imap: Imap, folder: str, uid: int, items: str) -> dict[str, Any]:
    await imap.ok("select", f'"{folder}"')
    [entry] = fetched(await imap.uid("fetch", str(uid), items)).values()
    return entry


@pytest.mark.parametrize("folder", ["INBOX", "Archive", "Trash", "Sent", "Mine/Deep"])
async def test_append_keeps_bytes_flags_and_date(api: Api, folder: str) -> None:
    await api.human("jianf")
    raw = message("filed", From="stranger@example.org", To=f"jianf@{D}")
    async with imap_login(api.gateway, "jianf") as imap:
        if folder.startswith("Mine"):
            await imap.ok("create", f'"{folder}"')
        typ, data = await imap(
            "append",
            f'"{folder}"',
            "(\\Seen \\Flagged $Label1)",
            '"02-Jan-2024 10:11:12 +0100"',
            raw,
        )
        assert typ == "OK", data
        found = re.search(rb"APPENDUID (\d+) (\d+)\]", data[0])
        assert found is not None, data
        uid = int(found.group(2))
        got = await fetch_one(imap, folder, uid, "(FLAGS INTERNALDATE BODY.PEEK[] RFC822.SIZE)")
    assert got["BODY[]"] == raw
    assert f"RFC822.SIZE {len(raw)}".encode() in got["raw"]
    # \Recent too: the first session to SELECT the folder after the APPEND (RFC 3501 §2.3.2)
    assert set(got["FLAGS"]) == {"\\Seen", "\\Flagged", "$Label1", "\\Recent"}
    date = re.search(rb'INTERNALDATE "([^"]+)"', got["raw"])
    assert date is not None, got
    when = datetime.strptime(date.group(1).decode(), "%d-%b-%Y %H:%M:%S %z")
    assert when == datetime(2024, 1, 2, 10, 11, 12, tzinfo=timezone(timedelta(hours=1)))


async def test_multiappend_stores_all_in_order(api: Api) -> None:
    """RFC 3502: one APPEND with two messages; both UIDs in the APPENDUID, in order."""
    await api.human("jianf")
    first, second = message("one"), message("two")
    reader, writer = await asyncio.open_connection("127.0.0.1", api.gateway.imap_port)
    try:
        await reader.readline()
        writer.write(b"a1 LOGIN jianf " + PASSWORD.encode() + b"\r\n")
        lines = [await reader.readline()]
        writer.write(
            b"a2 APPEND INBOX (\\Seen) {%d+}\r\n%s {%d+}\r\n%s\r\n"
            % (len(first), first, len(second), second)
        )
        while not (line := await reader.readline()).startswith(b"a2 "):
            lines.append(line)
        assert re.match(rb"a2 OK \[APPENDUID \d+ 1:2\]", line), (line, lines)
    finally:
        writer.close()
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        got = fetched(await imap.uid("fetch", "1:2", "(UID BODY.PEEK[])"))
    assert {entry["UID"]: entry["BODY[]"] for entry in got.values()} == {1: first, 2: second}


async def test_append_changes_nothing_anyone_else_sees(api: Api) -> None:
    """A forged From of another user, To another user and an agent, In-Reply-To of a mail
    in someone else's conversation and that mail's Message-ID: nobody else sees a thing,
    and no permission request is decided."""
    ana = await api.human("ana")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    bobs = ok(
        await bob.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "bob's task", "session_alias": "bobs"},
        )
    )
    asked = ok(
        await builder.post("/api/v1/permission/request", json={"to": "ana@", "question": "May I?"})
    )
    request_id = ok(await ana.get(f"/api/v1/me/mail/{asked['mail_id']}"))["message_id"]
    bob_mail = ok(await bob.get(f"/api/v1/me/mail/{bobs['mail_id']}"))
    before = {
        "bob inbox": ok(await bob.get("/api/v1/me/mail/inbox?status=all"))["total"],
        "bob sessions": ok(await bob.get("/api/v1/sessions"))["total"],
        "builder inbox": ok(await builder.get("/api/v1/mail/inbox?status=all"))["total"],
        "bob conversation": len(
            ok(await bob.get(f"/api/v1/sessions/{bobs['session_id']}"))["mails"]
        ),
    }
    forged = [
        message("yes", From=f"bob@{D}", To=f"bob@{D}", Cc=f"builder+ModelRouter@{D}",
                In_Reply_To=bob_mail["message_id"], Message_ID=bob_mail["message_id"]),
        message("yes", From=f"ana@{D}", To=f"builder+ModelRouter@{D}",
                In_Reply_To=request_id, References=request_id),
    ]  # fmt: skip
    async with open_stream(bob) as bob_events, open_stream(builder) as builder_events:
        async with imap_login(api.gateway, "ana") as imap:
            await imap.ok("create", "Kept")
            for folder in ("INBOX", "Kept", "Sent"):
                for raw in forged:
                    typ, data = await imap("append", folder, None, None, raw)
                    assert typ == "OK", data
        # Each stream's first event is a mail sent after the APPENDs: nothing came before.
        marker = ok(await ana.post("/api/v1/me/mail/send", json={"to": "bob@", "subject": "after"}))
        assert (await bob_events.next()).json["mail_id"] == marker["mail_id"]
        to_agent = ok(
            await ana.post(
                "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": "x"}
            )
        )
        assert (await builder_events.next()).json["mail_id"] == to_agent["mail_id"]
    after = {
        "bob inbox": ok(await bob.get("/api/v1/me/mail/inbox?status=all"))["total"] - 1,
        "bob sessions": ok(await bob.get("/api/v1/sessions"))["total"] - 1,
        "builder inbox": ok(await builder.get("/api/v1/mail/inbox?status=all"))["total"] - 1,
        "bob conversation": len(
            ok(await bob.get(f"/api/v1/sessions/{bobs['session_id']}"))["mails"]
        ),
    }
    assert after == before
    assert ok(await bob.get("/api/v1/me/search?q=yes"))["total"] == 0
    assert ok(await ana.get("/api/v1/me/search?q=yes"))["total"] == 6  # her own, found
    request = ok(await ana.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert request["permission_state"] == "open" and request["decision"] is None
    # Ana's filed copy carries bob's Message-ID: her mail naming it joins nothing of hers.
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = f"ana@{D}", f"builder+ModelRouter@{D}", "re"
    reply["In-Reply-To"] = bob_mail["message_id"]
    reply.set_content("by mail")
    await asyncio.to_thread(submit_as, api.gateway.smtp_port, "ana", reply)
    [sent] = ok(await builder.get("/api/v1/mail/inbox?status=all&limit=1"))["mails"]
    assert sent["subject"] == "re"
    conversation = ok(await ana.get(f"/api/v1/sessions/{sent['session_id']}"))["session"]
    assert conversation["subject"] != "Filed from your mail client"
    assert conversation["participants"] == ["ana", "builder"]


def submit_as(port: int, name: str, mail: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.login(name, PASSWORD)
        client.send_message(mail)
