"""Reading archived messages for `agentmail import`: what each one says, or why it can't.

Two readings, because threads are rebuilt before anything is stored:
`read_header` takes only what ordering needs (Message-ID, the ids it answers,
Date) and never fails; `read_message` takes everything and raises `Malformed` with
a reason a human can read. Both are sync and CPU-bound: callers run them in a
worker thread. The original bytes are stored unchanged, so nothing here has to
round-trip.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser
from email.policy import Compat32
from email.utils import getaddresses, parsedate_to_datetime
from typing import Final

from markdownify import markdownify

from core.mail.attachments import clean_content_type, clean_filename

__all__ = [
    "Header",
    "Malformed",
    "Parsed",
    "canonical_lines",
    "read_filed",
    "read_header",
    "read_message",
    "synthetic_message_id",
]

_MSGID: Final = re.compile(r"<[^<>\s]{1,900}>")  # longer is no id (the column holds 998)
_BARE_LF: Final = re.compile(rb"(?<!\r)\n")
_MAILBOX: Final = re.compile(r"[^@\s<>]+@[^@\s<>]+")
MAX_ADDRESS: Final = 254  # RFC 5321 §4.5.3.1.3: the longest usable path
MAX_SUBJECT: Final = 998


class _RawHeaders(Compat32):
    """`compat32`, but a header with undecodable bytes comes back as its raw string
    (the bytes as surrogates, which `_clean` decodes as UTF-8) instead of a `Header`."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        return value


_POLICY: Final = _RawHeaders()


class Malformed(ValueError):
    """A message that cannot be imported; the text says why."""


@dataclass(frozen=True, slots=True)
class Header:
    """What ordering needs: parents are stored before their replies."""

    message_id: str | None
    replies_to: tuple[str, ...]  # In-Reply-To, then References newest first
    date: datetime | None


@dataclass(slots=True)
class Parsed:
    message_id: str | None
    replies_to: tuple[str, ...]
    date: datetime | None
    sender: str
    to: list[str]
    cc: list[str]
    subject: str
    body: str
    attachments: list[tuple[str, str, bytes]] = field(default_factory=list)


def canonical_lines(raw: bytes) -> bytes:
    """Line ends as RFC 5322 §2.1 has them (CRLF): files store LF, IMAP and SMTP send
    CRLF, and the stored bytes (what IMAP serves, what a missing Message-ID is made
    from) are the same whichever way a message came."""
    return _BARE_LF.sub(b"\r\n", raw)


def synthetic_message_id(raw: bytes, domain: str) -> str:
    """A stable id for a message without one (RFC 5322 §3.6.4 makes it optional):
    the same bytes imported twice get the same id, so the second import skips it."""
    return f"<{hashlib.sha256(raw).hexdigest()}@{domain}>"


def _ids(value: object) -> list[str]:
    return _MSGID.findall(_clean(str(value))) if value is not None else []


def _replies_to(msg: Message) -> tuple[str, ...]:
    nearest_first = [*_ids(msg.get("In-Reply-To")), *reversed(_ids(msg.get("References")))]
    return tuple(dict.fromkeys(nearest_first))


def _date(msg: Message) -> datetime | None:
    """`Date:`, else the newest `Received:` stamp (RFC 5321 §4.4); naive = UTC."""
    candidates = [msg.get("Date")]
    candidates += [str(r).rpartition(";")[2] for r in msg.get_all("Received", [])[:1]]
    for text in candidates:
        if text is None:
            continue
        try:
            when = parsedate_to_datetime(str(text).strip())
        except (TypeError, ValueError, IndexError):
            continue
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return None


def read_header(raw: bytes) -> Header:
    """Message-ID, the ids it answers, Date; anything unreadable is left empty."""
    try:
        msg = BytesHeaderParser(policy=_POLICY).parsebytes(raw)
        found = _ids(msg.get("Message-ID"))
        return Header(found[0] if found else None, _replies_to(msg), _date(msg))
    except Exception:  # a header too broken to read is reported by read_message
        return Header(None, (), None)


