"""Address lists (RFC 5322 §3.4) read the way Dovecot 2.3 reads them for ENVELOPE and SEARCH.

RFC 3501 §7.4.2 writes an address as `(name adl mailbox host)` and a group as its start
`(NIL NIL "group" NIL)`, its members and its end `(NIL NIL NIL NIL)`; `address_list`
gives those four fields in order, as Dovecot (the differential tests' oracle,
src/lib-mail/message-address.c) fills them:

* a display name is the phrase as written (its words joined by one space, quoted
  strings unquoted, encoded-words left encoded); an addr-spec without one takes its
  last comment (`user@domain (Real Name)`, RFC 822's way of writing a name);
* an obs-route (RFC 5322 §4.4, `<@a,@b:user@domain>`) is the adl, `@a,@b`;
* what is missing is named: `MISSING_MAILBOX`, `MISSING_DOMAIN`, `SYNTAX_ERROR` (an
  angle address that does not close), `INVALID_ROUTE`; a bare word is a mailbox
  without a domain, several words a display name without an address.

Each address is tried as a group, then as a name-addr, then as an addr-spec, each
attempt reading forward only (core/mime/rfc822_lexer.py): a value is read in time
linear in its length, however it nests its comments or repeats its groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from core.mime.rfc822_lexer import Lexer

__all__ = [
    "INVALID_ROUTE",
    "MISSING_DOMAIN",
    "MISSING_MAILBOX",
    "SYNTAX_ERROR",
    "Address",
    "address_list",
]

MISSING_MAILBOX: Final = "MISSING_MAILBOX"
MISSING_DOMAIN: Final = "MISSING_DOMAIN"
SYNTAX_ERROR: Final = "SYNTAX_ERROR"
INVALID_ROUTE: Final = "INVALID_ROUTE"


@dataclass(frozen=True, slots=True)
class Address:
    """RFC 3501 §7.4.2's address: a group's start has only `mailbox` (the group's
    name), its end nothing."""

    name: str | None
    route: str | None
    mailbox: str | None
    domain: str | None


GROUP_END: Final = Address(None, None, None, None)


class _Reader:
    """One value's addresses, the one being read in `name`, `route`, `mailbox`, `domain`."""

    __slots__ = ("domain", "invalid", "items", "lexer", "mailbox", "name", "route")

    def __init__(self, value: str) -> None:
        self.lexer = Lexer(value)
        self.items: list[Address] = []
        self._clear()

    def _clear(self) -> None:
        self.name: str | None = None
        self.route: str | None = None
        self.mailbox: str | None = None
        self.domain: str | None = None
        self.invalid = False

    def _add(self) -> None:
        """The address read, what it lacks named (Dovecot's FILL_MISSING)."""
        mailbox = MISSING_MAILBOX if self.mailbox is None else self.mailbox
        domain = self.domain or MISSING_DOMAIN
        self.items.append(Address(self.name, self.route, mailbox, domain))
        self._clear()

    def addresses(self, limit: int | None) -> None:
        """address-list = address *("," address), or as much of it as reads."""
        lexer = self.lexer
        if lexer.skip() <= 0:
            return
        read = 0
        while limit is None or read < limit:
            read += 1
            if self._address() == 0:
                return
            if lexer.current != ",":
                return
            lexer.position += 1
            found = lexer.skip()
            if found <= 0:
                if found < 0:  # ends with an unclosed comment or quote
                    self._add()
                return

    def _address(self) -> int:
        """address = group / mailbox."""
        start = self.lexer.position
        found = self._group()
        if found < 0:
            self.lexer.position = start
            found = self._mailbox()
        return found

    def _group(self) -> int:
        """group = display-name ":" [mailbox-list / CFWS] ";" [CFWS]; -1 when what
        follows is no group, else 0 at the end of the value and 1 before more."""
        lexer = self.lexer
        words: list[str] = []
        if lexer.phrase(words) <= 0 or lexer.current != ":":
            return -1
        lexer.position += 1
        found = lexer.skip()
        self.items.append(Address(None, None, "".join(words), None))
        if found > 0 and lexer.current != ";":
            while True:
                self._mailbox()  # a broken member is kept as read; the group goes on
                if lexer.current != ",":
                    break
                lexer.position += 1
                if lexer.skip() <= 0:
                    found = -1
                    break
        if found >= 0:
            if lexer.current != ";":
                found = -1
            else:
                lexer.position += 1
                found = lexer.skip()
        self.items.append(GROUP_END)
        self._clear()
        return 0 if found == 0 else 1

    def _mailbox(self) -> int:
        """mailbox = name-addr / addr-spec; added whatever it lacks."""
        lexer = self.lexer
        start = lexer.position
        found = self._name_addr()
        if found < 0:
            lexer.position = start
            found = self._addr_spec()
            if self.invalid and self.name is None and self.domain is None:
                self.name, self.mailbox = self.mailbox, None  # a quoted word alone: a name
        self._add()
        return found

    def _name_addr(self) -> int:
        """name-addr = [display-name] angle-addr; -1 when no `<` follows the phrase."""
        lexer = self.lexer
        words: list[str] = []
        if lexer.phrase(words) <= 0 or lexer.current != "<":
            return -1
        self.name = "".join(words) or None
        if self._angle_addr() < 0:
            self.domain = SYNTAX_ERROR
            self.invalid = True
        return 1 if lexer.more else 0

    def _angle_addr(self) -> int:
        """ "<" [obs-route] addr-spec ">", cursor on the `<` ("<>" has no address)."""
        lexer = self.lexer
        lexer.position += 1
        if lexer.skip() <= 0:
            return -1
        if lexer.current == "@":
            if self._route() > 0 and lexer.current == ":":
                lexer.position += 1
            else:
                self.route = INVALID_ROUTE
                if not lexer.more:
                    return -1
            if lexer.skip() <= 0:
                return -1
        if lexer.current != ">":
            if self._local_part([]) <= 0:
                return -1
            if lexer.current == "@" and self._domain() <= 0:
                return -1
        if lexer.current != ">":
            return -1
        lexer.position += 1
        return lexer.skip()

    def _route(self) -> int:
        """obs-domain-list = "@" domain *(*(CFWS / ",") [CFWS] "@" domain), kept as
        `@a,@b` (RFC 3501 §7.4.2's at-domain-list)."""
        lexer = self.lexer
        out: list[str] = []
        while lexer.more and lexer.current == "@":
            if out:
                out.append(",")
            out.append("@")
            found = lexer.domain(out)
            if found <= 0:
                return found
            while lexer.skip() > 0 and lexer.current == ",":
                lexer.position += 1
        if not lexer.more:
            return 0
        self.route = "".join(out)
        return 1

    def _local_part(self, out: list[str]) -> int:
        """local-part, dots anywhere (Dovecot's non-strict reading: `john..doe`, a
        trailing dot), its text in `out` (as far as it read); the mailbox is set when
        it reads."""
        lexer = self.lexer
        if lexer.current == '"':
            found = lexer.quoted(out)
        else:
            found = -1
            while True:
                while lexer.current == ".":
                    out.append(".")
                    lexer.position += 1
                    if not lexer.more:
                        self.mailbox = "".join(out)
                        return 0
                    found = 1
                if lexer.current == "@":
                    break
                found = lexer.atom(out)
                if found <= 0 or lexer.current != ".":
                    break
        if found >= 0:
            self.mailbox = "".join(out)
        return found

    def _domain(self) -> int:
        """`@` domain, cursor on the `@`; the domain is set when it reads."""
        out: list[str] = []
        found = self.lexer.domain(out)
        if found >= 0:
            self.domain = "".join(out)
        return found

    def _addr_spec(self) -> int:
        """addr-spec = local-part "@" domain, its last comment its name; a word
        without `@domain` is a mailbox alone, followed by more words a name alone."""
        lexer = self.lexer
        lexer.comment = None
        quoted = lexer.current == '"'
        words: list[str] = []
        local = self._local_part(words)
        found, domain = local, -2
        if local <= 0:
            self.invalid = True
        if local != 0 and lexer.current == "@":
            domain = self._domain()
            if domain <= 0:
                found = domain
        comment = lexer.comment_text()
        if comment:
            self.name = comment
        elif domain == -2:
            words.append(" ")
            before = len("".join(words))
            lexer.phrase(words)
            text = "".join(words)
            if len(text) != before:
                self.mailbox, self.name = None, text
            elif not quoted:
                self.domain = ""
            self.invalid = True
            found = -1
        return found


def address_list(value: str, limit: int | None = None) -> list[Address]:
    """The addresses of one header field's value (see module doc); at most `limit`
    addresses and groups read (a group counts with its members)."""
    reader = _Reader(value)
    reader.addresses(limit)
    return reader.items
