"""pymap content built from a message's structure as core/mime computes it, not by
pymap's own parser.

pymap 0.36's parser gives each part of a multipart the line break before the next
delimiter (RFC 2046 §5.1.1 says it belongs to the delimiter), so `BODY[n]` ended
with it and BODYSTRUCTURE's sizes were 2 too large; it counted a last line without
a line break as a line; an empty part body became the whole message up to its last
byte (its byte ranges come from an empty line list); and its parse has no bounds.
`core/mime/structure.py` walks the message under bounds with Dovecot's reading of
the delimiters; here its parts become pymap's `MessageContent`, `MessageHeader` and
`MessageBody` through their public constructors, byte ranges as one line each, so
every part's bytes are the walk's. A body's `lines` is its line feeds, as Dovecot
counts them for BODYSTRUCTURE.
"""

from __future__ import annotations

import base64
from email.headerregistry import ContentTypeHeader, HeaderRegistry

from pymap.mime import MessageBody, MessageContent, MessageHeader

from core.mime.headers import header_fields
from core.mime.structure import Part, Structure

__all__ = ["CountedBody", "content_of", "header_of"]

_registry = HeaderRegistry()


class CountedBody(MessageBody):
    """A body whose `lines` is the number of line feeds in it (given, not counted)."""

    __slots__ = ["_line_feeds"]

    def __init__(
        self,
        data: bytes,
        span: tuple[int, int],
        content_type: ContentTypeHeader,
        nested: list[MessageContent],
        line_feeds: int,
    ) -> None:
        start, end = span
        super().__init__(data, [(start, end, end)], content_type, nested)
        self._line_feeds = line_feeds

    @property
    def lines(self) -> int:
        return self._line_feeds


def header_of(data: bytes, start: int, fields_end: int, body_start: int) -> MessageHeader:
    """The header section `data[start:body_start]` (its empty line included, as pymap
    keeps it), with its fields as found in `data[start:fields_end]`."""
    folded = [
        (base64.b64encode(name).decode("ascii"), lines)
        for name, lines in header_fields(data, start, fields_end)
    ]
    return MessageHeader(data, [(start, body_start, body_start)], folded)


_DEFAULTS: dict[str, ContentTypeHeader] = {}


def _content_type(header: MessageHeader, part: Part) -> ContentTypeHeader:
    """The part's Content-Type as the email package reads it (as pymap did), or the
    default its place gives it (text/plain; message/rfc822 in a multipart/digest)."""
    written = header.parsed.content_type
    if written is not None:
        return written
    default = f"{part.maintype}/{part.subtype}"
    made = _DEFAULTS.get(default)
    if made is None:
        parsed = _registry("content-type", default)
        assert isinstance(parsed, ContentTypeHeader)
        made = _DEFAULTS[default] = parsed
    return made


def _content(data: bytes, part: Part) -> MessageContent:
    nested = [_content(data, child) for child in part.parts]
    header = header_of(data, part.header_start, part.body_start, part.body_start)
    span = (part.body_start, part.body_end)
    body = CountedBody(data, span, _content_type(header, part), nested, part.lines)
    return MessageContent(data, header, body)


def content_of(data: bytes, structure: Structure) -> MessageContent:
    """The message `data` whose (not opaque) `structure` was computed from it."""
    assert structure.root is not None
    return _content(data, structure.root)
