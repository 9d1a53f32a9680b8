"""BODYSTRUCTURE extension fields and ENVELOPE text as RFC 3501 §7.4.2/§9 and RFC 6855 say.

Content-Disposition went out as a quoted string
(`"attachment; filename=\\"report.txt\\""`) and subjects and display names as raw
UTF-8. The responses are parsed by imapclient's response parser, and each field
checked against the grammar (body-ext-1part, body-ext-mpart) by `check_body`.
"""

from __future__ import annotations

import asyncio
import smtplib
from email.header import decode_header, make_header
from email.message import EmailMessage
from typing import Any

from imapclient.response_parser import parse_fetch_response

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import Imap, imap_login

D = "agentmail.localhost"
SUBJECT = "排查登录问题"
NAME = "张三"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def _params(value: Any) -> None:
    """body-fld-param = "(" string SP string *(SP string SP string) ")" / nil."""
    if value is None:
        return
    assert isinstance(value, tuple) and value and len(value) % 2 == 0, value
    assert all(isinstance(item, bytes) and item.isascii() for item in value), value


def _extensions(md5_or_params: Any, dsp: Any, lang: Any, loc: Any, *, multipart: bool) -> None:
    if multipart:
        _params(md5_or_params)
    else:
        assert md5_or_params is None or isinstance(md5_or_params, bytes), md5_or_params
    # body-fld-dsp = "(" string SP body-fld-param ")" / nil
    if dsp is not None:
        assert isinstance(dsp, tuple) and len(dsp) == 2, dsp
        assert isinstance(dsp[0], bytes), dsp
        _params(dsp[1])
    # body-fld-lang = nstring / "(" string *(SP string) ")"
    if isinstance(lang, tuple):
        assert lang and all(isinstance(tag, bytes) for tag in lang), lang
    else:
        assert lang is None or isinstance(lang, bytes), lang
    assert loc is None or isinstance(loc, bytes), loc  # body-fld-loc = nstring


def check_body(body: Any) -> None:
    """RFC 3501 §9 `body` with its extension data, recursively."""
    body = _unflattened(body)
    if isinstance(body[0], list):  # body-type-mpart
        for part in body[0]:
            check_body(part)
        assert isinstance(body[1], bytes)
        assert len(body) == 6, body  # subtype + body-ext-mpart's four fields
        _extensions(*body[2:], multipart=True)
        return
    maintype, subtype = body[0].lower(), body[1].lower()
    _params(body[2])
    assert all(v is None or isinstance(v, bytes) for v in body[3:6]), body  # id desc enc
    assert isinstance(body[6], int)
    rest = list(body[7:])
    if maintype == b"message" and subtype == b"rfc822":
        envelope, nested, lines = rest[:3]
        assert isinstance(envelope, tuple) and len(envelope) == 10, envelope
        check_body(nested)
        assert isinstance(lines, int)
        rest = rest[3:]
    elif maintype == b"text":
        assert isinstance(rest.pop(0), int)  # body-fld-lines
    assert len(rest) == 4, body  # body-ext-1part's four fields
    _extensions(*rest, multipart=False)


async def fetch_parsed(imap: Imap, what: str, uid: int = 1) -> tuple[bytes, dict[bytes, Any]]:
    """The raw FETCH response and imapclient's parse of it."""
    data = await imap.uid("FETCH", str(uid), what)
    raw = b"".join(item[0] + item[1] if isinstance(item, tuple) else item for item in data if item)
    return raw, parse_fetch_response(data)[uid]


def _unflattened(body: Any) -> Any:
    """imapclient gives a multipart nested in message/rfc822 flat: parts, then subtype."""
    if isinstance(body[0], tuple):
        first = next(i for i, item in enumerate(body) if isinstance(item, bytes))
        return (list(body[:first]), *body[first:])
    return body


def leaves(body: Any) -> list[Any]:
    body = _unflattened(body)
    if isinstance(body[0], list):
        return [leaf for part in body[0] for leaf in leaves(part)]
    return [body]


def submitted() -> EmailMessage:
    """Thunderbird-like: alternative text and HTML, an attachment, an inline image,
    a forwarded message and a file with a Chinese name."""
    forwarded = EmailMessage()
    forwarded["From"] = f'"{NAME}" <carol@example.com>'
    forwarded["To"] = f"bob@{D}"
    forwarded["Subject"] = SUBJECT
    forwarded.set_content("the original")
    forwarded.add_attachment(b"inner", maintype="text", subtype="plain", filename="inner.txt")
    message = EmailMessage()
    message["From"] = f'"{NAME}" <bob@{D}>'
    message["To"] = f'"{NAME}" <jianf@{D}>'
    message["Subject"] = SUBJECT
    message["Message-ID"] = "<structure@client.example>"
    message.set_content("Text part.\n")
    message.add_alternative("<p>HTML part.</p>\n", subtype="html")
    message.add_attachment(b"report\n", maintype="text", subtype="plain", filename="report.txt")
    message.add_attachment(
        PNG, maintype="image", subtype="png", disposition="inline", cid="<logo@client.example>"
    )
    message.add_attachment(forwarded)
    message.add_attachment(b"data", maintype="application", subtype="pdf", filename="报告.pdf")
    parts = list(message.iter_parts())
    parts[1]["Content-Language"] = "en, de"
    parts[1]["Content-Location"] = "http://example.com/report.txt"
    parts[2]["Content-Language"] = "en"
    return message


