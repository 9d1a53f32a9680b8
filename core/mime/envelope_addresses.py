"""ENVELOPE's address lists and texts as kept (core/mime/summary.py) and written by IMAP.

RFC 3501 §7.4.2 gives each of From, Sender, Reply-To, To, Cc and Bcc as a list of
`(name adl mailbox host)`, a group between its start and end markers. The addresses
are read as Dovecot reads them (core/mime/addresses.py); every field of a name is
merged into one list, as Dovecot does (so a message cannot show one From to a filter
and another to a reader). Kept as JSON items:

* `["a", name, name7, route, mailbox, host]`: an address;
* `["g", name, name7]`: a group's start; `["e"]`: its end.

`name` is the text a UTF8=ACCEPT session gets: RFC 2047 decoded, octets as UTF-8.
`name7` (None when it is `name` itself) is what a session without it gets (RFC 6855
§3): the name as written when that is ASCII, encoded-words as they are, as Dovecot
sends it; else the decoded text encoded again (core/mime/encoded_words.py). A display
name and the subject are written for humans, as Dovecot writes them: runs of white
space as one space, none at either end (`humane`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from core.mime.addresses import address_list
from core.mime.encoded_words import seven_bit_text
from core.mime.header_decoding import decode_words

__all__ = ["Item", "address_items", "humane", "text_forms"]

Item = list[str | None]
_RUNS: Final = re.compile(r"[ \t\r\n]+")


def humane(text: str) -> str:
    """Runs of white space as one space, none at either end (Dovecot's
    `imap_append_string_for_humans`)."""
    return _RUNS.sub(" ", text).strip(" ")


def text_forms(written: str, *, for_humans: bool) -> tuple[str, str | None]:
    """(the text decoded, the 7-bit text when it differs): see module doc."""
    decoded = decode_words(written)
    seven = written if written.isascii() else seven_bit_text(decoded)
    if for_humans:
        decoded, seven = humane(decoded), humane(seven)
    return decoded, None if seven == decoded else seven


def address_items(values: Iterable[str]) -> list[Item] | None:
    """The address list of every field of one name (their values as text, in order),
    None when they hold no address: RFC 3501 §7.4.2 then writes NIL (and Sender and
    Reply-To are From)."""
    items: list[Item] = []
    for value in values:
        for address in address_list(value):
            if address.domain is not None:
                name, name7 = (
                    (None, None)
                    if address.name is None
                    else text_forms(address.name, for_humans=True)
                )
                items.append(["a", name, name7, address.route, address.mailbox, address.domain])
            elif address.mailbox is not None:
                items.append(["g", *text_forms(address.mailbox, for_humans=False)])
            else:
                items.append(["e"])
    return items or None
