"""The header values a mail client reads of every message, read once: what ENVELOPE and
BODYSTRUCTURE carry (RFC 3501 §7.4.2) and the fields clients fetch by name.

IMAP clients list a folder with `FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)` or
`BODY.PEEK[HEADER.FIELDS (…)]`. Reading those values means parsing address lists and
MIME parameters with the email package, ~50 µs a header, for every message of every
listing. Here they are read once, when a message is stored, as plain JSON-able data
(`summarize`), from the parts the bounded walk found (core/mime/structure.py): each
header the way pymap hands it to the email package (its lines decoded as ASCII with
`surrogateescape`, `email.policy.SMTP`'s `header_source_parse`, the default
`HeaderRegistry`), so the values equal those IMAP would get by parsing at read time;
the address lists as Dovecot reads them (core/mime/envelope_addresses.py), with which
IMAP's parsing path writes ENVELOPE too (`envelope_summary`). Text that is not ASCII
is kept decoded and, beside it, in 7-bit (core/mime/encoded_words.py, for a session
without UTF8=ACCEPT, RFC 6855 §3).

A message over the bounds is summarised as IMAP serves it, one part
(`opaque_summary`, docs/imap.md "Opaque messages"): the fields found within the
header's first `SCAN_BYTES`, each folded over at most `FIELD_LINES` lines.
"""

from __future__ import annotations

from email.headerregistry import BaseHeader, ContentDispositionHeader, ContentTypeHeader
from email.policy import SMTP
from typing import Any, Final

from core.mime.encoded_words import is_ascii, seven_bit_text
from core.mime.envelope_addresses import address_items, humane
from core.mime.header_decoding import header_text
from core.mime.headers import REGISTRY, Field, header_fields, header_split
from core.mime.structure import Part, Structure

__all__ = [
    "ENVELOPE_FIELDS",
    "FIELD_LINES",
    "KEPT_FIELDS",
    "SCAN_BYTES",
    "envelope_summary",
    "opaque_summary",
    "summarize",
]

Json = dict[str, Any]
SCAN_BYTES: Final = 64 * 1024
FIELD_LINES: Final = 100
ENVELOPE_FIELDS: Final = frozenset(
    (b"date", b"subject", b"from", b"sender", b"reply-to", b"to", b"cc", b"bcc",
     b"in-reply-to", b"message-id")
)  # fmt: skip
_ADDRESSES: Final = ("from", "sender", "reply-to", "to", "cc", "bcc")
# The fields clients ask for by name (Thunderbird, mutt, K-9, Evolution, Apple Mail,
# mbsync's X-TUID): kept as written, so `BODY[HEADER.FIELDS (…)]` of any of them
# reads no message. A request naming another field reads the message.
KEPT_FIELDS: Final = frozenset(
    (b"date", b"from", b"sender", b"reply-to", b"to", b"cc", b"bcc", b"subject",
     b"message-id", b"in-reply-to", b"references", b"content-type",
     b"content-transfer-encoding", b"content-description", b"content-language",
     b"mime-version", b"priority", b"x-priority", b"importance", b"x-msmail-priority",
     b"list-id", b"list-post", b"list-subscribe", b"list-unsubscribe", b"list-help",
     b"list-archive", b"newsgroups", b"followup-to", b"x-label", b"x-original-to",
     b"delivered-to", b"lines", b"x-tuid", b"return-path", b"auto-submitted",
     b"x-mailer", b"user-agent", b"organization", b"disposition-notification-to",
     b"return-receipt-to", b"x-spam-flag", b"x-spam-status", b"mail-followup-to",
     b"mail-reply-to", b"x-k9mail-identity", b"chat-version", b"content-class",
     b"thread-index", b"thread-topic", b"keywords", b"x-keywords",
     b"x-agentmail-mail-id", b"x-agentmail-session-id", b"x-agentmail-type")
)  # fmt: skip


# The registry makes a new header class on every lookup (~40 µs): each made once here.
_CLASSES: dict[str, Any] = {}


