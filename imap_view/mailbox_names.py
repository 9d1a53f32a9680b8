"""Mailbox names decoded here, strictly and within a bound, before pymap sees them.

pymap 0.36.7's `modutf7_decode` loops forever on a shift with no closing `-`
(`SELECT &AAA`: the whole process stops, one line before login is enough) and
raises out of the parser on a broken one (`SELECT &'+,-`: `* BYE [SERVERBUG]`).
So every mailbox argument is decoded by `decode_name`: pymap's `Mailbox.parse`,
which every command with a mailbox (SELECT, EXAMINE, STATUS, CREATE, DELETE,
RENAME, SUBSCRIBE, UNSUBSCRIBE, APPEND, COPY, MOVE, UID COPY/MOVE, LIST and
LSUB's reference) calls, is replaced by `parse_mailbox` (`install`), and LIST and
LSUB's patterns are decoded by `decode_pattern` (imap_view/list_extended.py).

RFC 3501 §5.1.3: printable US-ASCII stands for itself, except `&`, which starts a
run of modified BASE64 (`,` for `/`, no padding) of UTF-16 ended by `-`; `&-` is `&`.
A run must close, use only that alphabet, hold whole UTF-16 units with zero bits
left over and valid surrogate pairs, and encode no printable US-ASCII. After
`ENABLE UTF8=ACCEPT` (RFC 6855 §3) a name with 8-bit octets is UTF-8 as it is, and
an all-ASCII one still modified UTF-7. Anything else — and a name longer than
`MAX_NAME_OCTETS` — is refused: the command answers a tagged `NO` as Dovecot's
"Mailbox name is not valid mUTF-7" (imap_view/state.py), and the session goes on.
"""

from __future__ import annotations

import binascii
import re
from contextvars import ContextVar

from pymap.parsing import Params
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.specials import AString, Mailbox

__all__ = [
    "MAX_NAME_OCTETS",
    "UTF8_NAMES",
    "InvalidName",
    "astring",
    "decode_name",
    "decode_pattern",
    "install",
    "list_mailbox",
    "parse_mailbox",
]

# A name or pattern on the wire; the gateway's folders are short (`Sessions/<alias>`)
# and Dovecot refuses to create a level longer than 255.
MAX_NAME_OCTETS = 1024
# Whether the session reading this command enabled UTF8=ACCEPT: set by the connection
# before each command is parsed (imap_view/connection.py), in the connection's task.
UTF8_NAMES: ContextVar[bool] = ContextVar("utf8_mailbox_names", default=False)

# RFC 3501 §9: astring's unquoted form, 1*ASTRING-CHAR (ATOM-CHAR and `]`), and
# list-mailbox's, 1*list-char (ATOM-CHAR, `%`, `*`, `]`). ATOM-CHAR is any CHAR but
# atom-specials: `(` `)` `{` SP CTL `%` `*` `"` `\\` `]`; so `}` is one (pymap 0.36's
# patterns leave it out and answered `SELECT a}b` with BAD, where Dovecot says NO).
_ASTRING = re.compile(rb" *([\x21\x23\x24\x26\x27\x2B-\x5B\x5D-\x7A\x7C-\x7E]+)")
_LIST_MAILBOX = re.compile(rb"[\x21\x23-\x27\x2A-\x5B\x5D-\x7A\x7C-\x7E]+")
_B64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,")
ORIGINAL_PARSE = Mailbox.parse


class InvalidName(NotParseable):
    """A mailbox argument that is not a name (answered `NO`, not `BAD`)."""

    def __init__(self, buf: memoryview | bytes, reason: bytes) -> None:
        super().__init__(memoryview(bytes(buf[:64])))
        self.reason = reason


