"""Header text as SORT and THREAD compare it: RFC 2047 decoded, then i;unicode-casemap.

RFC 5256 §3 compares the base subject (§2.1 step 1 decodes encoded-words first) and
the addresses' mailboxes in the collation of I18NLEVEL=1 (RFC 5255 §4.5, §5:
i;unicode-casemap, RFC 5051 §2): each character titlecased by its simple mapping
(UnicodeData.txt field 14), then decomposed, and the results compared octet by octet.

Dovecot 2.3 is the oracle (tests/integration/test_imap_dovecot_diff.py) and does both
its own way, which is copied here: one level of decomposition, compatibility ones
included, and none for a character that has a titlecase mapping of its own (its tables
are made so, src/lib/unicodemap.pl); encoded-words found anywhere, white space that
only separates them dropped (RFC 2047 §6.2), `_` in Q as a space, an unknown encoding
left as text (src/lib-mail/message-header-decode.c). Python strings compare by code
point, which is the order of their UTF-8 octets, so `casemap(a) < casemap(b)` is
Dovecot's `strcmp`.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import lru_cache

__all__ = ["casemap", "decode_words", "header_text"]

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
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


@lru_cache(maxsize=8192)
def _folded(char: str) -> str:
    """One character titlecased (simple mapping: a full one of several characters, as
    `ß` → `Ss`, means there is none) and decomposed one level."""
    title = char.title()
    if len(title) != 1:
        title = char
    if unicodedata.category(title) == "Lt":  # its titlecase is itself: never decomposed
        return title
    point = ord(title)
    if _HANGUL_FIRST <= point <= _HANGUL_LAST:  # Unicode §3.12: decomposed by arithmetic
        index = point - _HANGUL_FIRST
        lead, vowel, trail = 0x1100 + index // 588, 0x1161 + index % 588 // 28, index % 28
        return chr(lead) + chr(vowel) + (chr(0x11A7 + trail) if trail else "")
    mapping = unicodedata.decomposition(title)
    if not mapping:
        return title
    if mapping.startswith("<"):  # a compatibility tag: `<font> 0041`
        mapping = mapping.split(" ", 1)[1]
    return "".join(chr(int(code, 16)) for code in mapping.split())


def casemap(text: str) -> str:
    """i;unicode-casemap's canonical form of `text` (RFC 5051 §2, as Dovecot makes it)."""
    if text.isascii():
        return text.upper()
    return "".join(_folded(char) for char in text)


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


def _b_decoded(text: bytes) -> bytes:
    """RFC 2047 §4.1: what decodes of the base64, octets outside its alphabet skipped."""
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
        data = _b_decoded(payload)
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
