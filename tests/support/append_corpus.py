"""Messages a mail client APPENDs, for the Dovecot differential test of APPEND
(tests/integration/test_imap_dovecot_append.py): each with the flags, keywords and
internal date it is APPENDed with, and whether it goes as a literal8 (RFC 3516).

What clients put into a folder that no SMTP submission would carry: 8-bit text without
a MIME header, octets in a `binary` part (a literal8), a last line without CRLF, an empty
body, a header with no body at all, a forwarded message/rfc822, lines of several
thousand octets, no Date (SORT's DATE then reads INTERNALDATE), a folded Subject, flags
and keywords, internal dates in several zones, a Date no parser reads and one folded
with a comment. Line ends are CRLF (the gateway serves
the bytes it keeps; docs/imap.md, "Message content").
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

__all__ = ["Appended", "append_corpus"]


@dataclass(frozen=True, slots=True)
class Appended:
    name: str
    raw: bytes
    flags: tuple[str, ...] = ()
    internal_date: str | None = None  # RFC 3501 date-time, `"01-Feb-2026 10:00:00 +0100"`
    literal8: bool = False


def _head(n: int, subject: str, extra: str = "", *, date: bool = True) -> bytes:
    sent = f"Date: Mon, 0{n % 9 + 1} Feb 2026 0{n % 10}:30:00 +0000\r\n" if date else ""
    return (
        f"From: Sender {n} <sender{n}@example.org>\r\nTo: alice@example.org\r\n"
        f"Subject: {subject}\r\n{sent}Message-ID: <append-{n}@example.org>\r\n{extra}"
    ).encode()


def _attachment() -> bytes:
    data = base64.encodebytes(bytes(range(256)) * 4).replace(b"\n", b"\r\n")
    return (
        b"\r\n--mixed\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nSee attached.\r\n"
        b'--mixed\r\nContent-Type: application/octet-stream; name="data.bin"\r\n'
        b'Content-Disposition: attachment; filename="data.bin"\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\n" + data + b"--mixed--\r\n"
    )


def _forward() -> bytes:
    inner = _head(90, "the original", "MIME-Version: 1.0\r\n") + b"\r\nWhat was said.\r\n"
    return (
        b"\r\n--fwd\r\nContent-Type: text/plain\r\n\r\nForwarded below.\r\n"
        b"--fwd\r\nContent-Type: message/rfc822\r\n\r\n" + inner + b"--fwd--\r\n"
    )


def append_corpus() -> list[Appended]:
    mime = "MIME-Version: 1.0\r\n"
    long_line = b"word " * 800  # 4,000 octets on one line
    return [
        Appended(
            "plain, seen and flagged",
            _head(1, "plain") + b"\r\nHello,\r\nthe build is green.\r\n",
            ("\\Seen", "\\Flagged"),
            "01-Feb-2026 10:00:00 +0100",
        ),
        Appended(
            "8-bit text without a MIME header",
            _head(2, "8bit") + "\r\nCafé, naïve, 日本語.\r\n".encode(),
            ("$Label1",),
            "02-Feb-2026 23:59:59 -0800",
        ),
        Appended(
            "8-bit with its charset",
            _head(
                3,
                "charset",
                mime + "Content-Type: text/plain; charset=utf-8\r\n"
                "Content-Transfer-Encoding: 8bit\r\n",
            )
            + "\r\nGrüße aus Zürich.\r\n".encode(),
            ("\\Answered", "$Label2", "project-x"),
            "03-Feb-2026 00:00:00 +0000",
        ),
        Appended(
            "binary attachment in base64",
            _head(4, "attachment", mime + "Content-Type: multipart/mixed; boundary=mixed\r\n")
            + _attachment(),
            ("\\Draft",),
            "04-Feb-2026 12:30:00 +0530",
        ),
        Appended(
            "octets in a binary part, as a literal8",
            _head(
                5,
                "octets",
                mime + "Content-Type: application/octet-stream\r\n"
                "Content-Transfer-Encoding: binary\r\n",
            )
            + b"\r\n\x00\x01\x02binary\xff\xfe\r\n",
            internal_date="04-Feb-2026 18:00:00 +0000",
            literal8=True,
        ),
        Appended(
            "no CRLF after the last line",
            _head(6, "no final line break") + b"\r\nfirst line\r\nlast line, no CRLF",
            ("\\Seen",),
            "05-Feb-2026 08:00:00 +0200",
        ),
        Appended("empty body", _head(7, "empty") + b"\r\n", (), "06-Feb-2026 08:00:00 +0000"),
        Appended(
            "header only, no empty line",
            _head(8, "all header"),
            ("\\Deleted",),
            "07-Feb-2026 08:00:00 +0000",
        ),
        Appended(
            "forwarded message/rfc822",
            _head(9, "Fwd: the original", mime + "Content-Type: multipart/mixed; boundary=fwd\r\n")
            + _forward(),
            ("$Forwarded",),
            "08-Feb-2026 08:00:00 +0000",
        ),
        Appended(
            "long lines and a folded subject",
            _head(10, "a subject\r\n that is folded\r\n over three lines")
            + b"\r\n"
            + long_line
            + b"\r\n"
            + long_line.upper()
            + b"\r\n",
            (),
            "09-Feb-2026 08:00:00 +0000",
        ),
        Appended(
            "no Date",
            _head(11, "undated", date=False) + b"\r\nWhen was this sent?\r\n",
            ("\\Seen", "$Label1"),
            "10-Feb-2026 08:00:00 +0000",
        ),
        Appended(
            "a Date no one reads",
            _head(12, "unreadable date", "Date: sometime last week\r\n", date=False)
            + b"\r\nRead me.\r\n",
            (),
            "11-Feb-2026 08:00:00 +0000",
        ),
        Appended(
            "a Date folded, with a comment, and the wrong weekday",
            _head(
                13, "folded date", "Date: Fri,\r\n 13 Feb 2026 23:30:00 -0800 (PST)\r\n", date=False
            )
            + b"\r\nLate on Friday.\r\n",
            (),
            "12-Feb-2026 08:00:00 +0000",
        ),
    ]
