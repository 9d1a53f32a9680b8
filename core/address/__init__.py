"""The one address parser: native `name@path.session` ⇄ `Address` ⇄ RFC 5321 mailbox.

Every way a mail enters (REST, SMTP, IMAP, bridges) resolves its addresses here and
nowhere else, so an address means the same thing on every path and the round trips
structured → native → structured and native → email → native stay exact (they are
property-tested). The grammar is in ARCHITECTURE.md, "Three-part addressing".

Email form at the gateway's domain D: local part = name [`+` path [`+` session]].
The path is escaped so the local part is always an RFC 5322 §3.2.3 dot-atom (atext
and single inner dots): mail clients never need a quoted local part. Local parts
longer than 64 octets are accepted and produced, as RFC 5321 §4.5.3.1 allows.

`mailto.py` is the parser's other branch: mailboxes outside, `mailto:x@example.com`.
Vocabulary: the package imports only core/errors.py.
"""

from __future__ import annotations

import dataclasses
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from core.errors import InvalidAddress

__all__ = [
    "ABUSE",
    "MAX_NAME_LENGTH",
    "MAX_PATH_LENGTH",
    "NEW_SESSION",
    "POSTMASTER",
    "REPLY",
    "RESERVED_NAMES",
    "ROLE_NAMES",
    "Address",
    "at_domain",
    "is_valid_alias",
    "is_valid_name",
    "normalize_alias",
    "normalize_name",
    "parse_address",
    "parse_email",
    "parse_native",
    "party_address",
]

NEW_SESSION: Final = "new"
# RFC 5321 §4.5.1: every mail domain has a `postmaster`. Here it is the gateway itself,
# which signs its notices with it; no human or agent may take the name.
POSTMASTER: Final = "postmaster"
# RFC 2142 §2: `abuse` too. Both are role mailboxes the gateway's admins read.
ABUSE: Final = "abuse"
ROLE_NAMES: Final = frozenset({POSTMASTER, ABUSE})
# `reply+<token>@D` is where replies from outside will come back: no mailbox may be
# called so, or its `name+path` address would read as a token.
REPLY: Final = "reply"
RESERVED_NAMES: Final = ROLE_NAMES | {REPLY}
MAX_PATH_LENGTH: Final = 1024
MAX_NAME_LENGTH: Final = 64

_NAME_RE: Final = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_NAME_LENGTH - 1}}}")
_SESSION_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_NAME_RULE: Final = (
    "a name is 1-64 of A-Z a-z 0-9 . _ - starting with a letter or digit,"
    " not ending with '.' and without '..'"
)
_ALIAS_RULE: Final = "an alias is 1-64 of a-z 0-9 _ - starting with a letter or digit"
_PATH_RULE: Final = (
    f"a path is at most {MAX_PATH_LENGTH} printable characters without white space or '@'"
)
# RFC 5322 §3.2.3 atext; in a path `+` (our separator) and `=` (our escape) are escaped.
_ATEXT: Final = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~")
_RAW_PATH_CHARS: Final = _ATEXT - {"+", "="}


def is_valid_name(text: str) -> bool:
    """True for a name in any case; the dot rules keep `name` a dot-atom on its own."""
    return bool(_NAME_RE.fullmatch(text)) and not text.endswith(".") and ".." not in text


def _is_session_text(text: str) -> bool:
    """An alias or `new`, in any case (sessions are case-insensitive)."""
    return bool(_SESSION_RE.fullmatch(text))


def is_valid_alias(text: str) -> bool:
    """A usable conversation alias: valid session text that is not the reserved `new`."""
    return _is_session_text(text) and text.lower() != NEW_SESSION


def normalize_name(text: str) -> str:
    """Validate a name and store it lower-case (names are case-insensitive)."""
    if not is_valid_name(text):
        raise InvalidAddress(f"invalid name {text!r}: {_NAME_RULE}")
    return text.lower()


def normalize_alias(text: str) -> str:
    """Validate an alias and lower-case it; `new` is reserved for "a new conversation"."""
    if _is_session_text(text) and text.lower() == NEW_SESSION:
        raise InvalidAddress(f"alias {text!r} is reserved: it means a new conversation")
    if not _is_session_text(text):
        raise InvalidAddress(f"invalid alias {text!r}: {_ALIAS_RULE}")
    return text.lower()