def _parsed(lines: list[str]) -> BaseHeader:
    name, value = SMTP.header_source_parse(lines)
    key = name.lower()
    kind = _CLASSES.get(key)
    if kind is None:
        kind = _CLASSES[key] = REGISTRY[key]
    header: BaseHeader = kind(name, value)
    return header


class _Headers:
    """One header section's fields, each name parsed on first use as pymap parses it."""

    __slots__ = ["_data", "_fields", "_parsed"]

    def __init__(self, data: bytes, fields: list[Field]) -> None:
        self._data = data
        self._fields = fields
        self._parsed: dict[bytes, list[BaseHeader]] = {}

    def all(self, name: bytes) -> list[BaseHeader] | None:
        """Every `name` field parsed, in order; None when there is none."""
        parsed = self._parsed.get(name)
        if parsed is None:
            data = self._data
            parsed = []
            for key, lines in self._fields:
                if key == name:
                    text = [data[s:e].decode("ascii", "surrogateescape") for s, e, _ in lines]
                    parsed.append(_parsed(text))
            self._parsed[name] = parsed
        return parsed or None

    def first(self, name: bytes) -> Any:
        found = self.all(name)
        return None if not found else found[0]

    def raw(self, name: bytes) -> str | None:
        """The first `name` field's value as written, unfolded, if it is ASCII."""
        for key, lines in self._fields:
            if key != name:
                continue
            value = self._data[lines[0][0] : lines[-1][2]].partition(b":")[2]
            value = value.replace(b"\r\n", b"").replace(b"\n", b"").strip(b" \t")
            return value.decode("ascii") if value.isascii() else None
        return None

    def as_written(self, name: bytes) -> str | None:
        """The first `name` field's value as written, its line breaks taken out and the
        white space before it (Dovecot's ENVELOPE date), its octets as UTF-8."""
        for key, lines in self._fields:
            if key == name:
                value = self._data[lines[0][0] : lines[-1][1]].partition(b":")[2]
                return header_text(value.replace(b"\r", b"").replace(b"\n", b"").lstrip(b" \t"))
        return None

    def values(self, name: bytes) -> list[str]:
        """Every `name` field's value as written (line breaks kept), its octets as UTF-8."""
        data = self._data
        return [
            header_text(data[lines[0][0] : lines[-1][1]].partition(b":")[2])
            for key, lines in self._fields
            if key == name
        ]

    def text(self, name: bytes) -> tuple[str | None, str | None]:
        """(the decoded text, the text as written when ASCII, else encoded again)."""
        header = self.first(name)
        if header is None:
            return None, None
        raw = self.raw(name)
        return str(header), raw if raw is not None else seven_bit_text(str(header))

    def kept(self) -> list[list[str]]:
        """The fields of KEPT_FIELDS as written, folding and line breaks included."""
        data = self._data
        return [
            [
                key.decode("ascii"),
                data[lines[0][0] : lines[-1][2]].decode("ascii", "surrogateescape"),
            ]
            for key, lines in self._fields
            if key in KEPT_FIELDS
        ]


def _envelope(headers: _Headers) -> Json:
    subject, subject7 = headers.text(b"subject")
    in_reply_to, message_id = headers.first(b"in-reply-to"), headers.first(b"message-id")
    envelope: Json = {
        "date": headers.as_written(b"date"),
        "subject": None if subject is None else humane(subject),
        "subject7": None if subject7 is None else humane(subject7),
        "in-reply-to": None if in_reply_to is None else str(in_reply_to),
        "message-id": None if message_id is None else str(message_id),
    }
    for name in _ADDRESSES:
        envelope[name] = address_items(headers.values(name.encode()))
    return envelope


def _params(params: Any) -> list[list[str]]:
    return [[str(name), str(value)] for name, value in dict(params).items()]


def _content_type(headers: _Headers, part: Part) -> ContentTypeHeader:
    """As written (the first Content-Type), else the default of the part's place."""
    written = headers.first(b"content-type")
    if written is not None:
        assert isinstance(written, ContentTypeHeader)
        return written
    made = _parsed([f"content-type: {part.maintype}/{part.subtype}"])
    assert isinstance(made, ContentTypeHeader)
    return made


