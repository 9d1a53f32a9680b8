"""What a submitted message says, read with the standard library's `email` package.

Only the fields the one write path needs: subject, the new text (`new_text`),
the attached files, Message-ID, the ids it replies to, the `From:`/`To:`/`Cc:`
addresses. The original bytes are stored as they came, so nothing here has to
round-trip. Parsing is CPU work: call `parse_submitted` in a worker thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from email import policy
from email.errors import MessageError
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

from core.errors import InvalidRequest
from core.mail.attachment_files import FileContent
from smtp_in.mime_parts import attached_files
from smtp_in.new_text import new_text

_MSGID_RE = re.compile(r"<[^<>\s]+>")


@dataclass(frozen=True, slots=True)
class Submitted:
    subject: str
    body: str
    message_id: str | None
    # In-Reply-To first, then References newest first: the nearest parent wins.
    replies_to: list[str]
    from_addresses: list[str]
    to_addresses: list[str]
    cc_addresses: list[str]
    attachments: list[FileContent] = field(default_factory=list)


def _header(message: EmailMessage, name: str) -> str:
    """A header's text; a header the parser cannot read counts as absent."""
    try:
        value = message.get(name)
        return "" if value is None else str(value)
    except (LookupError, TypeError, ValueError, IndexError, AttributeError):
        return ""


def _addresses(message: EmailMessage, name: str) -> list[str]:
    """Read from the raw header text, so a header the structured parser chokes on
    still yields its addresses (the `From:` check must never be skipped)."""
    values = [str(v) for k, v in message.raw_items() if k.lower() == name.lower()]
    return [address for _, address in getaddresses(values) if address]


# What the standard library's parser raises on some malformed headers instead of
# registering a defect (`Content-Type: x; a*` ends in an IndexError), while parsing
# or when a part's header is read later.
_PARSER_FAILURES = (
    IndexError, ValueError, TypeError, AttributeError, LookupError, AssertionError, MessageError
)  # fmt: skip


def _text(value: str) -> str:
    """Storable text: PostgreSQL's text type refuses U+0000 (the raw bytes keep it)."""
    return value.replace("\x00", "")


def parse_submitted(raw: bytes) -> Submitted:
    """The fields of a submitted message; InvalidRequest (`550 5.6.0`, permanent) for
    one the standard library cannot read at all."""
    try:
        return _parse(raw)
    except _PARSER_FAILURES as exc:
        raise InvalidRequest(
            f"the message cannot be read: a malformed MIME header ({type(exc).__name__})"
        ) from exc


def _parse(raw: bytes) -> Submitted:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    message_id = _MSGID_RE.search(_header(message, "Message-ID"))
    references = _MSGID_RE.findall(_header(message, "References"))
    return Submitted(
        subject=_text(" ".join(_header(message, "Subject").split())),
        body=_text(new_text(message)),
        message_id=message_id.group(0) if message_id else None,
        replies_to=[*_MSGID_RE.findall(_header(message, "In-Reply-To")), *reversed(references)],
        from_addresses=_addresses(message, "From"),
        to_addresses=_addresses(message, "To"),
        cc_addresses=_addresses(message, "Cc"),
        attachments=attached_files(message),
    )
