"""A varied corpus of messages for the Dovecot differential test, built in process.

Every kind of structure a client meets: plain, 8-bit, quoted-printable, base64,
multipart/alternative, mixed with attachments, nested message/rfc822, a single
part, an empty body, parts with and without a line break of their own before the
delimiter, an empty part, a part that is all header, encoded-word and raw UTF-8
headers, RFC 2231 parameters, the extension fields. Each is `(name, bytes)` with
CRLF line ends (SMTP carries no other); `From`/`To` are the given address.
"""

from __future__ import annotations

import base64

__all__ = ["corpus"]


def _head(user: str, n: int, subject: str, extra: str = "") -> str:
    return (
        f"From: {user}\r\nTo: {user}\r\nSubject: {subject}\r\n"
        f"Date: Tue, 01 Dec 2026 10:{n:02d}:00 +0000\r\nMessage-ID: <corpus-{n}@x.example>\r\n"
        f"{extra}"
    )


def _pdf() -> str:
    data = base64.encodebytes(b"%PDF-1.4\n" + bytes(range(256)) * 3).decode()
    return data.replace("\n", "\r\n")


def corpus(user: str) -> list[tuple[str, bytes]]:
    items: list[tuple[str, str]] = []
    items.append(("plain", _head(user, 1, "plain") + "\r\nHello,\r\n\r\nthe build is green.\r\n"))
    items.append((
        "8bit",
        _head(user, 2, "8bit", "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: 8bit\r\n")
        + "\r\nCafé, naïve, 日本語.\r\n",
    ))  # fmt: skip
    items.append((
        "quoted-printable",
        _head(user, 3, "qp", "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: quoted-printable\r\n")
        + "\r\nCaf=C3=A9 au lait, a long line that is broken by a soft line break=\r\n"
        " here and goes on.\r\nLast line=\r\n",
    ))  # fmt: skip
    items.append((
        "base64 text",
        _head(user, 4, "b64", "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: base64\r\n")
        + "\r\n" + base64.b64encode("Grüße aus Zürich\r\n".encode()).decode() + "\r\n",
    ))  # fmt: skip
    items.append((
        "alternative",
        _head(user, 5, "alt", 'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; '
              'boundary="alt-1"\r\n')
        + "\r\n--alt-1\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nplain text\r\n"
        "\r\n--alt-1\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n<p>html</p>\r\n"
        "\r\n--alt-1--\r\n",
    ))  # fmt: skip
    items.append((
        "mixed with attachments",
        _head(user, 6, "mixed", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
              'boundary="mix"\r\n')
        + "\r\nThis is a multi-part message in MIME format.\r\n"
        '--mix\r\nContent-Type: multipart/alternative; boundary="inner"\r\n\r\n'
        "--inner\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\nsee the report=0A\r\n"
        "--inner\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<b>see</b> the report\r\n"
        "--inner--\r\n"
        '--mix\r\nContent-Type: application/pdf; name="report.pdf"\r\n'
        'Content-Disposition: attachment; filename="report.pdf"\r\n'
        "Content-Transfer-Encoding: base64\r\nContent-Description: the weekly report\r\n\r\n"
        + _pdf()
        + "--mix\r\nContent-Type: image/png\r\nContent-ID: <logo@x.example>\r\n"
        "Content-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n"
        "Content-Language: en, de\r\nContent-Location: http://x.example/logo.png\r\n\r\n"
        + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
        + "\r\n--mix--\r\nepilogue\r\n",
    ))  # fmt: skip
    inner = (
        "From: Bob <bob@x.example>\r\nTo: carol@x.example\r\nSubject: inner one\r\n"
        "Date: Mon, 30 Nov 2026 09:00:00 +0100\r\nMessage-ID: <inner@x.example>\r\n"
        'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="in2"\r\n\r\n'
        "--in2\r\nContent-Type: text/plain\r\n\r\ninner plain\r\n"
        "--in2\r\nContent-Type: text/html\r\n\r\n<i>inner</i>\r\n--in2--\r\n"
    )
    items.append((
        "nested message/rfc822",
        _head(user, 7, "fwd", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
              'boundary="fw"\r\n')
        + "\r\n--fw\r\nContent-Type: text/plain\r\n\r\nforwarded below\r\n"
        '--fw\r\nContent-Type: message/rfc822\r\nContent-Disposition: inline\r\n\r\n'
        + inner
        + "\r\n--fw--\r\n",
    ))  # fmt: skip
    items.append(("single part, one line", _head(user, 8, "single") + "\r\nonly line\r\n"))
    items.append(("empty body", _head(user, 9, "empty") + "\r\n"))
    items.append((
        "encoded words",
        "From: =?utf-8?q?Jos=C3=A9_P=C3=A9rez?= <" + user + ">\r\nTo: "
        "=?iso-8859-1?q?Fran=E7ois?= <" + user + ">\r\n"
        "Cc: Team: a@x.example, \"B, C\" <b@x.example>;\r\n"
        "Subject: =?utf-8?b?5o6S5p+l55m75b2V6Zeu6aKY?=\r\n"
        "Date: Tue, 01 Dec 2026 10:10:00 +0000\r\nMessage-ID: <corpus-10@x.example>\r\n"
        "In-Reply-To: <corpus-1@x.example>\r\nReply-To: replies@x.example\r\n\r\nbody\r\n",
    ))  # fmt: skip
    items.append((
        "raw UTF-8 headers",
        _head(user, 11, "Grüße, 张三")
        + 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="u"\r\n\r\n'
        "--u\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhallo\r\n"
        "--u\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Disposition: attachment; filename*=utf-8''%E6%8A%A5%E5%91%8A.txt\r\n\r\n"
        "报告\r\n--u--\r\n",
    ))  # fmt: skip
    items.append((
        "delimiter edges",
        _head(user, 12, "edges", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
              'boundary="e"\r\n')
        + "\r\n--e\r\nContent-Type: text/plain\r\n\r\nwith its own line break\r\n\r\n"
        "--e\r\nContent-Type: text/plain\r\n\r\nno line break of its own\r\n"
        "--e\r\nContent-Type: text/plain\r\n\r\n\r\n"
        "--e\r\nContent-Type: text/plain\r\n"
        "--e\r\n\r\nno header at all\r\n"
        "--e--\r\n",
    ))  # fmt: skip
    items.append((
        "multipart with no delimiter",
        _head(user, 13, "none", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
              'boundary="none"\r\n')
        + "\r\njust text, no part\r\n",
    ))  # fmt: skip
    items.append((
        "multipart without a boundary",
        _head(user, 14, "no boundary", "MIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n")
        + "\r\n--x\r\n\r\ntext\r\n--x--\r\n",
    ))  # fmt: skip
    items.append((
        "close delimiter, then a delimiter",
        _head(user, 15, "closes", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; '
              'boundary="o"\r\n')
        + '\r\n--o\r\nContent-Type: multipart/alternative; boundary="i"\r\n\r\n'
        "--i\r\nContent-Type: text/plain\r\n\r\na\r\n--i--\r\n"
        "--o\r\nContent-Type: message/rfc822\r\n\r\n"
        + inner
        + "--o--\r\n",
    ))  # fmt: skip
    items.append((
        "digest",
        _head(user, 16, "digest", 'MIME-Version: 1.0\r\nContent-Type: multipart/digest; '
              'boundary="d"\r\n')
        + "\r\n--d\r\n\r\nFrom: x@x.example\r\nSubject: first\r\n\r\none\r\n"
        "--d\r\n\r\nFrom: y@x.example\r\nSubject: second\r\n\r\ntwo\r\n--d--\r\n",
    ))  # fmt: skip
    return [(name, text.encode()) for name, text in items]
