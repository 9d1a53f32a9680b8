"""What a submitted message says, read with the standard library's `email` package.

Only the fields the one write path needs: subject, the new text (`new_text`),
the attached files, Message-ID, the ids it replies to, the `From:`/`To:`/`Cc:`
addresses. The original bytes are stored as they came, so nothing here has to
round-trip. Parsing is CPU work: call `parse_submitted` in a worker thread.

Every text handed on is one the store can hold: a message whose text the store
would refuse would be refused again on every retry, so it must never become a
temporary error (docs/smtp.md). NULs go, undecodable bytes become U+FFFD, and the
subject is cut to `MAX_SUBJECT` characters (the original bytes keep it whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from email.errors import HeaderParseError, MessageError
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import getaddresses
from functools import lru_cache
from typing import Any

from core.errors import InvalidRequest
from core.mail.attachment_files import FileContent
from core.mail.message_bytes import header_block, parse_bytes
from core.mime.structure import over_bound
from smtp_in.mime_parts import attached_files
from smtp_in.new_text import new_text

_MSGID_RE = re.compile(r"<[^<>\s]+>")
_CACHED_HEADER = 256  # characters: longer values (References, a long Subject) are parsed as read


class _ParsedOnce(EmailPolicy):
    """`email.policy.default`, with each header value parsed once.

    The standard policy runs a header through its registry every time it is read, and
    reading a message reads `Content-Type` eight times (the body, the parts, their
    charset). Parsed headers are immutable, so the same one serves every read, and a
    value seen before (every `Content-Type: text/plain; charset=utf-8`, `MIME-Version`)
    is not parsed again in the next message either. Exactly the default's results.
    """

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if hasattr(value, "name") or len(value) > _CACHED_HEADER:
            return super().header_fetch_parse(name, value)
        return _parsed(self, name, value)


@lru_cache(maxsize=1024)
def _parsed(policy: EmailPolicy, name: str, value: str) -> Any:
    return EmailPolicy.header_fetch_parse(policy, name, value)


_POLICY = _ParsedOnce()
# The stored subject's limit, as for a REST send (SendRequest.subject, core/mail/send.py).
MAX_SUBJECT = 998


@dataclass(frozen=True, slots=True)
class Submitted:
    subject: str
    body: str
    message_id: str | None
    # In-Reply-To first, then References newest first: the nearest parent wins.
    replies_to: list[str]
    from_addresses: list[str]
    # (display name, address) of each `From:` mailbox, the name decoded (RFC 2047).
    from_names: list[tuple[str, str]]
    has_from: bool
    has_message_id: bool
    has_date: bool
    to_addresses: list[str]
    cc_addresses: list[str]
    attachments: list[FileContent] = field(default_factory=list)


# Printable ASCII without an encoded word: what the header registry would make of an
# unstructured header (Subject, In-Reply-To, References) is the unfolded text itself,
# and of a Message-ID that is one `<…>` the same `<…>`. Such text skips the registry;
# anything else is parsed by it.
_PLAIN = re.compile(r"[\x20-\x7e\t]*")
_AS_WRITTEN = {"subject", "in-reply-to", "references"}
_SIMPLE_MSGID = re.compile(r"<[^<>\s@\"()\\,;:\[\]]+@[^<>\s@\"()\\,;:\[\]]+>")


# The message's header fields as they came, by lower-case name: read once (the
# registry's `message.get` scans every field each time it is called).
Fields = dict[str, list[Any]]


def _fields(message: EmailMessage) -> Fields:
    fields: Fields = {}
    for name, value in message.raw_items():
        fields.setdefault(name.lower(), []).append(value)
    return fields


def _plain_value(fields: Fields, key: str) -> str | None:
    values = fields.get(key)
    raw = values[0] if values else None
    if not isinstance(raw, str):
        return "" if raw is None else None
    text = "".join(raw.splitlines())
    if not _PLAIN.fullmatch(text) or "=?" in text:
        return None
    if key in _AS_WRITTEN or (key == "message-id" and _SIMPLE_MSGID.fullmatch(text.strip())):
        return text
    return None


def _header(message: EmailMessage, fields: Fields, name: str) -> str:
    """A header's text; a header the parser cannot read counts as absent."""
    plain = _plain_value(fields, name.lower())
    if plain is not None:
        return plain
    try:
        value = message.get(name)
        return "" if value is None else str(value)
    except (LookupError, TypeError, ValueError, IndexError, AttributeError):
        return ""


