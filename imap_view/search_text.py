"""The text SEARCH BODY and TEXT match in, part by part, as Dovecot 2.3 makes it.

RFC 3501 §6.4.4: BODY matches "in the body of the message", TEXT "in the header or
body". Dovecot, the differential tests' oracle, searches each MIME part on its own
(src/lib-mail/message-search.c): a part's body if its type is text/* or message/*
(or it has no Content-Type), its Content-Transfer-Encoding undone (RFC 2045 §6.7
quoted-printable, its soft line breaks too; §6.8 base64; an unknown encoding is not
searched), its charset converted (an unknown one read as UTF-8); for TEXT, before
it, the part's header fields, each `Name: value` with its encoded-words decoded. The
text is matched in i;unicode-casemap (imap_view/casemap.py). Multipart preambles and
epilogues are not searched, nor the body of any other type.

The parts are those of the bounded walk (core/mime/structure.py). A message over the
MIME bounds is searched as its bytes, its header and body each one text (docs/imap.md,
"Opaque messages"). The work is proportional to the message's size and parts: run it
in a worker thread.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from core.mime.header_decoding import decode_words, header_text, lenient_base64
from core.mime.headers import header_fields, header_split
from core.mime.structure import Part, mime_structure
from imap_view.casemap import casemap

__all__ = ["PartText", "part_texts"]

_SEARCHED_TYPES: Final = frozenset(("text", "message"))
# Charsets Dovecot reads as UTF-8 (its octets over 127 too, as mail often has them).
_UTF8_NAMES: Final = frozenset(("utf-8", "utf8", "us-ascii", "ascii"))
_LINE_BREAKS: Final = re.compile(rb"\r?\n")
# RFC 2045 §6.1 mechanism: a token, maybe a comment or parameters after it.
_ENCODING: Final = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:\(.*\)\s*)?(?:;.*)?", re.S)


@dataclass(frozen=True, slots=True)
class PartText:
    """One part's text in i;unicode-casemap: its header fields (empty unless asked)
    and its body (empty when not searched)."""

    header: str
    body: str

    def holds(self, needle: str, *, header: bool) -> bool:
        """Whether `needle` (casemapped) is in the body, or with `header` in the header,
        the body, or across the two (they are searched as one text)."""
        if needle in self.body:
            return True
        if not header:
            return False
        if needle in self.header:
            return True
        reach = len(needle) - 1
        return reach > 0 and needle in self.header[-reach:] + self.body[:reach]


def _fields_text(data: bytes, start: int, end: int) -> str:
    """The header fields in `data[start:end]`, each `Name: value\\r\\n` unfolded with its
    encoded-words decoded, then the empty line that ends them."""
    lines = []
    for name, folded in header_fields(data, start, end):
        raw = data[folded[0][0] : folded[-1][1]].partition(b":")[2]
        value = _LINE_BREAKS.sub(b"", raw).replace(b"\t", b" ").lstrip(b" ")
        lines.append(f"{name.decode('ascii', 'replace')}: {decode_words(header_text(value))}\r\n")
    lines.append("\r\n")
    return "".join(lines)


def _decoded(data: bytes, part: Part) -> bytes | None:
    """The part's body with its Content-Transfer-Encoding undone; None for one unknown."""
    raw = data[part.body_start : part.body_end]
    written = part.headers.get("content-transfer-encoding")
    if written is None:
        return raw
    found = _ENCODING.fullmatch(written)
    encoding = found.group(1).lower() if found else ""
    if encoding in ("7bit", "8bit", "binary"):
        return raw
    if encoding == "quoted-printable":
        return binascii.a2b_qp(raw)
    if encoding == "base64":
        return lenient_base64(raw)
    return None


def _body_text(data: bytes, part: Part) -> str:
    if part.parts or part.maintype not in _SEARCHED_TYPES:
        return ""
    body = _decoded(data, part)
    if body is None:
        return ""
    charset = part.params.get("charset", "utf-8").lower()
    if charset in _UTF8_NAMES:
        return casemap(header_text(body))
    try:
        text = body.decode(charset, "replace")
    except (LookupError, UnicodeError, ValueError):  # a charset Python has no codec for
        text = header_text(body)
    return casemap(text)


def part_texts(data: bytes, opaque: bool, *, headers: bool) -> Iterator[PartText]:
    """Each part's text (see module doc), the header fields with `headers` (TEXT)."""
    structure = None if opaque else mime_structure(data)
    if structure is None or structure.root is None:  # over the bounds: its bytes
        fields_end, body_start = header_split(data)
        header = casemap(header_text(data[:fields_end])) if headers else ""
        yield PartText(header, casemap(header_text(data[body_start:])))
        return
    waiting = [structure.root]
    while waiting:
        part = waiting.pop()
        header = _fields_text(data, part.header_start, part.body_start) if headers else ""
        yield PartText(casemap(header), _body_text(data, part))
        waiting.extend(reversed(part.parts))
