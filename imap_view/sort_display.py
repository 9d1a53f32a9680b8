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

The reading follows imap_view/sort_headers.py's `first_mailbox` (the FROM and TO keys),
whose mailbox it agrees with, and runs in time linear in the field.
"""

from __future__ import annotations

from typing import Final

from imap_view.rfc822_lexer import Lexer
from imap_view.sort_headers import MISSING_MAILBOX, angle_address, local_part

__all__ = ["first_display"]

MISSING_DOMAIN: Final = "MISSING_DOMAIN"
SYNTAX_ERROR: Final = "SYNTAX_ERROR"


def _joined(mailbox: str | None, domain: str | None) -> str:
    local = MISSING_MAILBOX if mailbox is None else mailbox
    return f"{local}@{MISSING_DOMAIN if domain is None else domain}"


def _addr_spec(lexer: Lexer) -> str:
    """addr-spec, or what Dovecot makes of a bare word or of words: the display key."""
    lexer.last_comment = ""
    quoted = lexer.current == '"'
    mailbox, found = local_part(lexer, partial=True)
    if found != 0 and lexer.current == "@":
        domain: list[str] = []
        if lexer.domain(domain) < 0:
            mailbox = None
        return lexer.last_comment or _joined(mailbox, "".join(domain))
    if lexer.last_comment:
        return lexer.last_comment
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
        mailbox, domain, readable = angle_address(lexer)
        return _joined(mailbox, domain if readable else SYNTAX_ERROR)
    lexer.position = 0
    lexer.skip()
    return _addr_spec(lexer)
