"""Messages over the bounds of reading a message, as a hostile sender writes them.

Each is complete (From, To, Subject, Date, Message-ID), so the gateway adds no
header and serves back exactly these bytes; every line is under RFC 5321's 1,000.
"""

from __future__ import annotations

import uuid

FROM = b"alice@agentmail.localhost"


def _head(subject: str, content_type: bytes, extra: bytes = b"") -> bytes:
    return (
        b"From: " + FROM + b"\r\nTo: " + FROM + b"\r\nSubject: " + subject.encode()
        + b"\r\nDate: Thu, 03 Dec 2026 08:00:00 +0000\r\nMessage-ID: <"
        + uuid.uuid4().hex.encode() + b"@bounds.example>\r\nMIME-Version: 1.0\r\n"
        + b"Content-Type: " + content_type + b"\r\n" + extra + b"\r\n"
    )  # fmt: skip


INNERMOST = b"Content-Type: text/plain\r\n\r\nthe innermost part\r\n"


def nested_multiparts(
    depth: int, subject: str = "nested 1,000 deep", innermost: bytes = INNERMOST
) -> bytes:
    """`depth` multiparts, each the only part of the one around it (RFC 2046 §5.1)."""
    body = innermost
    for level in range(depth - 1, 0, -1):
        boundary = b"b%d" % level
        head = b"Content-Type: multipart/mixed; boundary=" + boundary + b"\r\n\r\n"
        body = head + b"--" + boundary + b"\r\n" + body + b"--" + boundary + b"--\r\n"
    return _head(subject, b"multipart/mixed; boundary=b0") + b"--b0\r\n" + body + b"--b0--\r\n"


def nested_messages(depth: int, subject: str = "message/rfc822 300 deep") -> bytes:
    """A message forwarded as `message/rfc822` in a message, `depth` times."""
    body = b"Content-Type: text/plain\r\n\r\nthe innermost message\r\n"
    for level in range(depth - 1):
        body = b"Content-Type: message/rfc822\r\n\r\nSubject: level %d\r\n" % level + body
    return _head(subject, b"message/rfc822") + b"Subject: outer\r\n" + body


def nested_divs(depth: int, subject: str | None = None) -> bytes:
    """HTML of `depth` nested `<div>` around two words, 150 tags a line."""
    lines = [b"<div>" * 150] * (depth // 150) + [b"<div>" * (depth % 150) + b"deep inside"]
    lines += [b"</div>" * (depth % 150)] + [b"</div>" * 150] * (depth // 150)
    title = subject or f"{depth:,} nested divs"
    return _head(title, b"text/html; charset=utf-8") + b"\r\n".join(lines) + b"\r\n"


def soft_breaks(lines: int, subject: str = "quoted-printable soft breaks") -> bytes:
    """Quoted-printable text of `lines` soft line breaks, one character each."""
    cte = b"Content-Transfer-Encoding: quoted-printable\r\n"
    return _head(subject, b"text/plain; charset=utf-8", cte) + b"a=\r\n" * lines + b"end\r\n"


def many_parts(parts: int, subject: str = "many parts") -> bytes:
    """A multipart of `parts` one-line text parts."""
    body = b"".join(b"--p\r\nContent-Type: text/plain\r\n\r\n%d\r\n" % n for n in range(parts))
    return _head(subject, b"multipart/mixed; boundary=p") + body + b"--p--\r\n"


def folded_subject(lines: int) -> bytes:
    """A Subject folded over `lines` lines (RFC 5322 §2.2.3)."""
    return _head("folded" + "\r\n x" * lines, b"text/plain") + b"a folded subject\r\n"
