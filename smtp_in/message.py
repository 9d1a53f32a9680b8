"""What a submitted message says, read with the standard library's `email` package.

Only the fields the one write path needs: subject, the text body, Message-ID,
the ids it replies to, the `From:`/`To:`/`Cc:` addresses. The original bytes
are stored as they came, so nothing here has to round-trip.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

_MSGID_RE = re.compile(r"<[^<>\s]+>")
_TAG_RE = re.compile(r"<[^>]*>")


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


def _header(message: EmailMessage, name: str) -> str:
    value = message.get(name)
    return "" if value is None else str(value)


def _addresses(message: EmailMessage, name: str) -> list[str]:
    values = [str(v) for v in message.get_all(name, [])]
    return [address for _, address in getaddresses(values) if address]


def _html_to_text(markup: str) -> str:
    """A simple fallback for HTML-only mail: tags dropped, entities decoded."""
    markup = re.sub(r"(?i)<br\s*/?>|</p>|</div>|</li>", "\n", markup)
    return html.unescape(_TAG_RE.sub("", markup)).strip()


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    if part is not None:
        return str(part.get_content())
    part = message.get_body(preferencelist=("html",))
    if part is not None:
        return _html_to_text(str(part.get_content()))
    return ""


def parse_submitted(raw: bytes) -> Submitted:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    message_id = _MSGID_RE.search(_header(message, "Message-ID"))
    references = _MSGID_RE.findall(_header(message, "References"))
    return Submitted(
        subject=" ".join(_header(message, "Subject").split()),
        body=_body(message),
        message_id=message_id.group(0) if message_id else None,
        replies_to=[*_MSGID_RE.findall(_header(message, "In-Reply-To")), *reversed(references)],
        from_addresses=_addresses(message, "From"),
        to_addresses=_addresses(message, "To"),
        cc_addresses=_addresses(message, "Cc"),
    )
