"""RFC 5322 §3.2 lexical tokens read the way Dovecot 2.3 reads them (src/lib-mail/rfc822-parser.c).

The address lists of ENVELOPE and SEARCH (core/mime/addresses.py) and SORT's and
THREAD's keys (imap_view/sort_headers.py) are read with it; Dovecot, the differential
tests' oracle, reads them leniently (white space around dots, comments anywhere, 8-bit
octets as atext), and the same lenience here gives the same values. Each reader
returns what Dovecot's does: 1 when text remains after the token and the white space
and comments that follow it, 0 at the end, -1 when there is no such token (or a comment
or quoted string is never closed). Every reader moves forward only, so a value is read
in linear time; comments nest to any depth without recursion.
"""

from __future__ import annotations

import re

__all__ = ["Lexer", "is_atext"]

# RFC 5322 §3.2.3 atext, and every non-ASCII character (RFC 6532 §3.2: UTF8-non-ascii).
_ATEXT = frozenset("!#$%&'*+-/=?^_`{|}~")
_ATEXT_CLASS = "A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\x80-\U0010ffff"
_ATOM = re.compile(f"[{_ATEXT_CLASS}]+")
_ATOM_OR_DOT = re.compile(f"[{_ATEXT_CLASS}.]*")
_WHITE_RUN = re.compile("[ \t\r\n]*")
# A quoted pair of a comment: the backslash dropped, unless CR, LF or NUL follows it.
_QUOTED_PAIR = re.compile(r"\\([^\r\n\0])", re.S)


def is_atext(char: str) -> bool:
    """One character of atext ("" is none)."""
    if char.isascii():
        return char in _ATEXT or char.isalnum()
    return True


class Lexer:
    """A cursor over one header value (`text`, `position`)."""

    __slots__ = ("comment", "position", "text")

    def __init__(self, text: str, position: int = 0) -> None:
        self.text = text
        self.position = position
        # Where the text of the last comment passed lies (inside its outer parentheses):
        # an address without a display name takes it for one (`comment_text`).
        self.comment: tuple[int, int] | None = None

    @property
    def current(self) -> str:
        """The character at the cursor ("" at the end, as Dovecot's NUL)."""
        return self.text[self.position] if self.position < len(self.text) else ""

    @property
    def more(self) -> bool:
        return self.position < len(self.text)

    def atext(self) -> bool:
        return is_atext(self.current)

    def _comment(self) -> int:
        """Past a comment (RFC 5322 §3.2.2: nested, quoted pairs), cursor on its `(`.
        One never closed ends the value; its text is what Dovecot had read of it by
        then (up to its last quoted pair or line break)."""
        text, depth = self.text, 0
        start = position = self.position + 1
        cut, length = start, len(text)
        while position < length:
            char = text[position]
            if char == "\\":
                if position + 1 >= length:
                    break
                if text[position + 1] not in "\r\n\0":
                    cut = position
                    position += 1
            elif char == "\n":
                cut = position + 1
            elif char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    self.comment = (start, position)
                    self.position = position + 1
                    return 1 if self.more else 0
                depth -= 1
            position += 1
        self.comment = (start, cut)
        self.position = length
        return -1

    def comment_text(self) -> str:
        """The last comment's text: quoted pairs undone, folding line breaks dropped,
        NUL as U+FFFD, nested comments kept with their parentheses ("" for none)."""
        if self.comment is None:
            return ""
        start, end = self.comment
        text = self.text[start:end]
        if "\\" in text:
            text = _QUOTED_PAIR.sub(r"\1", text)
        return text.replace("\r\n", "").replace("\n", "").replace("\0", "\ufffd")

    def skip(self) -> int:
        """Past white space and comments (CFWS)."""
        text, length = self.text, len(self.text)
        position = _WHITE_RUN.match(text, self.position).end()  # type: ignore[union-attr]
        while position < length and text[position] == "(":
            self.position = position
            if self._comment() < 0:
                return -1
            position = _WHITE_RUN.match(text, self.position).end()  # type: ignore[union-attr]
        self.position = position
        return 1 if position < length else 0

    def atom(self, out: list[str]) -> int:
        """1*atext, then CFWS."""
        found = _ATOM.match(self.text, self.position)
        if found is None:
            return -1
        out.append(found.group())
        self.position = found.end()
        return self.skip()

    def atom_or_dot(self, out: list[str]) -> int:
        """atext and dots (maybe none), then CFWS: a word of an obs-phrase."""
        found = _ATOM_OR_DOT.match(self.text, self.position)
        assert found is not None  # it matches the empty string
        out.append(found.group())
        self.position = found.end()
        return self.skip()

    def dot_atom(self, out: list[str]) -> int:
        """1*atext *("." 1*atext), white space allowed around the dots (RFC 822)."""
        while True:
            found = _ATOM.match(self.text, self.position)
            if found is None:
                return -1
            out.append(found.group())
            self.position = found.end()
            after = self.skip()
            if after <= 0 or self.current != ".":
                return after
            self.position += 1
            out.append(".")
            if self.skip() <= 0:
                return -1

    def quoted(self, out: list[str]) -> int:
        """A quoted-string (cursor on its `"`): its text, quoted pairs undone, folding
        line breaks dropped; then CFWS."""
        text = self.text
        position = self.position + 1
        start = position
        while position < len(text):
            char = text[position]
            if char == '"':
                out.append(text[start:position])
                self.position = position + 1
                return self.skip()
            if char == "\n":
                cut = position - 1 if position > start and text[position - 1] == "\r" else position
                out.append(text[start:cut])
                start = position + 1
            elif char == "\\" and position + 1 < len(text) and text[position + 1] not in "\r\n":
                out.append(text[start:position])
                position += 1
                start = position
            position += 1
        self.position = len(text)  # never closed: the value ends here
        return -1

    def phrase(self, out: list[str]) -> int:
        """1*word / obs-phrase: its words joined by one space."""
        if not self.more:
            return 0
        if self.current == ".":
            return -1
        while True:
            found = self.quoted(out) if self.current == '"' else self.atom_or_dot(out)
            if found <= 0:
                return found
            if not (self.atext() or self.current in ('"', ".")):
                return self.skip()
            out.append(" ")

    def domain(self, out: list[str]) -> int:
        """After `@` (cursor on it): a dot-atom or a domain-literal."""
        self.position += 1
        if self.skip() <= 0:
            return -1
        if self.current != "[":
            return self.dot_atom(out)
        return self._literal(out)

    def _literal(self, out: list[str]) -> int:
        """domain-literal, cursor on its `[`: kept as written, its quoted pairs too,
        folding line breaks dropped; a `[` inside ends it unread."""
        text, length = self.text, len(self.text)
        position = self.position + 1
        while position < length:
            char = text[position]
            if char == "[":
                self.position = position
                return -1
            if char == "]":
                literal = text[self.position : position + 1]
                out.append(literal.replace("\r\n", "").replace("\n", ""))
                self.position = position + 1
                return self.skip()
            if char == "\\":
                position += 1
            position += 1
        self.position = length
        return -1
