"""7-bit header text for IMAP (RFC 6855 §3), also from 8-bit headers pymap reads as
ASCII with `surrogateescape` (an SMTPUTF8 or broken message must not break FETCH)."""

from __future__ import annotations

from email.header import decode_header, make_header

from pymap.mime import MessageContent

from imap_view.envelope import envelope_of
from imap_view.header_text import seven_bit_params, seven_bit_text, stored_text


def _decoded(text: str) -> str:
    return str(make_header(decode_header(text)))


def test_text_that_is_not_ascii_becomes_one_line_of_encoded_words() -> None:
    subject = "排查登录问题 " * 10
    encoded = seven_bit_text(subject)
    assert encoded.isascii() and "\n" not in encoded
    assert _decoded(encoded).strip() == subject.strip()


def test_raw_eight_bit_headers_are_encoded_not_crashed_on() -> None:
    raw = "Subject: 排查\r\nFrom: 张三 <a@example.com>\r\n\r\nbody\r\n".encode()
    msg = MessageContent.parse(raw)
    subject = stored_text(msg, b"subject", msg.header.parsed.subject)
    assert subject is not None and subject.isascii() and _decoded(subject) == "排查"
    assert bytes(envelope_of(msg)).isascii()


def test_stored_encoded_words_are_kept_as_they_are() -> None:
    raw = b"Subject: =?UTF-8?B?5o6S5p+l?=\r\n\r\nbody\r\n"
    msg = MessageContent.parse(raw)
    assert stored_text(msg, b"subject", msg.header.parsed.subject) == "=?UTF-8?B?5o6S5p+l?="


def test_parameters_that_are_not_ascii_take_rfc_2231_form() -> None:
    assert seven_bit_params({"filename": "报告.pdf", "size": "3"}) == {
        "filename*": "utf-8''%E6%8A%A5%E5%91%8A.pdf",
        "size": "3",
    }
    assert seven_bit_params({"name": "a\udce6b"}) == {"name*": "utf-8''a%EF%BF%BDb"}
