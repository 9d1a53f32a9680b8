"""A literal8 APPEND's `binary` parts made base64 (imap_view/binary_append.py) and
`BINARY[]`'s decoding of a whole message (imap_view/binary_message.py), on the corners
the Dovecot comparison (tests/integration/test_imap_binary_append.py) does not reach."""

from __future__ import annotations

import base64

from core.mime.bounds import LIMITS
from imap_view.binary_append import base64_binary_parts
from imap_view.binary_message import binary_message

HEAD = b"From: a@example.org\r\nMIME-Version: 1.0\r\n"


def test_a_message_without_binary_parts_is_the_same_object() -> None:
    plain = HEAD + b"Content-Transfer-Encoding: 8bit\r\n\r\nbinary words\r\n"
    assert base64_binary_parts(plain) is plain


def test_long_bodies_break_at_76_columns_and_an_empty_one_stays_empty() -> None:
    octets = bytes(range(256)) * 3
    converted = base64_binary_parts(HEAD + b"Content-Transfer-Encoding: Binary\r\n\r\n" + octets)
    header, body = converted.split(b"\r\n\r\n", 1)
    assert header.endswith(b"Content-Transfer-Encoding: base64")
    lines = body.split(b"\r\n")
    assert {len(line) for line in lines[:-1]} == {76} and 0 < len(lines[-1]) <= 76
    assert base64.b64decode(b"".join(lines)) == octets
    empty = HEAD + b"Content-Transfer-Encoding: binary\r\n\r\n"
    assert base64_binary_parts(empty) == HEAD + b"Content-Transfer-Encoding: base64\r\n\r\n"


def test_a_message_over_the_mime_bounds_is_kept_as_it_came() -> None:
    deep = b"".join(
        b"Content-Type: multipart/mixed; boundary=x%dx\r\n\r\n--x%dx\r\n" % (n, n)
        for n in range(LIMITS.max_depth + 2)
    )
    message = HEAD + deep + b"Content-Transfer-Encoding: binary\r\n\r\n\x00\r\n"
    assert base64_binary_parts(message) == message
    assert binary_message(message) == message


def test_binary_of_a_whole_message_moves_the_field_and_decodes() -> None:
    message = (
        HEAD + b"Content-Transfer-Encoding: quoted-printable\r\nSubject: s\r\n\r\n"
        b"caf=C3=A9 =\r\nau lait\r\n"
    )
    assert binary_message(message) == (
        HEAD + b"Subject: s\r\nContent-Transfer-Encoding: binary\r\n\r\ncaf\xc3\xa9 au lait\r\n"
    )
    seven = HEAD + b"Subject: s\r\n\r\nplain\n"  # nothing to undo: as it is, bare LF too
    assert binary_message(seven) == seven