def storable(text: str) -> str:
    """Text the store can hold (PostgreSQL refuses NUL and neither takes lone surrogates)."""
    text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:  # undeclared 8-bit bytes the parser kept as surrogate escapes
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _raw_values(fields: Fields, key: str) -> list[str]:
    return [str(v) for v in fields.get(key, ())]


def _pairs(values: list[str]) -> tuple[tuple[str, str], ...]:
    """`getaddresses` of these header values, remembered when short: a client sends
    the same `From:` and `To:` in message after message, and `From:` is read twice
    (its addresses, its names). A pure function of the text, so the same result."""
    if sum(map(len, values)) > _CACHED_HEADER:
        return tuple(getaddresses(values))
    return _remembered_pairs(tuple(values))


@lru_cache(maxsize=1024)
def _remembered_pairs(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple(getaddresses(list(values)))


def _addresses(fields: Fields, key: str) -> list[str]:
    """Read from the raw header text, so a header the structured parser chokes on
    still yields its addresses (the `From:` check must never be skipped)."""
    return [address for _, address in _pairs(_raw_values(fields, key)) if address]


@lru_cache(maxsize=1024)
def _decoded(name: str) -> str:
    """A display name with its RFC 2047 encoded words decoded (a spoof may hide in them)."""
    try:
        return str(make_header(decode_header(name)))
    except (LookupError, ValueError, UnicodeError, HeaderParseError):
        return name


def _names(fields: Fields, key: str) -> list[tuple[str, str]]:
    return [(_decoded(n), a) for n, a in _pairs(_raw_values(fields, key)) if a]


# What the standard library's parser raises on some malformed headers instead of
# registering a defect (`Content-Type: x; a*` ends in an IndexError), while parsing
# or when a part's header is read later.
_PARSER_FAILURES = (
    IndexError, ValueError, TypeError, AttributeError, LookupError, AssertionError, MessageError
)  # fmt: skip


def parse_submitted(raw: bytes) -> Submitted:
    """The fields of a submitted message; InvalidRequest (`550 5.6.0`, permanent) for
    one the standard library cannot read at all.

    A MIME tree over the bounds of `core.mime` (depth, parts, header lines, work) is not parsed
    into its parts: the message is read for its header fields only, and its text is a
    note saying why (the stored bytes keep all of it)."""
    over = over_bound(raw)
    try:
        if over is None:
            try:
                return _parse(raw)
            except RecursionError:  # a tree the scan misjudged: read as one over the bounds
                over = "it nests too deep to be read"
        return _parse(raw, unread=over)
    except _PARSER_FAILURES as exc:
        raise InvalidRequest(
            f"the message cannot be read: a malformed MIME header ({type(exc).__name__})"
        ) from exc


def unread_note(reason: str) -> str:
    """The text of a message whose parts were not read, saying why."""
    return (
        f"(The gateway did not read the text of this message: {reason}. The message "
        "is kept as it was sent; open it in a mail client.)"
    )


def _parse(raw: bytes, unread: str | None = None) -> Submitted:
    """`unread`: why the body is not read (None: it is), only the header fields are."""
    # Fed in pieces (core/mail/message_bytes.py); the header block only when the body is
    # not read: the parser keeps each line it reads.
    message = parse_bytes(raw if unread is None else header_block(raw), _POLICY)
    fields = _fields(message)
    found = _MSGID_RE.search(_header(message, fields, "Message-ID"))
    # No line is over 998 characters (aiosmtpd refuses longer ones, RFC 5321
    # §4.5.3.1.6), so neither is a Message-ID: it fits `mails.message_id`.
    message_id = storable(found.group(0)) if found else None
    references = _MSGID_RE.findall(_header(message, fields, "References"))
    subject = storable(" ".join(_header(message, fields, "Subject").split()))
    replies = _MSGID_RE.findall(_header(message, fields, "In-Reply-To"))
    return Submitted(
        subject=subject[:MAX_SUBJECT].rstrip(),
        body=storable(new_text(message)) if unread is None else unread_note(unread),
        message_id=message_id,
        replies_to=[*replies, *reversed(references)],
        from_addresses=_addresses(fields, "from"),
        from_names=_names(fields, "from"),
        has_from="from" in fields,
        has_message_id="message-id" in fields,
        has_date="date" in fields,
        to_addresses=_addresses(fields, "to"),
        cc_addresses=_addresses(fields, "cc"),
        attachments=[
            replace(f, filename=storable(f.filename), content_type=storable(f.content_type))
            for f in (attached_files(message) if unread is None else ())
        ],
    )
