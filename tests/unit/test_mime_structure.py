"""core/mime: a message's structure under bounds, as JSON-able data; over a bound, opaque."""

from __future__ import annotations

import json
from email.message import EmailMessage

import pytest
from hypothesis import given, settings
from pymap.mime import MessageContent

from core.mime.bounds import LIMITS, MimeLimits, plainly_within
from core.mime.structure import Part, Structure, is_opaque, mime_structure
from imap_view.parts import content_of
from tests.support.fuzzing import examples
from tests.support.mime_fuzz import messages


def _mixed() -> bytes:
    message = EmailMessage()
    message["From"] = "Ann <ann@x.example>"
    message["To"] = "bob@x.example"
    message["Subject"] = "=?utf-8?q?caf=C3=A9?="
    message.set_content("hello\nworld\n")
    message.add_alternative("<p>hi</p>", subtype="html")
    message.add_attachment(b"\x00" * 90, maintype="application", subtype="pdf", filename="a.pdf")
    return message.as_bytes().replace(b"\n", b"\r\n")


def _walk(part: Part) -> list[Part]:
    return [part, *(p for child in part.parts for p in _walk(child))]


def _built(content: MessageContent) -> list[MessageContent]:
    """pymap's parts in `_walk`'s order (a message/rfc822 part, then its message)."""
    return [content, *(p for child in content.body.nested for p in _built(child))]


def test_parts_sizes_and_lines_leave_the_delimiters_line_break_out() -> None:
    raw = _mixed()
    structure = mime_structure(raw)
    assert not structure.opaque and structure.root is not None
    parts = {part.section: part for part in _walk(structure.root)}
    assert sorted(parts) == ["", "1", "1.1", "1.2", "2"]
    plain = parts["1.1"]
    assert (plain.maintype, plain.subtype, plain.params) == ("text", "plain", {"charset": "utf-8"})
    # RFC 2046 §5.1.1: the CRLF before "--boundary" belongs to the delimiter.
    assert raw[plain.body_start : plain.body_end] == b"hello\r\nworld\r\n"
    assert plain.lines == 2
    assert raw[parts["1.2"].body_start : parts["1.2"].body_end] == b"<p>hi</p>\r\n"
    assert parts["2"].disposition == "attachment"
    assert parts["2"].disposition_params == {"filename": "a.pdf"}
    assert parts["2"].headers["content-transfer-encoding"] == "base64"
    assert structure.envelope is not None
    assert structure.envelope.fields["subject"] == "=?utf-8?q?caf=C3=A9?="
    assert structure.envelope.fields["from"] == "Ann <ann@x.example>"


def test_the_result_survives_json() -> None:
    nested = b"Content-Type: message/rfc822\r\n\r\n" + _mixed()
    for raw in (_mixed(), nested, b"", b"Subject: no body"):
        structure = mime_structure(raw)
        assert Structure.from_json(json.loads(json.dumps(structure.to_json()))) == structure


def test_a_message_rfc822_part_carries_the_inner_envelope() -> None:
    raw = b"Content-Type: message/rfc822\r\n\r\n" + _mixed()
    root = mime_structure(raw).root
    assert root is not None and root.envelope is not None
    assert root.envelope.fields["to"] == "bob@x.example"
    assert [p.section for p in _walk(root)] == ["", "1", "1.1", "1.1.1", "1.1.2", "1.2"]
    forwarded = b"Content-Type: multipart/mixed; boundary=f\r\n\r\n--f\r\n\r\nhi\r\n--f\r\n"
    forwarded += b"Content-Type: message/rfc822\r\n\r\n" + _mixed() + b"\r\n--f--\r\n"
    outer = mime_structure(forwarded).root
    assert outer is not None
    # RFC 3501 §6.4.5: the carried message's parts are numbered below its part, 2.
    assert [p.section for p in _walk(outer)] == ["", "1", "2", "2", "2.1", "2.1.1", "2.1.2", "2.2"]


def _parts(n: int) -> bytes:
    head = b"Content-Type: multipart/mixed; boundary=b\r\n\r\n"
    return head + b"--b\r\n\r\nx\r\n" * n + b"--b--\r\n"


OVER = {
    "parts": _parts(LIMITS.max_parts + 5),
    "depth": b"Content-Type: message/rfc822\r\n\r\n" * 300 + b"x\r\n",
    "multipart depth": b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i)
        for i in range(1_000)
    ),
    "header lines": b"Subject: s\r\n" + b" w\r\n" * 200_000 + b"\r\nbody\r\n",
    "header bytes": b"X-Long: " + b"y" * 300_000 + b"\r\n\r\nbody\r\n",
    "work": b"Content-Transfer-Encoding: quoted-printable\r\n\r\n" + b"=\r\n" * 2_100_000,
}


@pytest.mark.parametrize("bound", sorted(OVER))
def test_over_each_bound_the_message_is_opaque(bound: str) -> None:
    raw = OVER[bound]
    structure = mime_structure(raw)
    assert structure.opaque and structure.root is None and structure.reason
    assert structure.size == len(raw)
    assert is_opaque(raw)
    assert not plainly_within(raw)


def test_within_the_bounds_the_quick_counts_and_the_walk_agree() -> None:
    small = MimeLimits(max_parts=10)
    assert not is_opaque(_parts(8), small)
    assert is_opaque(_parts(10), small)
    for raw in (_mixed(), b"Subject: x\r\n\r\nhi\r\n", b""):
        assert plainly_within(raw)
        assert not mime_structure(raw).opaque
    # A long plain mail is not "plainly" within (many empty lines), yet is within.
    letter = b"Subject: x\r\n\r\n" + b"a paragraph\r\n\r\n" * 200
    assert not plainly_within(letter)
    assert not is_opaque(letter)


SMALL = MimeLimits(
    max_depth=2, max_parts=4, max_header_lines=10, max_header_bytes=400,
    max_total_header_bytes=1_000, max_work=200,
)  # fmt: skip


@given(messages)
@settings(max_examples=examples(150))
def test_any_message_is_walked_within_bounds_and_the_quick_answers_agree(raw: bytes) -> None:
    """Hostile MIME (tests/support/mime_fuzz.py): the walk never raises; the store's
    quick decision (`is_opaque`: counts, then a walk reading types only) is the full
    walk's; "plainly within" is never wrong; a result's parts nest and survive JSON;
    pymap's content built from it serves exactly the walk's bytes (imap_view/parts.py)."""
    for limits in (SMALL, LIMITS):
        structure = mime_structure(raw, limits)
        assert is_opaque(raw, limits) == structure.opaque
        assert not (plainly_within(raw, limits) and structure.opaque)
    structure = mime_structure(raw)
    assert Structure.from_json(json.loads(json.dumps(structure.to_json()))) == structure
    assert structure.root is not None
    content = content_of(raw, structure)
    assert bytes(content) == raw
    for part, built in zip(_walk(structure.root), _built(content), strict=False):
        assert part.header_start <= part.body_start <= part.body_end <= len(raw)
        assert bytes(built.body) == raw[part.body_start : part.body_end]
        for child in part.parts:
            assert part.body_start <= child.header_start <= child.body_end <= part.body_end