def _name_in(name: str, text: str) -> str:
    if not is_valid_name(name):
        raise InvalidAddress(f"invalid name {name!r} in {text!r}: {_NAME_RULE}")
    return name.lower()


def _session_in(session: str, text: str) -> str:
    if not _is_session_text(session):
        raise InvalidAddress(
            f"invalid session {session!r} in {text!r}: {_ALIAS_RULE}, or {NEW_SESSION!r}"
        )
    return session.lower()


def _check_path(path: str, text: str) -> None:
    if len(path) > MAX_PATH_LENGTH:
        raise InvalidAddress(f"path of {text!r} is {len(path)} characters long: {_PATH_RULE}")
    for ch in path:
        if ch == "@" or ch.isspace() or not ch.isprintable():
            raise InvalidAddress(
                f"invalid character {ch!r} in path {path!r} of {text!r}: {_PATH_RULE}"
            )


def _needs_trailing_dot(path: str) -> bool:
    """Whether `name@path` would be read with a session part (or lose a final dot)."""
    if not path:
        return False
    _, dot, tail = path.rpartition(".")
    return path.endswith(".") or (dot == "." and _is_session_text(tail))


def _escape_path(path: str) -> str:
    """Escape a path as `=XX` so `name+path+session` is a dot-atom (RFC 5322 §3.2.3).

    A dot stays raw only between two non-dot path characters: a leading or trailing one
    would touch `+`/`@` (never at the end of a dot-atom) and two raw dots make `..`.
    """
    out: list[str] = []
    last = len(path) - 1
    for i, ch in enumerate(path):
        if ch in _RAW_PATH_CHARS or (
            ch == "." and 0 < i < last and path[i - 1] != "." and path[i + 1] != "."
        ):
            out.append(ch)
        else:
            out.append("".join(f"={b:02X}" for b in ch.encode("utf-8")))
    return "".join(out)


def _unescape_path(raw: str, text: str) -> str:
    """Decode `=XX` (either case of hex); raw atext, dots and UTF-8 (RFC 6531) pass."""
    buf = bytearray()
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "=":
            hx = raw[i + 1 : i + 3]
            if len(hx) != 2 or any(c not in string.hexdigits for c in hx):
                raise InvalidAddress(
                    f"bad escape {raw[i : i + 3]!r} in path {raw!r} of {text!r}:"
                    " '=' must be followed by two hex digits"
                )
            buf.append(int(hx, 16))
            i += 3
            continue
        if ch in _ATEXT or ch == "." or (not ch.isascii() and ch.isprintable()):
            buf += ch.encode("utf-8")
        else:
            raise InvalidAddress(
                f"invalid character {ch!r} in path {raw!r} of {text!r}: escape it as =XX"
            )
        i += 1
    try:
        path = buf.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidAddress(
            f"path {raw!r} of {text!r} does not decode as UTF-8: its =XX escapes are wrong"
        ) from None
    _check_path(path, text)
    return path


@dataclass(frozen=True, slots=True)
class Address:
    """A parsed address; it validates itself, so an invalid Address cannot exist."""

    name: str
    path: str = ""
    session: str | None = None

    def __post_init__(self) -> None:
        if not is_valid_name(self.name) or self.name != self.name.lower():
            raise InvalidAddress(f"invalid name {self.name!r}: {_NAME_RULE}, in lower case")
        if self.session is not None and (
            not _is_session_text(self.session) or self.session != self.session.lower()
        ):
            raise InvalidAddress(
                f"invalid session {self.session!r}: {_ALIAS_RULE}, in lower case, or 'new'"
            )
        _check_path(self.path, f"{self.name}@{self.path}")

    @property
    def is_new(self) -> bool:
        return self.session == NEW_SESSION

    @property
    def alias(self) -> str | None:
        """The alias of an existing conversation; None for the default one and for new."""
        if self.session is None or self.session == NEW_SESSION:
            return None
        return self.session

    def native(self) -> str:
        """Canonical `name@path.session`; a trailing `.` keeps a dotted path session-free."""
        if self.session is not None:
            return f"{self.name}@{self.path}.{self.session}"
        dot = "." if _needs_trailing_dot(self.path) else ""
        return f"{self.name}@{self.path}{dot}"

    def email(self, domain: str) -> str:
        """Canonical mailbox `name[+path[+session]]@domain`, ASCII, with no 64-octet cap.

        RFC 5321 §4.5.3.1 lets a server accept longer local parts; ours are ours to accept.
        """
        _check_domain(domain)
        local = self.name
        if self.path or self.session is not None:
            local += "+" + _escape_path(self.path)
        if self.session is not None:
            local += "+" + self.session
        return f"{local}@{domain}"

    def with_session(self, session: str | None) -> Address:
        """A copy with another session (any case; None = the default conversation)."""
        if session is not None:
            session = _session_in(session, self.native())
        return dataclasses.replace(self, session=session)

    def __str__(self) -> str:
        return self.native()


