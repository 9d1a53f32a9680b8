"""`\\Answered` is set when the human replies, by REST or SMTP.

The flag goes on the replying human's own delivery of the mail replied to, in the
transaction that stores the reply; an IDLE session is told at once.
"""

from __future__ import annotations

import asyncio
import smtplib
from email.message import EmailMessage

from tests.integration.test_imap_idle import idling, pushed_until
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import fetched, imap_login

D = "agentmail.localhost"


async def test_a_reply_over_rest_sets_answered_and_idle_hears_it(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    payload = {"to": "jianf@", "subject": "question", "body": "yes or no?"}
    asked = ok(await builder.post("/api/v1/mail/send", json=payload))
    ok(await builder.post("/api/v1/mail/send", json={**payload, "subject": "other"}))
    async with idling(api, "jianf") as client:
        reply = {"to": "builder@ModelRouter", "body": "yes", "reply_to": asked["mail_id"]}
        ok(await jianf.post("/api/v1/me/mail/send", json=reply))
        lines = await pushed_until(client, b"1 FETCH")
        assert any(b"1 FETCH" in line and b"\\Answered" in line for line in lines), lines
    view = ok(await jianf.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert view["answered"] is True
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        assert await imap.search_uids("ANSWERED") == [1]  # the other mail is not
    # The agent's own copy is not the human's: its delivery of the reply is untouched.
    got = ok(await builder.get("/api/v1/mail/inbox"))
    assert [m["answered"] for m in got["mails"]] == [False]


def _reply_by_smtp(port: int, message_id: str) -> None:
    reply = EmailMessage()
    reply["From"] = f"jianf@{D}"
    reply["To"] = f"builder+ModelRouter@{D}"
    reply["Subject"] = "Re: question"
    reply["In-Reply-To"] = message_id
    reply["References"] = message_id
    reply.set_content("no\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.login("jianf", PASSWORD)
        client.send_message(reply)


async def test_a_reply_over_smtp_sets_answered_on_the_mail_replied_to(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    payload = {"to": "jianf@", "subject": "question", "body": "yes or no?"}
    asked = ok(await builder.post("/api/v1/mail/send", json=payload))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        flags = fetched(await imap.uid("FETCH", "1", "(FLAGS)"))[1]["FLAGS"]
        assert flags == {"\\Recent"}  # the first SELECT since it came (RFC 3501 §2.3.2)
        await asyncio.to_thread(_reply_by_smtp, api.gateway.smtp_port, asked["message_id"])
        flags = fetched(await imap.uid("FETCH", "1", "(FLAGS)"))[1]["FLAGS"]
        assert "\\Answered" in flags  # this session, selected all along, sees it
    view = ok(await jianf.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert view["answered"] is True
