"""Bounces of outbound mail read back: which recipients failed, why, and which mail.

`read_bounce(raw, envelope_recipient=...)` reads a delivery status notification, the
`multipart/report; report-type=delivery-status` of RFC 3464 (RFC 6522), with the
stdlib `email` package: the per-message fields (`Original-Envelope-Id`, RFC 3461
§4.4), and each recipient whose `Action` is `failed` with its `Status` (RFC 3463) and
`Diagnostic-Code`; the original Message-ID from the returned headers. A bounce in one of
the many older, non-standard forms is read by GNU Mailman's detectors (flufl.bounce) for
its permanently failed recipients. Delays (`Action: delayed`), deliveries and anything
that is no bounce (a vacation reply) are `None`.

Hostile input is bounded: only the first `MAX_BYTES` are parsed, at most `MAX_PARTS`
MIME parts are looked at, `MAX_DEPTH` levels deep, at most `MAX_RECIPIENTS` recipients
kept, and every text is cut to `MAX_TEXT`.

The MX listener's contract (for mail whose RCPT TO is a bounce address of ours,
core/relay/envelope.py `envelope_id_in_address`): accept the message, then
`bounce = read_bounce(raw, envelope_recipient=rcpt)`; when it is not None, `await
record_bounce(store, bounce, domain)` (core/relay/bounce_record.py), which writes the
sender's notice at most once per recipient. Mail to a bounce address that is no
bounce is dropped; nothing is ever replied to it (RFC 3834 §2).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes
from email.message import Message
from email.policy import compat32
from typing import Final

from flufl.bounce import all_failures

from core.relay.envelope import EnvelopeId, parse_envelope_id

__all__ = ["MAX_BYTES", "Bounce", "FailedRecipient", "read_bounce"]

MAX_BYTES: Final = 256 * 1024  # the report comes before the returned message
MAX_PARTS: Final = 64
MAX_DEPTH: Final = 8
MAX_RECIPIENTS: Final = 100
MAX_TEXT: Final = 500
_STATUS = re.compile(r"\b([245]\.\d{1,3}\.\d{1,3})\b")
_REPLY_LINE = re.compile(r"^\s*(5\d\d[ -].{0,400})$", re.MULTILINE)
_MESSAGE_ID = re.compile(r"^message-id:[ \t]*(<[^<>\s]{1,250}>)", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FailedRecipient:
    address: str  # Final-Recipient (or Original-Recipient), without its `rfc822;` type
    status: str  # RFC 3463: `5.1.1`; "" when the bounce gave none
    diagnostic: str  # the remote server's reply (`550 5.1.1 no such user`), or ""

    def describe(self) -> str:
        """What the notice quotes as the server's reply."""
        return self.diagnostic or self.status or "(the bounce gave no reason)"


@dataclass(frozen=True, slots=True)
class Bounce:
    message_id: str  # of the mail that bounced, `<…>`; "" when the bounce did not say
    envelope_id: EnvelopeId | None  # ours, from ENVID or the bounce address
    recipients: tuple[FailedRecipient, ...]
    reporter: str  # Reporting-MTA, "" for a non-standard bounce


def _cut(text: str) -> str:
    return " ".join(text.split())[:MAX_TEXT]


def _typed(value: str | None) -> str:
    """`rfc822; bob@example.com` → `bob@example.com` (RFC 3464 §2.3.2, `smtp; 550 …`)."""
    text = str(value or "")
    return _cut(text.partition(";")[2] if ";" in text else text)


def _parts(message: Message) -> Iterator[Message]:
    """Every part, depth first, within MAX_PARTS and MAX_DEPTH."""
    stack: list[tuple[Message, int]] = [(message, 0)]
    seen = 0
    while stack and seen < MAX_PARTS:
        part, depth = stack.pop()
        seen += 1
        yield part
        payload = part.get_payload()
        if depth < MAX_DEPTH and isinstance(payload, list):
            children = [child for child in payload if isinstance(child, Message)]
            stack += [(child, depth + 1) for child in reversed(children[:MAX_PARTS])]


