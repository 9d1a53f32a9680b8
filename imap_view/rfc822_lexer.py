"""RFC 5322 §3.2 lexical tokens read the way Dovecot 2.3 reads them (src/lib-mail/rfc822-parser.c).

SORT and THREAD read the first address of From/To/Cc, the Date and the message
identifiers (imap_view/sort_headers.py); Dovecot, the differential test's oracle, reads
them leniently (white space around dots, comments anywhere, 8-bit octets as atext),
and the same lenience here gives the same keys. Each reader returns what Dovecot's
does: 1 when text remains after the token and the white space and comments that follow
it, 0 at the end, -1 when there is no such token (or a comment or quoted string is
never closed). Every reader moves forward only, so a value is read in linear time.
"""

from __future__ import annotations

__all__ = ["Lexer", "is_atext"]

# RFC 5322 §3.2.3 atext, and every non-ASCII character (RFC 6532 §3.2: UTF8-non-ascii).
_ATEXT = frozenset("!#$%&'*+-/=?^_`{|}~")
_WHITE = frozenset(" \t\r\n")


def is_atext(char: str) -> bool:
    """One character of atext ("" is none)."""
    if char.isascii():
        return char in _ATEXT or char.isalnum()
    return True


class Lexer:
    """A cursor over one header value (`text`, `position`)."""

    __slots__ = ("last_comment", "position", "text")

    def __init__(self, text: str, position: int = 0) -> None:
        self.text = text
        self.position = position
        self.last_comment = ""  # the text of the last comment passed (Dovecot keeps it)

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
        """Past a comment (RFC 5322 §3.2.2: nested, quoted pairs), cursor on its `(`;
        its text (inner parentheses kept, quoted pairs undone) is `last_comment`."""
        text, depth = self.text, 0
        position = self.position
        kept: list[str] = []
        start = position + 1
        while position < len(text):
            char = text[position]
            if char == "\\":
                kept.append(text[start:position])
                position += 1
                start = position
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    kept.append(text[start:position])
                    self.last_comment = "".join(kept)
                    self.position = position + 1
                    return 1 if self.more else 0
            position += 1
        return -1

    def skip(self) -> int:
        """Past white space and comments (CFWS)."""
        while self.more:
            char = self.current
            if char in _WHITE:
                self.position += 1
            elif char == "(":
                if self._comment() < 0:
                    return -1
            else:
                return 1
        return 0

    def atom(self, out: list[str]) -> int:
        """1*atext, then CFWS."""
        if not self.atext():
            return -1
        start = self.position
        while self.atext():
            self.position += 1
        out.append(self.text[start : self.position])
        return self.skip() if self.more else 0

    def atom_or_dot(self, out: list[str]) -> int:
        """atext and dots (maybe none), then CFWS: a word of an obs-phrase."""
        start = self.position
        while self.atext() or self.current == ".":
            self.position += 1
        out.append(self.text[start : self.position])
        return self.skip() if self.more else 0

    def dot_atom(self, out: list[str]) -> int:
        """1*atext *("." 1*atext), white space allowed around the dots (RFC 822)."""
        if not self.atext():
            return -1
        while True:
            start = self.position
            while self.atext():
                self.position += 1
            if start == self.position:
                return -1
            out.append(self.text[start : self.position])
            found = self.skip()
            if found <= 0 or self.current != ".":
                return found
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
        close = self.text.find("]", self.position)
        if close == -1 or "[" in self.text[self.position + 1 : close]:
            return -1
        out.append(self.text[self.position : close + 1])
        self.position = close + 1
        return self.skip()
