"""What the headers of a submitted message may say.

A message that can never be stored gets a 5xx, never a 4xx (a client would retry
it forever); a long folded subject is stored; `From:` cannot show another address
in its display name; a message without `From:` gets the sender's.
"""

from __future__ import annotations

import asyncio
import smtplib
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default

import pytest
from sqlalchemy import select

from core.store.models import Mail
from core.store.raw_messages import originals_of
from tests.support.gateway import PASSWORD, Api
from tests.support.smtp import D, message, send

WORDS = " ".join(f"word{n}" for n in range(300))  # 2,389 characters
EXACT = " ".join(["w" * 9] * 99) + " " + "w" * 8  # 998 characters


def _folded(subject: str) -> bytes:
    """`Subject:` folded before every tenth word (RFC 5322 §2.2.3), no line over 998."""
    words = subject.split(" ")
    lines = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    return b"Subject: " + "\r\n ".join(lines).encode() + b"\r\n\r\n"


LONG_ID = "<" + "x" * 1200 + "@client.example>"


def _raw(headers: bytes, body: bytes = b"hello\r\n") -> bytes:
    return b"From: alice@" + D.encode() + b"\r\nTo: bob@" + D.encode() + b"\r\n" + headers + body


def _sendmail(port: int, raw: bytes) -> tuple[int, str]:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.login("alice", PASSWORD)
        try:
            client.sendmail(f"alice@{D}", [f"bob@{D}"], raw)
        except smtplib.SMTPDataError as refused:
            return refused.smtp_code, refused.smtp_error.decode()
    return 250, ""


# (what, raw message, reply code expected, stored subject expected)
CASES = [
    ("folded subject over 998", _raw(_folded(WORDS)), 250, WORDS[:998].rstrip()),
    ("folded subject of 998", _raw(_folded(EXACT)), 250, EXACT),
    ("NUL in an encoded subject", _raw(b"Subject: =?utf-8?q?a=00b?=\r\n\r\n"), 250, "ab"),
    ("undeclared 8-bit subject", _raw(b"Subject: caf\xe9\r\n\r\n"), 250, "caf\ufffd"),
    ("NUL in the body", _raw(b"Subject: nul\r\n\r\n", b"a\x00b\r\n"), 250, "nul"),
    ("8-bit body, no charset", _raw(b"Subject: bytes\r\n\r\n", b"\xff\xfe\x80\r\n"), 250, "bytes"),
    # RFC 5321 §4.5.3.1.6: a line over 998 characters is refused by aiosmtpd, permanently.
    ("a 2000-character header line", _raw(b"X-Long: " + b"y" * 2000 + b"\r\n\r\n"), 500, None),
    ("no header at all", b"just a line\r\n", 250, None),
    ("Message-ID over 998", _raw(f"Message-ID: {LONG_ID}\r\n\r\n".encode()), 500, None),
]  # fmt: skip


@pytest.mark.parametrize(("what", "raw", "code", "subject"), CASES, ids=[c[0] for c in CASES])
async def test_a_message_that_can_never_be_stored_is_never_a_4xx(
    api: Api, what: str, raw: bytes, code: int, subject: str | None
) -> None:
    await api.human("alice")
    await api.human("bob")
    got, text = await asyncio.to_thread(_sendmail, api.gateway.smtp_port, raw)
    assert got == code, (what, text)
    assert not 400 <= got < 500
    store = api.gateway.store
    assert store is not None
    mails = await store.read(lambda s: s.scalars(select(Mail)).all())
    if code != 250:
        assert mails == []
        return
    [mail] = mails
    if subject is not None:
        assert mail.subject == subject
    original = (await store.read(lambda s: originals_of(s, [mail.seq])))[mail.seq]
    assert original.endswith(raw)  # kept as sent (a missing From/Message-ID is added in front)


async def test_rest_takes_the_same_998_characters_and_refuses_more(api: Api) -> None:
    alice = await api.human("alice")
    await api.human("bob")
    sent = await alice.post("/api/v1/me/mail/send", json={"to": "bob@", "subject": "s" * 998})
    assert sent.status_code == 200, sent.text
    refused = await alice.post("/api/v1/me/mail/send", json={"to": "bob@", "subject": "s" * 999})
    assert refused.status_code == 422, refused.text


async def test_a_display_name_showing_another_address_is_refused(api: Api) -> None:
    await api.human("alice")
    await api.human("bob")
    spoof = message(f'"bob@{D}" <alice@{D}>', f"bob@{D}", "from bob, really")
    with pytest.raises(smtplib.SMTPDataError) as refused:
        await send(api, "alice", PASSWORD, spoof, sender=f"alice@{D}")
    assert refused.value.smtp_code == 550
    assert refused.value.smtp_error.decode().startswith("5.7.1 the From: display name shows")
    hidden = message(f"=?utf-8?b?Ym9iQGFnZW50bWFpbC5sb2NhbGhvc3Q=?= <alice@{D}>", f"bob@{D}")
    with pytest.raises(smtplib.SMTPDataError):
        await send(api, "alice", PASSWORD, hidden, sender=f"alice@{D}")
    # Look-alikes are read as shown: a full-width @, blanks around the @.
    for name in (f"bob\uff20{D}", f"bob @ {D}"):
        look_alike = message(f'"{name}" <alice@{D}>', f"bob@{D}")
        with pytest.raises(smtplib.SMTPDataError) as refused:
            await send(api, "alice", PASSWORD, look_alike, sender=f"alice@{D}")
        assert refused.value.smtp_code == 550, name
        assert f"shows 'bob@{D}'" in refused.value.smtp_error.decode()
    store = api.gateway.store
    assert store is not None
    assert await store.read(lambda s: s.scalars(select(Mail)).all()) == []
    # Her own address, or a plain name, is fine.
    await send(api, "alice", PASSWORD, message(f'"alice@{D}" <alice@{D}>', f"bob@{D}"))
    await send(api, "alice", PASSWORD, message(f'"Alice Martin" <alice@{D}>', f"bob@{D}"))
    assert len(await store.read(lambda s: s.scalars(select(Mail)).all())) == 2


async def test_a_message_without_from_gets_the_senders_address(api: Api) -> None:
    await api.human("alice")
    await api.human("bob")
    bare = EmailMessage()
    bare["To"] = f"bob@{D}"
    bare["Subject"] = "who am I"
    bare.set_content("no From: here")
    await send(api, "alice", PASSWORD, bare, sender=f"alice@{D}")
    store = api.gateway.store
    assert store is not None
    [mail] = await store.read(lambda s: s.scalars(select(Mail)).all())
    assert mail.from_name == "alice"
    original = (await store.read(lambda s: originals_of(s, [mail.seq])))[mail.seq]
    parsed = BytesParser(policy=default).parsebytes(original)
    assert original.startswith(f"From: <alice@{D}>\r\n".encode())
    assert parsed["From"].addresses[0].addr_spec == f"alice@{D}"
    assert parsed["Message-ID"] == mail.message_id
