"""SORT=DISPLAY's DISPLAYFROM and DISPLAYTO keys (RFC 5957), as Dovecot 2.3 reads them.

RFC 5957 §2: the key is the display name of the first From (or To) address, "if the
address has no display name, the addr-mailbox@addr-host". Dovecot (index-sort.c's
`get_display_name`, over message-address.c) reads the field decoded to UTF-8, takes its
first address and uses its name when it is not empty: the phrase of a name-addr; for an
addr-spec, a comment that follows it (`bob@example.org (Bob)`); for words that are no
address, the words themselves. Else `mailbox@domain`, with what Dovecot fills in for a
part that is missing (`MISSING_MAILBOX`, `MISSING_DOMAIN`, `SYNTAX_ERROR` for an angle
address it cannot read); a group's name when the field starts with a group. The key is
case-mapped like every SORT string (imap_view/casemap.py); an absent field is "".

It reads forward only with the RFC 5322 tokens of core/mime/rfc822_lexer.py, in time
linear in the field. (ENVELOPE's reader, core/mime/addresses.py, fills a missing
domain in where this key leaves it empty, as Dovecot's two readings differ.)
"""

from __future__ import annotations

from typing import Final

from core.mime.addresses import MISSING_MAILBOX
from core.mime.rfc822_lexer import Lexer

__all__ = ["first_display"]

MISSING_DOMAIN: Final = "MISSING_DOMAIN"
SYNTAX_ERROR: Final = "SYNTAX_ERROR"


def _angle(lexer: Lexer) -> tuple[str | None, str | None, int]:
    """angle-addr, cursor on its `<`: "<" [route ":"] local-part "@" domain ">";
    (mailbox, domain, what the lexer returned: -1 when it is not one)."""
    lexer.position += 1
    if lexer.skip() <= 0:
        return None, None, -1
    if lexer.current == "@":  # obs-route: "@a,@b:" before the address
        colon = lexer.text.find(":", lexer.position)
        if colon == -1:
            return None, None, -1
        lexer.position = colon + 1
        if lexer.skip() <= 0:
            return None, None, -1
    mailbox = domain = None
    if lexer.current != ">":
        mailbox, found = _local_part(lexer)
        if found <= 0:
            return mailbox, None, -1
        if lexer.current == "@":
            written: list[str] = []
            if lexer.domain(written) <= 0:
                return mailbox, None, -1
            domain = "".join(written)
    if lexer.current != ">":
        return mailbox, domain, -1
    lexer.position += 1
    return mailbox, domain, lexer.skip()


def _angle_address(lexer: Lexer) -> tuple[str | None, str | None, bool]:
    """angle-addr, cursor on its `<`: (mailbox, domain, whether it was read whole)."""
    mailbox, domain, found = _angle(lexer)
    return mailbox, domain, found >= 0


def _local_part(lexer: Lexer, *, partial: bool = False) -> tuple[str | None, int]:
    """dot-atom / quoted-string / obs-local-part, dots allowed anywhere (Dovecot's
    non-strict reading: `john..doe`, a trailing dot). None when it is none, or, with
    `partial`, what was read of it (Dovecot keeps that)."""
    out: list[str] = []
    if lexer.current == '"':
        found = lexer.quoted(out)
    else:
        found = -1
        while True:
            while lexer.current == ".":
                out.append(".")
                lexer.position += 1
                if not lexer.more:
                    return "".join(out), 0
                found = 1
            if lexer.current == "@":
                break
            found = lexer.atom(out)
            if found <= 0 or lexer.current != ".":
                break
    return (None if found < 0 and not partial else "".join(out)), found


def _joined(mailbox: str | None, domain: str | None) -> str:
    local = MISSING_MAILBOX if mailbox is None else mailbox
    return f"{local}@{MISSING_DOMAIN if domain is None else domain}"


def _addr_spec(lexer: Lexer) -> str:
    """addr-spec, or what Dovecot makes of a bare word or of words: the display key."""
    lexer.comment = None
    quoted = lexer.current == '"'
    mailbox, found = _local_part(lexer, partial=True)
    if found != 0 and lexer.current == "@":
        domain: list[str] = []
        if lexer.domain(domain) < 0:
            mailbox = None
        return lexer.comment_text() or _joined(mailbox, "".join(domain))
    if lexer.comment_text():
        return lexer.comment_text()
    words: list[str] = []
    lexer.phrase(words)
    if "".join(words):  # more words after the first: a display name, no address
        return f"{mailbox or ''} {''.join(words)}"
    if quoted:  # a quoted word alone is a display name
        return mailbox or ""
    return _joined(mailbox, "")


def first_display(value: str) -> str:
    """The display key of the first address of an address list (see module doc)."""
    lexer = Lexer(value)
    if lexer.skip() <= 0:
        return ""
    words: list[str] = []
    if lexer.phrase(words) > 0 and lexer.current == ":":  # group = display-name ":" …
        return "".join(words)
    lexer.position = 0
    lexer.skip()
    words = []
    if lexer.phrase(words) > 0 and lexer.current == "<":  # name-addr
        name = "".join(words)
        if name:
            return name
        mailbox, domain, readable = _angle_address(lexer)
        return _joined(mailbox, domain if readable else SYNTAX_ERROR)
    lexer.position = 0
    lexer.skip()
    return _addr_spec(lexer)
