"""Hostile RFC 5322 messages for fuzzing MIME ingest: a hypothesis strategy of bytes.

Structure-aware, so the parser gets past the first line: header fields (8-bit
bytes, encoded words in unknown or broken charsets, very long and folded values),
bodies in any transfer encoding and charset, multiparts nested a few levels with
missing or wrong boundaries, and the whole message cut off anywhere.
"""

from __future__ import annotations

from hypothesis import strategies as st

from core.mail.html_text import MAX_HTML_DEPTH, MAX_HTML_ELEMENTS
from core.mime.bounds import LIMITS
from tests.support import mime_bounds as bounds

NAMES = [
    b"From", b"To", b"Cc", b"Subject", b"Message-ID", b"In-Reply-To", b"References",
    b"Content-Type", b"Content-Transfer-Encoding", b"Content-Disposition", b"MIME-Version",
    b"Date", b"Reply-To", b"X-Any", b"From ", b"", b"\xff\xfe",
]  # fmt: skip
VALUES = [
    b"alice@agentmail.localhost", b"Alice <alice@agentmail.localhost>", b"<a@b>", b"<>",
    b"=?utf-8?B?w6k=?=", b"=?bogus?Q?caf=E9?=", b"=?utf-8?B?!!!?=", b"=?utf-8?Q?=FF=FE?=",
    b"=?iso-8859-1?q?caf=E9?=", b"=?utf-7?B?Kw==?=", b"=?", b"?=", b"caf\xc3\xa9", b"\xff\xfe",
    b"multipart/mixed; boundary=B", b"multipart/alternative; boundary=\"C\"",
    b"text/plain; charset=bogus", b"text/plain; charset=utf-16", b"text/html; charset=utf-8",
    b"message/rfc822", b"application/octet-stream; name*=utf-8''%E9%FF", b"base64",
    b"quoted-printable", b"8bit", b"x-uuencode", b"attachment; filename=\"a\x00b.txt\"",
    b"attachment; filename*0*=utf-8''%C3; filename*1*=%A9", b"(comment", b"\"unclosed",
    b",,,,", b"a@b, , <c@d>", b"Mon, 32 Foo 99999 25:61:61 +9999",
]  # fmt: skip
BODIES = [
    b"hello", b"\xc3\xa9\xff", b"=E9=\r\n=ZZ", b"aGVsbG8=", b"!!!!", b"--B\r\n", b"--B--",
    b"--C\r\nContent-Type: text/plain\r\n\r\nx\r\n--C--", b"begin 644 a\r\n`\r\nend",
    b".\r\n", b"\x00", b"\r\n\r\n",
]  # fmt: skip

_line_bytes = st.binary(max_size=30).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_folded = st.lists(st.sampled_from(VALUES), min_size=1, max_size=4).map(b"\r\n ".join)
_value = st.one_of(
    *[st.sampled_from(VALUES)] * 4,
    *[_line_bytes] * 3,
    *[_folded] * 3,
    st.integers(990, 1200).map(lambda n: b"x" * n),  # over RFC 5322's 998: rarer
)
_field = st.tuples(st.sampled_from(NAMES), _value).map(lambda t: t[0] + b": " + t[1])
_headers = st.lists(_field, max_size=12).map(lambda fields: b"\r\n".join(fields) + b"\r\n\r\n")


def _multipart(children: list[bytes], boundary: bytes, close: bool) -> bytes:
    parts = b"".join(b"--" + boundary + b"\r\n" + child + b"\r\n" for child in children)
    head = b"Content-Type: multipart/mixed; boundary=" + boundary + b"\r\n\r\n"
    return head + parts + (b"--" + boundary + b"--\r\n" if close else b"")


_leaf = st.tuples(_headers, st.sampled_from(BODIES) | st.binary(max_size=80)).map(b"".join)
_entity = st.recursive(
    _leaf,
    lambda inner: st.builds(
        _multipart,
        st.lists(inner, max_size=3),
        st.sampled_from([b"B", b"C", b"B", b'"q"', b""]),
        st.booleans(),
    ),
    max_leaves=6,
)


def _cut(message: bytes, at: int | None) -> bytes:
    return message if at is None else message[: at % (len(message) + 1)]


messages = st.builds(
    _cut,
    st.tuples(_headers, _entity).map(b"".join),
    st.none() | st.integers(0, 10_000),
)


# Messages over the bounds of reading (tests/support/mime_bounds.py), at sizes a CI run
# affords: deep MIME nesting, many parts, long folded headers, quoted-printable soft
# breaks, deeply nested and very long HTML, and HTML nested inside deep MIME.
def _html_in_multipart(depth: int, divs: int) -> bytes:
    html = bounds.nested_divs(divs).split(b"\r\n\r\n", 1)[1]
    innermost = b"Content-Type: text/html\r\n\r\n" + html
    return bounds.nested_multiparts(depth, "html inside", innermost)


def _table(rows: int) -> bytes:
    row = b"<tr><td>cell</td><td>&amp;</td></tr>\r\n"
    return bounds.nested_divs(1, subject="table").replace(b"<div>deep inside", row * rows)


def _sizes(edges: list[int], top: int) -> st.SearchStrategy[int]:
    """Sizes at and across a bound (drawn often), or anything up to `top`."""
    return st.sampled_from(edges) | st.integers(1, top)


MAX_DEPTH, MAX_PARTS = LIMITS.max_depth, LIMITS.max_parts
_DEPTHS = [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 300, 1000]
pathological = st.one_of(
    _sizes(_DEPTHS, 1200).map(bounds.nested_multiparts),
    _sizes(_DEPTHS[:-1], 400).map(bounds.nested_messages),
    _sizes([MAX_PARTS - 1, MAX_PARTS, 2000], 3000).map(bounds.many_parts),
    _sizes([20_000, 60_000], 60_000).map(bounds.folded_subject),
    _sizes([100_000, 250_000], 300_000).map(bounds.soft_breaks),
    _sizes([MAX_HTML_DEPTH, MAX_HTML_DEPTH + 1, 5000, 60_000], 60_000).map(bounds.nested_divs),
    _sizes([MAX_HTML_ELEMENTS // 3, 20_000], 20_000).map(_table),
    st.builds(_html_in_multipart, _sizes(_DEPTHS[:3], 40), _sizes([5000], 5000)),
)