def _clean(text: str) -> str:
    """Text a database stores: undecodable bytes (kept as surrogates) and NUL (which
    PostgreSQL refuses in text) become U+FFFD."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text.replace("\x00", "\ufffd")


def _addresses(msg: Message, name: str) -> list[str]:
    values = [_clean(str(v)) for v in msg.get_all(name, [])]
    found = []
    for _, address in getaddresses(values):
        if not address:
            continue
        if not _MAILBOX.fullmatch(address):
            raise Malformed(f"{name}: {address!r} is not an address")
        if len(address) > MAX_ADDRESS:
            raise Malformed(f"{name}: an address of {len(address)} characters")
        found.append(address)
    return found


def _subject(msg: Message) -> str:
    """RFC 2047 encoded words decoded; folding and runs of white space become one space."""
    value = msg.get("Subject")
    if value is None:
        return ""
    text = _clean(str(value))
    if "=?" in text:
        with contextlib.suppress(HeaderParseError, LookupError, UnicodeError, ValueError):
            text = str(make_header(decode_header(text)))  # else kept as written
    return " ".join(text.split())[:MAX_SUBJECT]


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    try:
        return data.decode(part.get_content_charset() or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        return data.decode("utf-8", "replace")


def _leaves(msg: Message) -> list[Message]:
    """The non-multipart parts, depth first; an attached message is one leaf."""
    if not msg.is_multipart() or msg.get_content_type() == "message/rfc822":
        return [msg]
    payload = msg.get_payload()
    parts = payload if isinstance(payload, list) else []
    return [leaf for part in parts if isinstance(part, Message) for leaf in _leaves(part)]


def _content(part: Message) -> bytes:
    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload(0) if part.is_multipart() else None
        return inner.as_bytes() if isinstance(inner, Message) else b""
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _body_and_attachments(msg: Message, limit: int) -> tuple[str, list[tuple[str, str, bytes]]]:
    """The first inline text/plain part is the body (else the first text/html one, as
    Markdown); every other part is an attachment. One final line break is dropped (what
    core/rendering/render.py adds), so export → import keeps the body."""
    plain: Message | None = None
    rich: Message | None = None
    files: list[tuple[str, str, bytes]] = []
    for part in _leaves(msg):
        kind = part.get_content_type()
        inline = part.get_content_disposition() != "attachment" and part.get_filename() is None
        if inline and kind == "text/plain" and plain is None:
            plain = part
        elif inline and kind == "text/html" and rich is None:
            rich = part
        else:
            content = _content(part)
            if len(content) > limit:
                raise Malformed(f"an attachment of {len(content)} bytes (limit {limit})")
            name = clean_filename(_clean(part.get_filename() or ""))
            files.append((name, clean_content_type(kind), content))
    if plain is not None:
        text = _text(plain)
    elif rich is not None:
        text = markdownify(_text(rich)).strip()
    else:
        text = ""
    return _clean(text.replace("\r\n", "\n").removesuffix("\n")), files


def read_message(raw: bytes, max_attachment_bytes: int) -> Parsed:
    """Everything the import stores, or `Malformed` with the reason.

    The `compat32` policy: its headers are plain strings, read several times faster
    than `policy.default`'s structured ones (what a 10,000-message import feels).
    """
    if not raw.strip():
        raise Malformed("empty message")
    try:
        msg = BytesParser(policy=_POLICY).parsebytes(raw)
        if not msg.keys():
            raise Malformed("no header")
        senders = _addresses(msg, "From")
        if not senders:
            raise Malformed("no From address")
        to, cc = _addresses(msg, "To"), _addresses(msg, "Cc")
        if not to and not cc:
            raise Malformed("no To or Cc address")
        body, attachments = _body_and_attachments(msg, max_attachment_bytes)
        found = _ids(msg.get("Message-ID"))
        return Parsed(
            message_id=found[0] if found else None,
            replies_to=_replies_to(msg),
            date=_date(msg),
            sender=senders[0],
            to=to,
            cc=cc,
            subject=_subject(msg),
            body=body,
            attachments=attachments,
        )
    except Malformed:
        raise
    except Exception as error:  # the parser's own failures on broken input
        raise Malformed(f"unreadable: {type(error).__name__}: {error}") from error


def read_filed(raw: bytes, max_attachment_bytes: int, *, opaque: bool) -> Parsed:
    """What a message a client filed by IMAP APPEND says, as far as it can be read.

    APPEND stores any bytes (RFC 3501 §6.3.11), so nothing here refuses: a missing or
    broken field is left empty, and a message over the MIME bounds (`opaque`) or with
    an attachment over the limit keeps its header's fields and no body or files (the
    bytes are served whole all the same). Sync and CPU-bound: call it in a thread.
    """
    try:
        msg = (BytesHeaderParser if opaque else BytesParser)(policy=_POLICY).parsebytes(raw)
    except Exception:  # bytes the parser cannot read: kept, not read
        return Parsed(None, (), None, "", [], [], "", "")
    senders, to, cc = (_lenient(_addresses, msg, name) for name in ("From", "To", "Cc"))
    found = _ids(msg.get("Message-ID"))
    parsed = Parsed(
        message_id=found[0] if found else None,
        replies_to=_replies_to(msg),
        date=_date(msg),
        sender=senders[0] if senders else "",
        to=to,
        cc=cc,
        subject=_subject(msg),
        body="",
    )
    if not opaque:
        with contextlib.suppress(Exception):  # an attachment over the limit, a broken part
            parsed.body, parsed.attachments = _body_and_attachments(msg, max_attachment_bytes)
    return parsed


def _lenient(read: Callable[[Message, str], list[str]], msg: Message, name: str) -> list[str]:
    """The addresses that are addresses, the rest left out."""
    try:
        return read(msg, name)
    except Exception:  # Malformed among them: the readable ones are kept
        values = [_clean(str(v)) for v in msg.get_all(name, [])]
        return [a for _, a in getaddresses(values) if _MAILBOX.fullmatch(a)][:100]
