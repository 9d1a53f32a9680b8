"""One SMTP message, as many mails as conversations it addresses: equivalent
recipients are one delivery, and a Cc to another conversation of the same agent gets
its own mail there."""

from __future__ import annotations

from sqlalchemy import select

from core.store.models import Conversation, Delivery, Mail
from tests.support.gateway import PASSWORD, Api
from tests.support.imap import imap_login
from tests.support.smtp import D, message, send, session

BUILDER = f"builder+ModelRouter@{D}"
# 26 spellings of one mailbox and conversation: the same address twice, upper-case
# forms, the bare name (its first workspace), the workspace's path, the domain in capitals.
SAME_MAILBOX = [
    BUILDER,
    BUILDER,
    f"builder@{D}",
    f"BUILDER+ModelRouter@{D}",
    f"Builder+ModelRouter@{D}",
    f"builder+ModelRouter@{D.upper()}",
    f"BUILDER@{D}",
    f"builder+/home/u/ModelRouter@{D}",
    f"BUILDER+/home/u/ModelRouter@{D}",
    *(f"{'builder'[:n].upper()}{'builder'[n:]}+ModelRouter@{D}" for n in range(1, 7)),
    *(f"{'builder'[:n]}{'builder'[n:].upper()}@{D}" for n in range(1, 7)),
    *(f"{'builder'[:n].upper()}{'builder'[n:]}@{D}" for n in range(2, 7)),
]


async def _mails(api: Api) -> list[Mail]:
    store = api.gateway.store
    assert store is not None
    return list(await store.read(lambda s: s.scalars(select(Mail).order_by(Mail.seq)).all()))


async def _submit(api: Api, rcpts: list[str], body: bytes) -> tuple[list[int], int, str]:
    client = await session(api, "jianf", PASSWORD)
    try:
        code, text = await client.execute_command(f"MAIL FROM:<jianf@{D}>".encode())
        assert code == 250, text
        codes = [(await client.execute_command(f"RCPT TO:<{r}>".encode()))[0] for r in rcpts]
        code, text = await client.data(body)
        return codes, code, text
    finally:
        await client.quit()


async def test_26_recipients_naming_one_mailbox_store_one_mail(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    assert len(SAME_MAILBOX) == 26
    body = message(f"jianf@{D}", BUILDER, "one task").as_bytes()
    codes, code, text = await _submit(api, SAME_MAILBOX, body)
    assert codes == [250] * 26
    assert (code, text) == (
        250,
        "2.0.0 1 mail stored for 26 recipients (25 named a mailbox and conversation named before)",
    )
    [mail] = await _mails(api)
    assert (mail.to_name, mail.to_path, mail.cc) == ("builder", "ModelRouter", [])
    store = api.gateway.store
    assert store is not None
    deliveries = await store.read(lambda s: s.scalars(select(Delivery.recipient)).all())
    assert list(deliveries) == ["builder"]


async def test_cc_and_bcc_in_one_conversation_share_one_mail(api: Api) -> None:
    await api.human("jianf")
    await api.human("bob")
    await api.human("carol")
    await api.agent("builder")
    first = message(f"jianf@{D}", BUILDER, "task", Message_ID="<task@client.example>")
    await send(api, "jianf", PASSWORD, first)
    # A reply: every recipient without a session part goes to the replied conversation;
    # the Bcc (carol) and the same mailbox twice make no second mail in it.
    reply = message(
        f"jianf@{D}",
        BUILDER,
        "Re: task",
        Cc=f"bob@{D}",
        In_Reply_To="<task@client.example>",
    ).as_bytes()
    rcpts = [BUILDER, f"bob@{D}", f"carol@{D}", f"BUILDER@{D}", f"Bob@{D}"]
    _, code, text = await _submit(api, rcpts, reply)
    assert code == 250 and text == (
        "2.0.0 1 mail stored for 5 recipients (2 named a mailbox and conversation named"
        " before; 2 shared a conversation with another, as cc)"
    ), text
    mails = await _mails(api)
    assert len(mails) == 2 and mails[0].session_id == mails[1].session_id
    assert (mails[1].to_name, sorted(mails[1].cc)) == ("builder", ["bob@", "carol@"])


async def test_a_cc_to_another_conversation_of_the_agent_gets_its_mail_there(api: Api) -> None:
    await api.human("jianf")
    await api.agent("builder")
    opener = message(f"jianf@{D}", f"builder+ModelRouter+new@{D}", "alpha")
    await send(api, "jianf", PASSWORD, opener)
    store = api.gateway.store
    assert store is not None
    aliases = await store.read(lambda s: s.scalars(select(Conversation.alias)).all())
    assert list(aliases) == ["alpha"]
    alpha = f"builder+ModelRouter+alpha@{D}"
    both = message(f"jianf@{D}", BUILDER, "two threads", Cc=alpha).as_bytes()
    _, code, text = await _submit(api, [BUILDER, alpha], both)
    assert (code, text) == (250, "2.0.0 2 mails stored")
    mails = await _mails(api)
    conversations = await store.read(
        lambda s: {c.id: c.alias for c in s.scalars(select(Conversation)).all()}
    )
    assert [(conversations[m.session_id], m.subject) for m in mails[1:]] == [
        ("two-threads", "two threads"),  # the default conversation, named by its subject
        ("alpha", "two threads"),
    ]
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "Sessions/alpha")
        subjects = await imap.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        assert [item[1].strip() for item in subjects if isinstance(item, tuple)] == [
            b"Subject: alpha",
            b"Subject: two threads",
        ]
