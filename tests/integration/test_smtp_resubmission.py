"""A message submitted again after its 250 was lost is answered, not stored twice
(docs/smtp.md "Sending a message again"), on SQLite and PostgreSQL, also when the
two submissions race."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage

import aiosmtplib
from sqlalchemy import func, select

from core.store.models import Mail
from tests.support.gateway import PASSWORD, Api
from tests.support.smtp import D, message, session


async def _mails(api: Api) -> int:
    store = api.gateway.store
    assert store is not None
    return int(await store.read(lambda s: s.scalar(select(func.count()).select_from(Mail))) or 0)


async def _submit(client: aiosmtplib.SMTP, mail: EmailMessage, *recipients: str) -> str:
    _, reply = await client.sendmail(f"alice@{D}", list(recipients), mail.as_bytes())
    return reply


async def test_the_same_message_again_gets_the_first_reply_and_stores_nothing(api: Api) -> None:
    await api.human("alice")
    await api.human("bob")
    await api.human("carol")
    mail = message(f"alice@{D}", f"bob@{D}", "once", Message_ID="<once@client.example>")
    first, again = await session(api, "alice", PASSWORD), await session(api, "alice", PASSWORD)
    try:
        answer = await _submit(first, mail, f"bob@{D}")
        # The client never heard that 250: a new connection, the same message.
        assert await _submit(again, mail, f"bob@{D}") == answer
        assert await _mails(api) == 1
        # Other recipients (the rest after a 452), or other bytes: new submissions.
        await _submit(again, mail, f"carol@{D}")
        changed = message(f"alice@{D}", f"bob@{D}", "twice", Message_ID="<once@client.example>")
        await _submit(again, changed, f"bob@{D}")
        assert await _mails(api) == 3
        # Without a Message-ID, each submission gets its own: never recognised.
        bare = message(f"alice@{D}", f"bob@{D}", "no id")
        await _submit(again, bare, f"bob@{D}")
        await _submit(again, bare, f"bob@{D}")
        assert await _mails(api) == 5
    finally:
        for client in (first, again):
            await client.quit()


async def test_two_racing_submissions_of_one_message_store_it_once(api: Api) -> None:
    await api.human("alice")
    await api.human("bob")
    clients = [await session(api, "alice", PASSWORD) for _ in range(3)]
    mail = message(f"alice@{D}", f"bob@{D}", "race", Message_ID="<race@client.example>")
    try:
        replies = await asyncio.gather(*(_submit(c, mail, f"bob@{D}") for c in clients))
        assert len(set(replies)) == 1, replies
        assert await _mails(api) == 1
    finally:
        for client in clients:
            await client.quit()