def _submit(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.login("bob", PASSWORD)
        client.send_message(message)


async def test_bodystructure_extensions_of_an_smtp_mail_follow_the_grammar(api: Api) -> None:
    await api.human("jianf")
    await api.human("bob")
    await asyncio.to_thread(_submit, api.gateway.smtp_port, submitted())
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        raw, got = await fetch_parsed(imap, "(BODYSTRUCTURE)")
    assert raw.isascii(), raw  # RFC 6855 §3: no UTF-8 before ENABLE UTF8=ACCEPT
    assert b"attachment; filename" not in raw and b'"inline"' not in raw.replace(b'("inline"', b"")
    body = got[b"BODYSTRUCTURE"]
    check_body(body)
    alternative, report, image, forward, pdf = body[0]
    assert body[1] == b"mixed" and body[3:] == (None, None, None)
    assert alternative[1] == b"alternative" and alternative[3:] == (None, None, None)
    assert report[:2] == (b"text", b"plain")
    assert report[8:] == (
        None,
        (b"attachment", (b"filename", b"report.txt")),
        (b"en", b"de"),
        b"http://example.com/report.txt",
    )
    assert image[:2] == (b"image", b"png") and image[3] == b"<logo@client.example>"
    assert image[7:] == (None, (b"inline", None), b"en", None)
    assert forward[:2] == (b"message", b"rfc822")
    assert forward[11] == (b"attachment", None)
    envelope, nested = forward[7], forward[8]
    assert str(make_header(decode_header(envelope[1].decode()))) == SUBJECT
    inner = leaves(nested)[-1]  # text: md5 at 8, disposition at 9
    assert inner[:2] == (b"text", b"plain") and inner[9] == (
        b"attachment",
        (b"filename", b"inner.txt"),
    )
    assert pdf[8] == (b"attachment", (b"filename*", b"utf-8''%E6%8A%A5%E5%91%8A.pdf"))


async def test_bodystructure_extensions_of_a_mail_born_in_the_api(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    files = {"file": ("report.txt", b"numbers\n", "text/plain")}
    upload = ok(await builder.post("/api/v1/attachments", files=files))
    payload = {
        "to": "jianf@",
        "subject": "Report",
        "body": "See **attached**.",
        "attachment_ids": [upload["attachment_id"]],
    }
    ok(await builder.post("/api/v1/mail/send", json=payload))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        raw, got = await fetch_parsed(imap, "(BODYSTRUCTURE)")
    assert b"attachment; filename" not in raw
    body = got[b"BODYSTRUCTURE"]
    check_body(body)
    assert body[1] == b"mixed"
    attachment = leaves(body)[-1]
    assert (b"attachment", (b"filename", b"report.txt")) in attachment[7:]
    for leaf in leaves(body)[:-1]:  # the text and HTML alternatives have no disposition
        assert leaf[1] in (b"plain", b"html") and leaf[9] is None


def _decoded(value: bytes) -> str:
    return str(make_header(decode_header(value.decode("ascii"))))


async def test_envelope_of_an_smtp_mail_keeps_encoded_words(api: Api) -> None:
    await api.human("jianf")
    await api.human("bob")
    await asyncio.to_thread(_submit, api.gateway.smtp_port, submitted())
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        raw, got = await fetch_parsed(imap, "(ENVELOPE)")
    assert raw.isascii(), raw
    envelope = got[b"ENVELOPE"]
    assert envelope.subject.startswith(b"=?utf-8?") and _decoded(envelope.subject) == SUBJECT
    [sender], [to] = envelope.from_, envelope.to
    assert _decoded(sender.name) == NAME and sender.mailbox == b"bob"
    assert _decoded(to.name) == NAME and to.mailbox == b"jianf"


async def test_envelope_of_a_mail_born_in_the_api_is_seven_bit(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    payload = {"to": "jianf@", "subject": SUBJECT, "body": "你好"}
    ok(await builder.post("/api/v1/mail/send", json=payload))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        raw, got = await fetch_parsed(imap, "(ENVELOPE BODYSTRUCTURE)")
        await imap.ok("select", "Sessions/pai-cha-deng-lu-wen-ti")
        raw_again, _ = await fetch_parsed(imap, "(ENVELOPE)")
    assert raw.isascii() and raw_again.isascii(), raw
    envelope = got[b"ENVELOPE"]
    assert b"=?utf-8?" in envelope.subject.lower() and _decoded(envelope.subject) == SUBJECT
    check_body(got[b"BODYSTRUCTURE"])
