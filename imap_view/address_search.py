"""The text SEARCH FROM, TO, CC and BCC match in, as Dovecot 2.3 makes it.

RFC 3501 §6.4.4: FROM "string" matches messages that "contain the specified string
in the envelope structure's FROM field". Dovecot, the differential tests' oracle,
reads each field of that name as an address list (core/mime/addresses.py), writes the
list back in one normal form (src/lib-mail/message-address.c,
`message_address_write`):

    "Real Name" <user@domain>, Name <@route:user@domain>, group: <a@b>, <c@d>;

then decodes its encoded-words and matches in i;unicode-casemap (imap_view/casemap.py).
So a name given as a comment (`user@domain (Real Name)`) is found, a group by its
name, and an address by any part of `user@domain`.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.mime.addresses import Address, address_list
from core.mime.header_decoding import decode_words
from core.mime.rfc822_lexer import is_atext
from imap_view.casemap import casemap

__all__ = ["address_text", "written"]

_ESCAPED = frozenset("\"\\'")


def _maybe_quoted(text: str, *, dots: bool) -> str:
    """As it is when every character is atext (dots too, unless `dots`), else quoted,
    `"`, `\\` and `'` escaped."""
    if all(is_atext(char) or (char == "." and not dots) for char in text):
        return text
    if not _ESCAPED.intersection(text):
        return f'"{text}"'
    escaped = "".join(f"\\{char}" if char in _ESCAPED else char for char in text)
    return f'"{escaped}"'


def _phrase(text: str) -> str:
    """A display name or group name: encoded-words as they are (RFC 2047 §5 keeps them
    out of quoted strings), else quoted if need be."""
    return text if "=?" in text else _maybe_quoted(text, dots=True)


def written(addresses: Sequence[Address]) -> str:
    """The addresses in Dovecot's normal form (see module doc)."""
    out: list[str] = []
    first, in_group = True, False
    for address in addresses:
        if not first:
            out.append(", ")
        first = False
        if address.domain is None:
            if not in_group:
                out.append(_phrase(address.mailbox) if address.mailbox else '""')
                out.append(": ")
                first = True
            else:
                if out[-1] == ", ":
                    out.pop()
                elif out[-1] == ": ":
                    out[-1] = ":"
                out.append(";")
            in_group = not in_group
            continue
        name, mailbox = address.name, address.mailbox or ""
        if name is not None:
            out.append(_phrase(name))
        if address.route is not None or mailbox or address.domain:
            if name:
                out.append(" ")
            out.append("<")
            if address.route is not None:
                out.append(address.route + ":")
            out.append(_maybe_quoted(mailbox, dots=False) if mailbox else '""')
            if address.domain:
                out.append("@" + address.domain)
            out.append(">")
    return "".join(out)


def address_text(value: str) -> str:
    """What SEARCH matches a string in, for one address field's value (text)."""
    return casemap(decode_words(written(address_list(value))))
