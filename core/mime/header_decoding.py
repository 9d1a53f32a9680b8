"""Header text decoded as Dovecot 2.3 decodes it: RFC 2047 encoded-words found anywhere, and
octets read as UTF-8 (RFC 6532).

IMAP compares and searches header text decoded (SORT and THREAD keys, RFC 5256 §2.1;
SEARCH's address and text keys) and shows display names decoded to a UTF8=ACCEPT
session (RFC 6855 §3). Dovecot, the differential tests' oracle, decodes its own way,
which is copied here: encoded-words found anywhere, white space that only separates
them dropped (RFC 2047 §6.2), `_` in Q as a space, an unknown encoding left as text, a
charset no converter knows taken as UTF-8 (src/lib-mail/message-header-decode.c);
each run of octets that is not valid UTF-8 is one U+FFFD.
"""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["decode_words", "header_text", "lenient_base64"]

_REPLACEMENT = "\ufffd"
_REPLACEMENTS = re.compile("\ufffd{2,}")
_LWSP = frozenset(" \t\r\n")
# RFC 2047 §2 `charset` Dovecot hands to no converter: the text is taken as UTF-8.
_UTF8_NAMES = frozenset({"us-ascii", "ascii", "utf-8", "utf8"})
_BASE64_JUNK = re.compile(rb"[^A-Za-z0-9+/]")
_HEX_PAIR = re.compile(rb"[0-9A-Fa-f]{2}")


def header_text(raw: bytes) -> str:
    """A header value's octets as text: UTF-8 (RFC 6532), each run of octets that is not
    valid UTF-8 one U+FFFD (Dovecot adds one replacement character per run)."""
    text = raw.decode("utf-8", "replace")
    return _REPLACEMENTS.sub(_REPLACEMENT, text) if _REPLACEMENT in text else text


def _q_decoded(text: bytes) -> bytes:
    """RFC 2047 §4.2: `_` is a space, `=XX` an octet; an `=` not followed by two hex
    digits is kept as it is, and one of the last two octets ends the decoding there."""
    out = bytearray()
    position, length = 0, len(text)
    while position < length:
        octet = text[position]
        if octet == 0x5F:
            out.append(0x20)
        elif octet == 0x3D:
            if position + 2 >= length:
                out += text[position:]
                break
            pair = text[position + 1 : position + 3]
            if _HEX_PAIR.fullmatch(pair):
                out.append(int(pair, 16))
                position += 2
            else:
                out.append(octet)
        else:
            out.append(octet)
        position += 1
    return bytes(out)


def lenient_base64(text: bytes) -> bytes:
    """RFC 2047 §4.1, RFC 2045 §6.8: what decodes of the base64 before its padding,
    octets outside its alphabet skipped (a header's word, a body for SEARCH)."""
    clean = _BASE64_JUNK.sub(b"", text.split(b"=", 1)[0])
    if len(clean) % 4 == 1:  # a lone sextet makes no octet
        clean = clean[:-1]
    try:
        return base64.b64decode(clean + b"=" * (-len(clean) % 4))
    except binascii.Error:
        return b""


def _word(value: str, start: int) -> tuple[str, int] | None:
    """The encoded-word whose `=?` ends at `start` (RFC 2047 §2: charset?encoding?text?=):
    its decoded text and the position after its `?=`, or None if it is none."""
    first = value.find("?", start)
    second = value.find("?", first + 1) if first != -1 else -1
    third = value.find("?", second + 1) if second != -1 else -1
    if third == -1 or value[third + 1 : third + 2] != "=":
        return None
    encoding = value[first + 1 : first + 2].upper()
    payload = value[second + 1 : third].encode("utf-8", "replace")
    if encoding == "Q":
        data = _q_decoded(payload)
    elif encoding == "B":
        data = lenient_base64(payload)
    else:
        return None
    charset = value[start:first].lower()
    try:
        if charset in _UTF8_NAMES:
            raise LookupError(charset)
        decoded = data.decode(charset, "replace")
    except (LookupError, ValueError):  # UTF-8, or a charset no converter knows
        decoded = header_text(data)
    return decoded, third + 2


def decode_words(value: str) -> str:
    """`value` with its RFC 2047 encoded-words decoded, found wherever `=?` starts one;
    text between two of them (or before the first) that is only white space is dropped."""
    if "=?" not in value:
        return value
    out: list[str] = []
    position, start, length = 0, 0, len(value)
    while position + 1 < length:
        if value[position] != "=" or value[position + 1] != "?":
            position += 1
            continue
        if position != start and not _LWSP.issuperset(value[start:position]):
            out.append(value[start:position])
        word = _word(value, position + 2)
        if word is None:
            start = position
            position += 2
            continue
        decoded, position = word
        out.append(decoded)
        start = position
    out.append(value[start:])
    return "".join(out)
