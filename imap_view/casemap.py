"""Text as IMAP compares and searches it: i;unicode-casemap (RFC 5051 §2).

RFC 5256 §3 compares the base subject and the addresses' mailboxes in the collation
of I18NLEVEL=1 (RFC 5255 §4.5, §5: i;unicode-casemap), and SEARCH matches its
strings in it too (Dovecot's normaliser): each character titlecased by its simple
mapping (UnicodeData.txt field 14), then decomposed, and the results compared octet
by octet. The text is decoded first (core/mime/header_decoding.py).

Dovecot 2.3 is the oracle (tests/integration/test_imap_dovecot_diff.py) and does it
its own way, which is copied here: one level of decomposition, compatibility ones
included, and none for a character that has a titlecase mapping of its own (its tables
are made so, src/lib/unicodemap.pl). Python strings compare by code point, which is
the order of their UTF-8 octets, so `casemap(a) < casemap(b)` is Dovecot's `strcmp`.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["casemap"]

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
# Code points whose folded text is kept: every script a mailbox is likely to hold,
# not every code point a hostile message could list.
_KEPT_POINTS: Final = 65_536


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


class _Folding(dict[int, str]):
    """`str.translate`'s table: each code point's folded text, made when first met."""

    def __missing__(self, point: int) -> str:
        folded = _folded(chr(point))
        if len(self) < _KEPT_POINTS:
            self[point] = folded
        return folded


_FOLDING: Final = _Folding()


def casemap(text: str) -> str:
    """i;unicode-casemap's canonical form of `text` (RFC 5051 §2, as Dovecot makes it)."""
    if text.isascii():
        return text.upper()
    return text.translate(_FOLDING)