def party_address(name: str, path: str, alias: str | None) -> Address:
    """A mail's sender or recipient as seen in the conversation `alias`: with the alias,
    so a plain Reply lands there; the postmaster keeps its bare address (it takes part
    in no conversation)."""
    return Address(name, path, None if name == POSTMASTER else alias)


def _check_domain(domain: str) -> None:
    if not domain or "@" in domain or any(c.isspace() for c in domain):
        raise InvalidAddress(f"invalid mail domain {domain!r}")


def _unwrap(text: str) -> str:
    """Drop surrounding white space and one pair of angle brackets (`<addr>`)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == "<" and text[-1] == ">":
        text = text[1:-1].strip()
    return text


def parse_native(text: str) -> Address:
    """Parse `name@path.session` exactly as written (no trimming)."""
    name, at, rest = text.partition("@")
    if not at:
        raise InvalidAddress(f"no '@' in {text!r}: an address is name@path.session")
    name = _name_in(name, text)
    session: str | None = None
    if rest.endswith("."):
        path = rest[:-1]  # a trailing dot says "no session part"
    else:
        head, dot, tail = rest.rpartition(".")
        if dot and _is_session_text(tail):
            path, session = head, tail.lower()
        else:
            path = rest
    _check_path(path, text)
    return Address(name, path, session)


def at_domain(text: str, domain: str) -> bool:
    """Whether a mailbox (optionally in `<...>`) is at `domain`, valid or not: relay checks."""
    _, at, dom = _unwrap(text).rpartition("@")
    return bool(at) and dom.lower() == domain.lower()


@lru_cache(maxsize=1024)
def parse_email(text: str, domain: str) -> Address:
    """Parse `name[+path[+session]]@domain` (optionally in `<...>`) at the gateway's domain.

    Remembered (an Address is immutable; a refusal raises and is not kept): SMTP
    parses one sender three times a message, and the same few addresses all day."""
    _check_domain(domain)
    return _parse_email(_unwrap(text), domain)


def _parse_email(text: str, domain: str) -> Address:
    local, at, dom = text.rpartition("@")
    if not at:
        raise InvalidAddress(f"no '@' in {text!r}: expected name[+path[+session]]@{domain}")
    if dom.lower() != domain.lower():
        raise InvalidAddress(f"domain {dom!r} of {text!r} is not this gateway's {domain!r}")
    if not local:
        raise InvalidAddress(f"empty local part in {text!r}")
    parts = local.split("+")
    if len(parts) > 3:
        raise InvalidAddress(
            f"too many '+' parts in {local!r} of {text!r}: expected name[+path[+session]]"
        )
    name = _name_in(parts[0], text)
    session = _session_in(parts[2], text) if len(parts) == 3 else None
    raw_path = parts[1] if len(parts) >= 2 else ""
    # RFC 5322 §3.2.3: a dot-atom has no `..` and does not end with a dot.
    if ".." in raw_path or (len(parts) == 2 and raw_path.endswith(".")):
        raise InvalidAddress(
            f"raw dot out of place in path {raw_path!r} of {text!r}: escape it as =2E"
        )
    return Address(name, _unescape_path(raw_path, text), session)


def parse_address(text: str, domain: str) -> Address:
    """Either form: `...@domain` with no other `@` is the email form, else native."""
    _check_domain(domain)
    inner = _unwrap(text)
    local, at, dom = inner.rpartition("@")
    if at and "@" not in local and dom.lower() == domain.lower():
        return _parse_email(inner, domain)
    return parse_native(inner)
