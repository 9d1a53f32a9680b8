"""A message over the MIME bounds (core/mime/bounds.py) as pymap content, made without
parsing it: one part, its bytes served as they are (docs/imap.md, "Opaque messages").

The header section and the body are found with two `bytes.find`; the body is one
text/plain part (`BODY[1]` and `BODY[TEXT]` are the body's bytes, `BODY[HEADER]` the
header's); ENVELOPE reads only its own fields, within the first `SCAN_BYTES` of the
header and each folded over at most `FIELD_LINES` lines (a longer one is NIL). pymap
is given the pieces through its public constructors (`MessageHeader`, `MessageBody`,
`MessageContent`, imap_view/parts.py), so nothing else of it changes.
"""

from __future__ import annotations

import base64
from email.headerregistry import ContentTypeHeader, HeaderRegistry
from typing import Final

from pymap.mime import MessageContent, MessageHeader

from core.mime.headers import header_fields, header_split
from core.mime.summary import ENVELOPE_FIELDS, FIELD_LINES, SCAN_BYTES
from imap_view.parts import CountedBody

__all__ = ["FIELD_LINES", "SCAN_BYTES", "OpaqueContent", "opaque_content"]

_registry = HeaderRegistry()


def _text_plain(charset: str) -> ContentTypeHeader:
    header = _registry("content-type", f"text/plain; charset={charset}")
    assert isinstance(header, ContentTypeHeader)
    return header


_ASCII: Final = _text_plain("us-ascii")
_UTF8: Final = _text_plain("utf-8")


class OpaqueContent(MessageContent):
    """The whole message as one part; `eight_bit` says whether its body has bytes over
    127 (its BODYSTRUCTURE, imap_view/structure.py)."""

    __slots__ = ["eight_bit"]

    eight_bit: bool


def opaque_content(data: bytes) -> OpaqueContent:
    """CPU work proportional to the size only (C-speed scans): run it in a worker thread."""
    fields_end, body_start = header_split(data)
    scan_end = fields_end
    if scan_end > SCAN_BYTES:
        scan_end = data.rfind(b"\n", 0, SCAN_BYTES) + 1
    fields = header_fields(data, 0, scan_end, wanted=ENVELOPE_FIELDS, max_field_lines=FIELD_LINES)
    folded = [(base64.b64encode(name).decode("ascii"), lines) for name, lines in fields]
    header = MessageHeader(data, [(0, fields_end, body_start)], folded)
    size = len(data)
    body_bytes = data[body_start:]
    eight_bit = not body_bytes.isascii()
    kind = _UTF8 if eight_bit else _ASCII
    body = CountedBody(data, (body_start, size), kind, [], body_bytes.count(b"\n"))
    content = OpaqueContent(data, header, body)
    content.eight_bit = eight_bit
    return content