def _run(encoded: bytes) -> str:
    """One modified BASE64 run (between `&` and `-`) as text, or ValueError."""
    if not encoded or not set(encoded) <= _B64:
        raise ValueError("not modified BASE64")
    bits = len(encoded) * 6
    whole = bits // 16 * 16
    if bits - whole >= 6 or whole == 0:
        raise ValueError("not whole UTF-16 units")
    padded = encoded.replace(b",", b"/") + b"=" * (-len(encoded) % 4)
    try:
        octets = binascii.a2b_base64(padded, strict_mode=True)
    except binascii.Error as exc:  # nonzero bits left over, among others
        raise ValueError("not modified BASE64") from exc
    text = octets.decode("utf-16-be")  # lone surrogates: UnicodeDecodeError, a ValueError
    if any(0x20 <= ord(char) <= 0x7E for char in text):
        raise ValueError("printable US-ASCII encoded")
    return text


def decode_modutf7(raw: bytes) -> str:
    """RFC 3501 §5.1.3's modified UTF-7, strictly; ValueError if it is not."""
    parts: list[str] = []
    at = 0
    while at < len(raw):
        shift = raw.find(b"&", at)
        plain = raw[at:] if shift < 0 else raw[at:shift]
        if any(not 0x20 <= octet <= 0x7E for octet in plain):
            raise ValueError("not printable US-ASCII")
        parts.append(plain.decode("ascii"))
        if shift < 0:
            break
        end = raw.find(b"-", shift + 1)
        if end < 0:
            raise ValueError("a shift with no closing '-'")
        parts.append("&" if end == shift + 1 else _run(raw[shift + 1 : end]))
        at = end + 1
    return "".join(parts)


def decode_name(raw: bytes, *, utf8: bool = False) -> str:
    """A mailbox name from its wire octets; ValueError if it is not one."""
    if len(raw) > MAX_NAME_OCTETS:
        raise OverflowError("name too long")
    if utf8 and not raw.isascii():
        text = raw.decode("utf-8")  # RFC 6855 §3; UnicodeDecodeError is a ValueError
        if any(ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 for char in text):
            raise ValueError("control characters")
        return text
    return decode_modutf7(raw)


def _reason(exc: ValueError | OverflowError) -> bytes:
    if isinstance(exc, OverflowError):
        return b"Mailbox name longer than %d octets." % MAX_NAME_OCTETS
    return b"Mailbox name is not valid modified UTF-7."


def astring(buf: memoryview, params: Params) -> tuple[bytes, memoryview]:
    """An astring's octets (RFC 3501 §9): unquoted, else pymap's quoted or literal."""
    match = _ASTRING.match(buf)
    if match is not None:
        return match.group(1), buf[match.end(0) :]
    parsed, rest = AString.parse(buf, params)
    return parsed.value, rest


def list_mailbox(buf: memoryview) -> tuple[bytes, memoryview] | None:
    """LIST's unquoted list-mailbox (RFC 3501 §9), or None where a string stands."""
    match = _LIST_MAILBOX.match(buf)
    return None if match is None else (match.group(0), buf[match.end(0) :])


def parse_mailbox(
    cls: type[Mailbox], buf: memoryview, params: Params
) -> tuple[Mailbox, memoryview]:
    """pymap's `Mailbox.parse` with the name decoded by `decode_name`."""
    raw, rest = astring(buf, params)
    if raw.upper() == b"INBOX":
        return cls("INBOX"), rest
    try:
        return cls(decode_name(raw, utf8=UTF8_NAMES.get())), rest
    except (ValueError, OverflowError) as exc:
        raise InvalidName(buf, _reason(exc)) from exc


def decode_pattern(raw: bytes) -> str | None:
    """A LIST/LSUB pattern, or None for one that can match no name (not modified UTF-7,
    or too long): Dovecot lists nothing for it and answers OK. The pattern is matched
    in linear time (imap_view/list_patterns.py)."""
    try:
        return decode_name(raw, utf8=UTF8_NAMES.get())
    except (ValueError, OverflowError):
        return None


def install() -> None:
    """Every command's mailbox argument through `parse_mailbox` (pymap's commands call
    `Mailbox.parse` by name: replacing the class method reaches them all)."""
    Mailbox.parse = classmethod(parse_mailbox)  # type: ignore[method-assign, assignment]