def _part(data: bytes, part: Part) -> Json:
    headers = _Headers(data, header_fields(data, part.header_start, part.body_start))
    kind = _content_type(headers, part)
    disposition = headers.first(b"content-disposition")
    language = headers.first(b"content-language")
    location = headers.first(b"content-location")
    tags = [] if language is None else [t.strip() for t in str(language).split(",")]
    summary: Json = {
        "type": [kind.maintype, kind.subtype],
        "params": _params(kind.params),
        "md5": headers.raw(b"content-md5"),
        "disposition": _disposition(disposition),
        "language": [tag for tag in tags if tag and is_ascii(tag)],
        "location": (None if location is None else str(location).strip()) or None,
    }
    if kind.maintype == "multipart":
        summary["parts"] = [_part(data, child) for child in part.parts]
        return summary
    description, description7 = headers.text(b"content-description")
    content_id = headers.first(b"content-id")
    encoding = headers.first(b"content-transfer-encoding")
    summary.update(
        id=None if content_id is None else str(content_id),
        description=description,
        description7=description7,
        encoding=str(encoding) if encoding else "7bit",  # RFC 2045 §6.1's default
        size=part.body_end - part.body_start,
        lines=part.lines,
    )
    if kind.maintype == "message" and kind.subtype == "rfc822" and part.parts:
        inner = part.parts[0]
        inner_headers = _Headers(data, header_fields(data, inner.header_start, inner.body_start))
        summary["envelope"] = _envelope(inner_headers)
        summary["message"] = _part(data, inner)
    return summary


def _disposition(header: ContentDispositionHeader | None) -> list[Any] | None:
    kind = None if header is None else header.content_disposition
    if header is None or not kind or not is_ascii(kind):
        return None
    return [kind, _params(header.params)]


def summarize(data: bytes, structure: Structure) -> Json:
    """The summary of `data`, whose structure (within the bounds) is `structure`."""
    root = structure.root
    if structure.opaque or root is None:
        return opaque_summary(data)
    headers = _Headers(data, header_fields(data, root.header_start, root.body_start))
    return {
        "size": len(data),
        "envelope": _envelope(headers),
        "body": _part(data, root),
        "fields": headers.kept(),
    }


def envelope_summary(header: bytes, *, opaque: bool = False) -> Json:
    """ENVELOPE's values as kept, of a header section (a message's, or one a
    message/rfc822 part carries), or of a whole message over the bounds (`opaque`):
    IMAP's parsing path writes ENVELOPE from them too (imap_view/envelope.py)."""
    if opaque:
        return _envelope(_opaque_headers(header))
    return _envelope(_Headers(header, header_fields(header, 0, len(header))))


def _opaque_headers(data: bytes) -> _Headers:
    """ENVELOPE's fields within the header's first `SCAN_BYTES`, each folded over at most
    `FIELD_LINES` lines."""
    fields_end, _ = header_split(data)
    scan_end = fields_end
    if scan_end > SCAN_BYTES:
        scan_end = data.rfind(b"\n", 0, SCAN_BYTES) + 1
    fields = header_fields(data, 0, scan_end, wanted=ENVELOPE_FIELDS, max_field_lines=FIELD_LINES)
    return _Headers(data, fields)


def opaque_summary(data: bytes) -> Json:
    """A message over the bounds, as IMAP serves it: its header's first fields, one
    text/plain part holding the body as it is (8-bit: utf-8, 8bit)."""
    _, body_start = header_split(data)
    body = data[body_start:]
    eight_bit = not body.isascii()
    headers = _opaque_headers(data)
    return {
        "size": len(data),
        "envelope": _envelope(headers),
        "fields": headers.kept(),  # ENVELOPE's alone: IMAP serves no others (docs/imap.md)
        "body": {
            "opaque": True,
            "eight_bit": eight_bit,
            "size": len(body),
            "lines": body.count(b"\n"),
        },
    }
