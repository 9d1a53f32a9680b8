"""BODYSTRUCTURE as RFC 3501 §7.4.2 and §9 (body-ext-1part, body-ext-mpart) write it.

pymap 0.36 sends each extension field as the header's decoded text
(`"attachment; filename=\\"report.txt\\""`), where the grammar wants

    body-fld-dsp  = "(" string SP body-fld-param ")" / nil
    body-fld-lang = nstring / "(" string *(SP string) ")"
    body-fld-loc  = nstring
    body-fld-md5  = nstring

so `("attachment" ("filename" "report.txt"))`, `"en"` or `("en" "de")`. Here the
per-type builders of pymap are subclassed with those fields, and every text is
7-bit (imap_view/header_text.py) unless the session enabled UTF8=ACCEPT.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from email.headerregistry import (
    ContentDispositionHeader,
    ContentTransferEncodingHeader,
    HeaderRegistry,
)
from typing import Any, Final
from urllib.parse import quote

from pymap.bytes import Writeable
from pymap.mime import MessageBody, MessageContent, MessageHeader
from pymap.parsing.primitives import List, Nil, String
from pymap.parsing.response.fetch import (
    BodyStructure,
    ContentBodyStructure,
    EnvelopeStructure,
    MessageBodyStructure,
    MultipartBodyStructure,
    TextBodyStructure,
)

from imap_view.header_text import is_ascii, raw_header, seven_bit_params, stored_text
from imap_view.opaque import OpaqueContent

__all__ = ["EMPTY", "body_structure", "opaque_structure"]

_REGISTRY = HeaderRegistry()
# What a part of a multipart in which no delimiter was found holds: nothing.
EMPTY: Final[MessageContent] = MessageContent(b"", MessageHeader.empty(), MessageBody.empty())
_SEVEN_BIT = _REGISTRY("content-transfer-encoding", "7bit")
assert isinstance(_SEVEN_BIT, ContentTransferEncodingHeader)
EnvelopeOf = Callable[[MessageContent], EnvelopeStructure]


class Extensions:
    """The extension fields of one part, built once from its header."""

    __slots__ = ["disposition", "language", "location", "md5"]

    def __init__(self, msg: MessageContent, utf8: bool) -> None:
        parsed = msg.header.parsed
        self.md5 = String.build(raw_header(msg, b"content-md5"))
        self.disposition = _disposition(parsed.content_disposition, utf8)
        self.language = _language(parsed.content_language)
        location = parsed.content_location
        text = None if location is None else str(location).strip()
        if text and not utf8 and not is_ascii(text):
            text = quote(text, safe="".join(map(chr, range(0x21, 0x7F))))
        self.location = String.build(text or None)

    def one_part(self) -> list[Writeable]:
        """body-ext-1part: body-fld-md5 SP body-fld-dsp SP body-fld-lang SP body-fld-loc."""
        return [self.md5, self.disposition, self.language, self.location]

    def multipart(self, params: Writeable) -> list[Writeable]:
        """body-ext-mpart: body-fld-param SP body-fld-dsp SP body-fld-lang SP body-fld-loc."""
        return [params, self.disposition, self.language, self.location]


def _params(params: dict[str, str]) -> Writeable:
    """body-fld-param: `("name" "value" …)` or NIL."""
    if not params:
        return Nil()
    return List([String.build(item) for pair in params.items() for item in pair])


def _disposition(header: ContentDispositionHeader | None, utf8: bool) -> Writeable:
    kind = None if header is None else header.content_disposition
    if header is None or not kind or not is_ascii(kind):
        return Nil()
    params = dict(header.params) if utf8 else seven_bit_params(header.params)
    return List([String.build(kind), _params(params)])


def _language(header: object | None) -> Writeable:
    tags = [] if header is None else [t.strip() for t in str(header).split(",")]
    tags = [tag for tag in tags if tag and is_ascii(tag)]
    if not tags:
        return Nil()
    if len(tags) == 1:
        return String.build(tags[0])
    return List([String.build(tag) for tag in tags])


class _Multipart(MultipartBodyStructure):
    ext: Extensions

    @property
    def extended(self) -> List:
        parts = [part.extended for part in self.parts]
        head: list[Writeable] = [_Joined(parts), String.build(self.subtype)]
        return List([*head, *self.ext.multipart(_params(dict(self.content_type_params or {})))])


class _Joined(Writeable):
    """Nested parts one after the other, no space between (RFC 3501 §9 body-type-mpart)."""

    def __init__(self, parts: Sequence[Writeable]) -> None:
        super().__init__()
        self.parts = parts

    def __bytes__(self) -> bytes:
        return b"".join(bytes(part) for part in self.parts)


class _Content(ContentBodyStructure):
    ext: Extensions

    @property
    def extended(self) -> List:
        return List([*self._value.value, *self.ext.one_part()])


class _Text(TextBodyStructure):
    ext: Extensions

    @property
    def extended(self) -> List:
        return List([*self._value.value, *self.ext.one_part()])


class _Message(MessageBodyStructure):
    ext: Extensions

    @property
    def extended(self) -> List:
        basic: list[Any] = list(self._value.value)
        basic[8] = self.body_structure.extended  # the nested part with its extensions too
        return List([*basic, *self.ext.one_part()])


def body_structure(
    msg: MessageContent,
    envelope_of: EnvelopeOf,
    size_with_lines: Callable[[MessageContent], tuple[int, int]],
    *,
    utf8: bool = False,
) -> BodyStructure:
    """The part's structure; `envelope_of` and `size_with_lines` are the loaded
    message's own (imap_view/message.py), so nested messages are served alike."""
    if isinstance(msg, OpaqueContent):
        return opaque_structure(msg)
    parsed = msg.header.parsed
    content_type = msg.body.content_type
    raw_params = content_type.params
    params = dict(raw_params) if utf8 else seven_bit_params(raw_params)
    if content_type.maintype == "text" and "charset" not in params:
        params = {"charset": "us-ascii", **params}  # RFC 2045 §5.2's default, as Dovecot
    ext = Extensions(msg, utf8)
    structure: BodyStructure
    if content_type.maintype == "multipart":
        parts = [
            body_structure(part, envelope_of, size_with_lines, utf8=utf8)
            for part in msg.body.nested
        ] or [_empty_part()]  # no part found: one empty text part, as Dovecot writes it
        structure = _Multipart(content_type.subtype, params, None, None, None, parts)
        structure.ext = ext
        return structure
    content_id = parsed.content_id
    description = parsed.content_description
    if not utf8:
        description = stored_text(msg, b"content-description", description)
    encoding = parsed.content_transfer_encoding or _SEVEN_BIT  # RFC 2045 §6.1's default
    size, lines = size_with_lines(msg)
    if content_type.maintype == "message" and content_type.subtype == "rfc822":
        inner = msg.body.nested[0]
        nested = body_structure(inner, envelope_of, size_with_lines, utf8=utf8)
        fields = (params, None, None, None, content_id, description, encoding, None)
        structure = _Message(*fields, size, lines, envelope_of(inner), nested)
    elif content_type.maintype == "text":
        fields = (params, None, None, None, content_id, description, encoding, None)
        structure = _Text(content_type.subtype, *fields, size, lines)
    else:
        fields = (params, None, None, None, content_id, description, encoding, None)
        structure = _Content(content_type.maintype, content_type.subtype, *fields, size)
    structure.ext = ext
    return structure


def _empty_part() -> BodyStructure:
    """The one part of a multipart in which no delimiter was found (or that names no
    boundary): `("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 0 0 …)`;
    `BODY[n.1]` of it is empty (imap_view/message.py)."""
    fields = ({"charset": "us-ascii"}, None, None, None, None, None, _SEVEN_BIT, None)
    structure = _Text("plain", *fields, 0, 0)
    structure.ext = Extensions(EMPTY, False)
    return structure


def opaque_structure(msg: OpaqueContent) -> BodyStructure:
    """A message over the MIME bounds: one text/plain part, its body as it is
    (`"text" "plain" ("charset" "us-ascii") NIL NIL "7bit" size lines NIL NIL NIL NIL`;
    utf-8 and 8bit when the body has bytes over 127). docs/imap.md, "Opaque messages"."""
    charset, encoding = ("utf-8", "8bit") if msg.eight_bit else ("us-ascii", "7bit")
    cte = _REGISTRY("content-transfer-encoding", encoding)
    assert isinstance(cte, ContentTransferEncodingHeader)
    fields = ({"charset": charset}, None, None, None, None, None, cte, None)
    structure = _Text("plain", *fields, len(msg.body), msg.body.lines)
    structure.ext = Extensions(msg, False)
    return structure
