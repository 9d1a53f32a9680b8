"""What SEARCH's address and text keys match in (imap_view/address_search.py,
imap_view/search_text.py), as Dovecot 2.3 makes it: the address list written in one
normal form; each part's body decoded (transfer encoding, charset) and, for TEXT, its
header fields; a message over the MIME bounds as its bytes. Drawn messages never raise
and large ones are read within the margin. The answers themselves are compared with
Dovecot's in tests/integration/test_imap_dovecot_search.py."""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings

from core.mime.addresses import address_list
from imap_view.address_search import address_text, written
from imap_view.search_text import PartText, part_texts
from tests.support.margin import within_margin
from tests.support.mime_bounds import many_parts
from tests.support.mime_fuzz import messages
from tests.support.search_corpus import MESSAGES


@pytest.mark.parametrize(
    ("value", "form"),
    [
        ("a@b", "<a@b>"),
        ("user@domain (Real Name)", '"Real Name" <user@domain>'),
        ("RealFrom <a@b>", "RealFrom <a@b>"),
        ("<@r1,@r2:u@d>", "<@r1,@r2:u@d>"),
        ("g: a@b, c@d;, h:;", "g: <a@b>, <c@d>;, h:;"),
        ('"O\'Brien, Pat" <p@x>', '"O\\\'Brien, Pat" <p@x>'),
        ("=?utf-8?q?J=C3=BCrgen?= <j@x>", "=?utf-8?q?J=C3=BCrgen?= <j@x>"),
        ("Foo Bar", '"Foo Bar" <MISSING_MAILBOX@MISSING_DOMAIN>'),
        ('""@x', '<""@x>'),
        ('"a b"@x', '<"a b"@x>'),
    ],
)
def test_addresses_are_written_in_dovecots_form(value: str, form: str) -> None:
    assert written(address_list(value)) == form


def test_address_text_is_decoded_and_casemapped() -> None:
    assert address_text("=?utf-8?q?J=C3=BCrgen?= <j@x>") == "JU\u0308RGEN <J@X>"
    assert "REALFROM" in address_text("user-from@domain.org (RealFrom)")


def _texts(raw: bytes, *, headers: bool = False) -> list[PartText]:
    return list(part_texts(raw, False, headers=headers))


def test_bodies_are_decoded_part_by_part() -> None:
    by_subject = {raw.split(b"Subject: ", 1)[-1].split(b"\r\n", 1)[0]: raw for raw in MESSAGES}
    [quoted] = _texts(by_subject[b"quoted"])
    assert "QUOTEDPRINTABLE" in quoted.body and "E\u0301TE\u0301" in quoted.body
    [encoded] = _texts(by_subject[b"encoded"])
    assert "BASE64WORD" in encoded.body and "CAFE\u0301" in encoded.body
    [latin] = _texts(by_subject[b"latin"])
    assert "CAFE\u0301 NOIR" in latin.body
    [unknown] = _texts(by_subject[b"unknown encoding"])
    assert unknown.body == ""  # x-uuencode is not undone, so not searched


def test_only_text_and_message_bodies_and_with_text_the_headers() -> None:
    mixed = next(raw for raw in MESSAGES if b"Subject: mixed parts" in raw)
    bodies = " ".join(part.body for part in _texts(mixed))
    assert "PARTTEXT" in bodies and "HTMLWORD" in bodies and "INNERBODYWORD" in bodies
    for hidden in ("PREAMBLEWORD", "EPILOGUEWORD", "ATTACHMENTWORD", "PARTHEADERWORD"):
        assert hidden not in bodies
    headers = " ".join(part.header for part in _texts(mixed, headers=True))
    assert "X-PART: PARTHEADERWORD\r\n" in headers and "SUBJECT: INNERSUBJECTWORD" in headers
    assert all(part.header == "" for part in _texts(mixed))


def test_text_is_found_across_the_header_and_the_body() -> None:
    part = PartText("SUBJECT: A\r\n\r\n", "BODY")
    assert part.holds("A\r\n\r\nBO", header=True)
    assert not part.holds("A\r\n\r\nBO", header=False) and part.holds("BOD", header=False)


def test_a_message_over_the_bounds_is_searched_as_its_bytes() -> None:
    raw = many_parts(1500).replace(b"\r\n1400\r\n", b"\r\nqp=\r\nword\r\n", 1)
    assert b"qp=\r\nword" in raw
    [whole] = list(part_texts(raw, True, headers=True))
    assert "QP=\r\nWORD" in whole.body and "SUBJECT: MANY PARTS" in whole.header
    [unmarked] = list(part_texts(raw, False, headers=False))  # the walk stops at a bound
    assert unmarked.body == whole.body and unmarked.header == ""


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(raw=messages)
def test_any_message_is_read_without_an_error(raw: bytes) -> None:
    for headers in (False, True):
        assert all(isinstance(part, PartText) for part in part_texts(raw, False, headers=headers))


LARGE = [
    b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    + base64.encodebytes("mot accentué ".encode() * 300_000),
    b"Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
    + b"=C3=A9=\r\n" * 400_000,
    b"Subject: x\r\n" + b"X-Long: " + b"=?utf-8?q?=C3=A9?= " * 20_000 + b"\r\n\r\nbody\r\n",
    many_parts(999),
]


@pytest.mark.parametrize("raw", LARGE, ids=["base64", "soft breaks", "encoded words", "parts"])
def test_large_messages_are_read_within_the_margin(raw: bytes) -> None:
    within_margin(lambda: list(part_texts(raw, False, headers=True)))
