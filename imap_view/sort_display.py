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

The address is read by the reader ENVELOPE and SEARCH use (core/mime/addresses.py),
which agrees with Dovecot's and runs in time linear in the field.
"""

from __future__ import annotations

from core.mime.addresses import address_list

__all__ = ["first_display"]


def first_display(value: str) -> str:
    """The display key of the first address of an address list (see module doc)."""
    addresses = address_list(value, limit=1)
    if not addresses:
        return ""
    first = addresses[0]
    if first.name:
        return first.name
    if first.domain is None:  # a group's start: its name is its mailbox
        return first.mailbox or ""
    return f"{first.mailbox}@{first.domain}"
