"""The MIME parts of a submitted message: text decoded, files attached (RFC 2045, 2046, 2183).

Written for whatever a client sends, broken or not: a part that cannot be read
yields empty text or is skipped, never an exception out of DATA.
"""

from __future__ import annotations

import binascii
import contextlib
from email import policy
from email.message import EmailMessage, Message

from core.mail.attachment_files import FileContent
from core.mail.attachments import DEFAULT_NAME, clean_content_type, clean_filename
from core.mime.bounds import LIMITS

FORWARDED_NAME = "message.eml"
_SMTP_POLICY = policy.SMTP.clone(max_line_length=0)


def part_text(part: Message) -> str:
    """The decoded text of a leaf part; an unknown or non-text charset reads as UTF-8.

    Decoding with `errors="replace"` gives at most one character per byte.
    """
    try:
        payload = part.get_payload(decode=True)
    except (AssertionError, LookupError, TypeError, ValueError):
        return ""
    if not isinstance(payload, bytes):
        return ""
    charset = _charset(part)
    try:
        return payload.decode(charset, errors="replace")
    except (LookupError, ValueError, TypeError, UnicodeError):
        return payload.decode("utf-8", errors="replace")


def _charset(part: Message) -> str:
    # RFC 2046 §4.1.2 says us-ascii when absent; real clients mean UTF-8 (a superset).
    try:
        charset = part.get_content_charset()
    except (LookupError, TypeError, ValueError):
        charset = None
    return charset or "utf-8"


def attached_files(message: EmailMessage) -> list[FileContent]:
    """Every file the message carries, in order: parts with `Content-Disposition:
    attachment`, parts with a filename, and non-text parts (inline images);
    a forwarded message (message/rfc822) is one `.eml` file."""
    try:
        body = message.get_body(preferencelist=("plain", "html"))
    except (AttributeError, KeyError, TypeError, ValueError):
        body = None
    found: list[FileContent] = []
    _collect(message, body, found, depth=0)
    return found


# The MIME bounds' depth (core/mime/bounds.py): a message nested deeper is not read at all.
MAX_DEPTH = LIMITS.max_depth


def _collect(part: Message, body: Message | None, found: list[FileContent], depth: int) -> None:
    if depth > MAX_DEPTH or part is body:
        return
    content_type = part.get_content_type()
    if content_type in ("message/rfc822", "message/global"):
        forwarded = _forwarded(part)
        if forwarded is not None:
            found.append(forwarded)
        return
    if part.is_multipart():
        payload = part.get_payload()
        if isinstance(payload, list):
            for child in payload:
                if isinstance(child, Message):
                    _collect(child, body, found, depth + 1)
        return
    filename = _filename(part)
    disposition = part.get_content_disposition()
    if disposition != "attachment" and filename is None and part.get_content_maintype() == "text":
        return  # another rendering of the body (text/html alternative)
    data = _decoded(part)
    if isinstance(data, bytes):
        found.append(
            FileContent(
                filename=clean_filename(filename or DEFAULT_NAME),
                content_type=clean_content_type(content_type),
                data=data,
            )
        )


def _decoded(part: Message) -> object:
    """`part.get_payload(decode=True)`, None when it fails. Base64 (most files) is decoded
    straight from the text: `get_payload` first copies it into one bytes object per
    line and joins them, three times a file's size more. `a2b_base64` skips the line
    breaks (and any other character outside the alphabet) as `get_payload` does, and
    whatever it refuses (bad padding) is left to `get_payload`."""
    try:
        payload = part.get_payload()
        cte = str(part.get("content-transfer-encoding", "")).lower()  # as `get_payload` reads it
        if isinstance(payload, str) and cte == "base64":
            with contextlib.suppress(UnicodeError, binascii.Error):
                return binascii.a2b_base64(payload.encode("ascii", "surrogateescape"))
        return part.get_payload(decode=True)
    except (AssertionError, LookupError, TypeError, ValueError):
        return None


def _filename(part: Message) -> str | None:
    with contextlib.suppress(LookupError, TypeError, ValueError, IndexError):
        name = part.get_filename()
        if isinstance(name, str) and name.strip():
            return name
    return None


def _forwarded(part: Message) -> FileContent | None:
    payload = part.get_payload()
    inner = payload[0] if isinstance(payload, list) and payload else None
    if not isinstance(inner, Message):
        return None
    try:
        data = inner.as_bytes(policy=_SMTP_POLICY)
    except (LookupError, TypeError, ValueError, UnicodeError, IndexError):
        return None
    return FileContent(
        filename=clean_filename(_filename(part) or FORWARDED_NAME),
        content_type="message/rfc822",
        data=data,
    )
