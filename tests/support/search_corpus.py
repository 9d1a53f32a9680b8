"""Messages that trip an address or text reader, and the commands asked of them.

The kinds of imaptest's `fetch-envelope`, `search-addresses` and `search-body` groups
(docs/testing.md): names written as comments, source routes, groups, empty and
repeated fields; words a part's header, a quoted-printable soft line break, base64,
a charset, a multipart's preamble or a carried message hide. The differential test
(tests/integration/test_imap_dovecot_search.py) APPENDs them to the gateway and to
Dovecot and asks both `COMMANDS`.
"""

from __future__ import annotations

import base64

__all__ = ["COMMANDS", "MESSAGES"]


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-8")


def _literal(text: str) -> bytes:
    """A search string as a LITERAL+ (RFC 7888), its UTF-8 octets."""
    data = text.encode("utf-8")
    return b"{%d+}\r\n%b" % (len(data), data)


_MIXED = (
    _crlf(
        """From: Mixed <mixed@example.org>
Subject: mixed parts
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

preambleword here
--b1
Content-Type: text/plain; charset=utf-8
X-Part: partheaderword

parttext one
--b1
Content-Type: text/html; charset=utf-8

<p><b>htmlword</b></p>
--b1
Content-Type: application/octet-stream
Content-Transfer-Encoding: base64

"""
    )
    + base64.encodebytes(b"binary attachmentword inside\n").replace(b"\n", b"\r\n")
    + _crlf(
        """--b1
Content-Type: message/rfc822

From: Inner <inner@example.org>
Subject: innersubjectword

innerbodyword
--b1--
epilogueword
"""
    )
)

MESSAGES: list[bytes] = [
    _crlf(
        """From: user-from@domain.org
To: user-to@domain.org
Cc: user-cc@domain.org
Bcc: user-bcc@domain.org
Date: Thu, 15 Feb 2007 01:02:03 +0200

asdfghjkl zxcvbnm
"""
    ),
    _crlf(
        """From: RealFrom <user-from@domain.org>
To: RealTo <user-to@domain.org>
Cc: RealCc <user-cc@domain.org>
Bcc: RealBcc <user-bcc@domain.org>
Subject: qwertyuiop

asdfghjkl
"""
    ),
    _crlf(
        """From: <user-from (comment)@ (comment) domain.org>
To: <user-to@domain.org>
X-Header: qwertyuiop

zxcvbnm
"""
    ),
    _crlf(
        """From: user-from@domain.org (RealFrom)
To: user-to@domain.org (RealTo)
Cc: user-cc@domain.org (Real (nested) Cc)
Bcc: user-bcc@domain.org (RealBcc)
Sender:
Reply-To:

zxcvbnm qwertyuiop
"""
    ),
    _crlf(
        """From: user-from1@domain.org, user-from2@domain.org
To: groupname: groupuser1@domain.org, groupuser2@domain.org;,
  groupname2: groupuser3@domain.org;
Cc: group:;, group2: (foo) ;

groups
"""
    ),
    _crlf(
        """From: <@route:user@domain>
To: <@a.example,@b.example:routed@domain>
Cc: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <jm@example.org>
Bcc: "O'Brien, Pat" <pat@example.org>, "Quoted \\"Name\\"" <q@example.org>
Subject: spaced    out   subject

routes and names
"""
    ),
    _crlf(
        """From: Just A Name
To: bare
Cc: john. doe@example.com
Bcc: ok@example.org (first) (second)
Subject: broken addresses

broken
"""
    ),
    _crlf(
        """From: qp@example.org
Subject: quoted
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

a softly broken quoted=
printable word, and =C3=A9t=C3=A9
"""
    ),
    _crlf(
        """From: b64@example.org
Subject: encoded
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64

"""
    )
    + base64.encodebytes("hidden base64word and café\n".encode()).replace(b"\n", b"\r\n"),
    b"From: latin@example.org\r\nSubject: latin\r\nMIME-Version: 1.0\r\n"
    b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
    b"un caf\xe9 noir\r\n",
    _crlf(
        """From: uu@example.org
Subject: unknown encoding
Content-Type: text/plain
Content-Transfer-Encoding: x-uuencode

uuword
"""
    ),
    _MIXED,
    _crlf(
        """Date:   thu,  15 feb 07 1:2:3 EST (a zone)\t
Subject: \t a  subject
  folded   twice
From: dated@example.org

a date as written
"""
    ),
]

_ADDRESSED = [
    b"FROM user-from@domain.org", b"FROM realfrom", b"FROM ealfro", b"FROM ser-fro",
    b"FROM user-from1", b"FROM comment", b"FROM route", b"FROM <@route:",
    b"FROM name", b"TO ser-t", b"TO realto", b"TO groupname", b"TO groupname2",
    b"TO groupuser3", b"TO routed", b"TO bare", b"TO <@a.example,@b.example:",
    b"CC realcc", b"CC nested", b"CC group", b"CC foo", b"CC \"jurgen\"",
    b"CC " + _literal("jürgen"), b"CC missing_domain", b"CC doe", b"BCC realbcc",
    b"BCC \"o'brien\"", b"BCC \"brien, pat\"", b"BCC \"\\\"name\"", b"BCC first",
    b"BCC second", b"HEADER FROM \"\"", b"HEADER BCC \"\"",
]  # fmt: skip
_TEXTS = [
    b"asdfghjkl", b"zxcvbnm", b"qwertyuiop", b"wertyuio", b"quotedprintable",
    _literal("été"), _literal("ÉTÉ"), b"base64word", _literal("café"), b"preambleword",
    b"parttext", b"partheaderword", b"x-part",
    b"htmlword", b"attachmentword", b"epilogueword", b"innersubjectword", b"innerbodyword",
    b"uuword", b"\"subject: qwerty\"", b"\"softly broken\"",
]  # fmt: skip
COMMANDS: list[bytes] = [b"SEARCH CHARSET UTF-8 " + key for key in _ADDRESSED] + [
    b"SEARCH CHARSET UTF-8 " + kind + b" " + text for text in _TEXTS for kind in (b"BODY", b"TEXT")
]