def _recipients(fields: list[Message]) -> list[FailedRecipient]:
    failed = []
    for block in fields[:MAX_RECIPIENTS]:
        if str(block.get("Action", "")).strip().lower() != "failed":
            continue
        address = _typed(block.get("Final-Recipient")) or _typed(block.get("Original-Recipient"))
        status = _STATUS.search(str(block.get("Status", "")))
        if address:
            failed.append(
                FailedRecipient(
                    address, status[1] if status else "", _typed(block.get("Diagnostic-Code"))
                )
            )
    return failed


def _original_message_id(parts: list[Message]) -> str:
    """From the returned message or headers; a text body's `Message-ID:` line else (the
    bounce's own header is not in its body)."""
    for part in parts:
        kind = part.get_content_type()
        payload = part.get_payload()
        if kind == "message/rfc822" and isinstance(payload, list) and payload:
            inner = payload[0]
            found = str(inner.get("Message-ID", "")).strip() if isinstance(inner, Message) else ""
            if found.startswith("<"):
                return found[:MAX_TEXT]
        if kind in ("text/rfc822-headers", "text/plain"):
            match = _MESSAGE_ID.search(_text(part))
            if match:
                return match[1]
    return ""


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload[:MAX_BYTES].decode("utf-8", "replace")
    return ""


def _standard(parts: list[Message]) -> tuple[str, str, list[FailedRecipient]] | None:
    """(Reporting-MTA, Original-Envelope-Id, failed recipients) of an RFC 3464 report."""
    for part in parts:
        if part.get_content_type() == "message/delivery-status":
            blocks = part.get_payload()
            if not isinstance(blocks, list) or not blocks:
                return "", "", []
            fields = [block for block in blocks if isinstance(block, Message)]
            if not fields:
                return "", "", []
            head = fields[0]
            return (
                _typed(head.get("Reporting-MTA")),
                _cut(str(head.get("Original-Envelope-Id", ""))),
                _recipients(fields[1:]),
            )
    return None


def _nonstandard(message: Message, parts: list[Message]) -> list[FailedRecipient]:
    """Recipients the flufl.bounce detectors find failed for good, with the first line
    of the text that reads as a `5xx` reply."""
    try:
        _temporary, permanent = all_failures(message)
    except Exception:  # a detector tripping on a malformed message: not a bounce we read
        return []
    texts = [_text(p) for p in parts if p.get_content_type() == "text/plain"]
    reply = next((m[1] for t in texts for m in [_REPLY_LINE.search(t)] if m), "")
    found = []
    for address in sorted(permanent)[:MAX_RECIPIENTS]:
        text = address.decode("utf-8", "replace") if isinstance(address, bytes) else str(address)
        status = _STATUS.search(reply)
        found.append(FailedRecipient(_cut(text), status[1] if status else "", _cut(reply)))
    return found


def read_bounce(raw: bytes, *, envelope_recipient: str = "") -> Bounce | None:
    """The bounce in `raw`, or None when it reports no permanent failure."""
    try:
        message = message_from_bytes(raw[:MAX_BYTES], policy=compat32)
        parts = list(_parts(message))
        standard = _standard(parts)
        if standard is not None:
            reporter, envelope_text, recipients = standard
        else:
            reporter, envelope_text = "", ""
            recipients = _nonstandard(message, parts)
        message_id = _original_message_id(parts)
    except (RecursionError, LookupError, ValueError, TypeError):
        return None  # a message the parser cannot take apart is no bounce we can read
    if not recipients:
        return None
    tag = envelope_recipient.strip().strip("<>").rpartition("@")[0].partition("+")[2]
    envelope = parse_envelope_id(envelope_text) or parse_envelope_id(tag)
    return Bounce(message_id, envelope, tuple(recipients), reporter)
