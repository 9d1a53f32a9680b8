"""Content-Transfer-Encodings undone for BINARY (RFC 3516), as RFC 2045 defines them.

pymap 0.36 decodes through `MessageDecoder`, whose `registry` (its public hook) is
filled here:

- `quoted-printable` by RFC 2045 §6.7: whitespace at the end of a line is padding
  added in transport and is deleted, and a line ending in `=` (after that padding
  is gone) is a soft line break. Python's `quopri` keeps the padding (imaptest's
  fetch-binary-mime-qp: `BINARY.SIZE[1]` was 78 where Dovecot says 65).
- `base64` leniently, as §6.8 asks ("any characters outside the base64 alphabet
  are to be ignored"): pymap's strict decoder raised on them, and the exception
  ended the connection in the middle of a FETCH.
- `binary` (§6.2) as it is: pymap knew no such encoding and raised likewise.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence

from pymap.bytes import Writeable
from pymap.mime import MessageBody, MessageContent
from pymap.mime.cte import MessageDecoder

__all__ = [
    "KNOWN",
    "decode_base64",
    "decode_quoted_printable",
    "decoded",
    "install",
    "unknown_encoding",
]

# What BINARY can undo; another encoding is `NO [UNKNOWN-CTE]` (RFC 3516 §4.3).
KNOWN = frozenset({"7bit", "8bit", "binary", "quoted-printable", "base64"})

_LINES = re.compile(rb"(\r?\n)")
_ESCAPE = re.compile(rb"=([0-9A-Fa-f]{2})")
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")


def decode_quoted_printable(data: bytes) -> bytes:
    """RFC 2045 §6.7 (rules 1, 3 and 5, and the soft line break)."""
    out: list[bytes] = []
    pieces = _LINES.split(data)
    for at in range(0, len(pieces), 2):
        line = pieces[at].rstrip(b" \t")
        ending = pieces[at + 1] if at + 1 < len(pieces) else b""
        soft = line.endswith(b"=")
        if soft:
            line = line[:-1]
        out.append(_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), line))
        if not soft:
            out.append(ending)
    return b"".join(out)


class _QuotedPrintable(MessageDecoder):
    def decode(self, body: MessageBody) -> Writeable:
        return Writeable.wrap(decode_quoted_printable(bytes(body)))


def decode_base64(data: bytes) -> bytes:
    """RFC 2045 §6.8, leniently: what is outside the alphabet is ignored."""
    usable = _NOT_BASE64.sub(b"", data.split(b"=", 1)[0])  # `=` pads the end
    if len(usable) % 4 == 1:  # a lone sextet holds no whole octet
        usable = usable[:-1]
    usable += b"=" * (-len(usable) % 4)  # the alphabet and length are valid now
    return binascii.a2b_base64(usable)


class _Base64(MessageDecoder):
    def decode(self, body: MessageBody) -> Writeable:
        return Writeable.wrap(decode_base64(bytes(body)))


class _AsItIs(MessageDecoder):
    def decode(self, body: MessageBody) -> Writeable:
        return body


def _encoding(part: MessageContent) -> str:
    header = part.header.parsed.content_transfer_encoding
    return str(header).strip().lower() if header is not None else "7bit"


def decoded(part: MessageContent) -> Writeable:
    """The part's body with its encoding undone (a known one: `unknown_encoding` is asked
    first). Its field's value is read stripped of white space: pymap looked up a field
    folded onto a second line (`Content-Transfer-Encoding:` CRLF ` binary`) as " binary",
    knew no such encoding, and the error ended the connection."""
    encoding = _encoding(part)
    if encoding in ("7bit", "8bit"):
        return part.body
    return MessageDecoder.registry[encoding].decode(part.body)


def unknown_encoding(content: MessageContent, section: Sequence[int]) -> str | None:
    """The encoding of that part if BINARY cannot undo it (RFC 3516 §4.3), else None;
    the part is found as pymap finds it (a missing one: None, pymap answers empty). The
    whole message (no section) is decoded part by part (imap_view/binary_message.py):
    the first of its parts' encodings that cannot be undone."""
    if not section:
        unknown = (_encoding(part) for part in content.walk())
        return next((encoding for encoding in unknown if encoding not in KNOWN), None)
    part = content
    for number in section:
        if part.body.has_nested:
            if not 0 < number <= len(part.body.nested):
                return None
            part = part.body.nested[number - 1]
        elif number != 1:
            return None
    encoding = _encoding(part)
    return None if encoding in KNOWN else encoding


def install() -> None:
    """Idempotent; called when the IMAP server module is imported."""
    MessageDecoder.registry.update(
        {"quoted-printable": _QuotedPrintable(), "base64": _Base64(), "binary": _AsItIs()}
    )
