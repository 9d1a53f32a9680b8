"""The sender's headers on a submitted message: what `From:` may claim, what is added.

A `From:` whose address is the sender's own still lies when its display name is
another address (`"bob@agentmail.localhost" <alice@agentmail.localhost>`): most
clients show the name alone. The name is read as it is shown: NFKC folds the
full-width and small `@` (U+FF20, U+FE6B) and dots into ASCII, the other dots
Unicode lists as confusable with `.` are read as one, invisible format characters
(zero-width space, soft hyphen, bidi controls) are dropped, and blanks around an
`@` do not hide an address at a domain (`bob @ agentmail.localhost`). Such a
message is refused (`550 5.7.1`), not
rewritten, so the sender learns why and nothing is stored under a name they did
not choose. A message without `From:` or `Message-ID:` gets one, as a submission
server may add them (RFC 6409 §8.1, §8.3): the sender's address, and the one
Message-ID every mail of the submission carries.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

# Something@something inside a display name (after RFC 2047 decoding). A match is
# tried only where a run of address characters starts (the lookbehind), not at every
# character: a long name costs linear time.
_CHAR = r"[^\s\"'<>()\[\],;:@]"
_LABEL = r"[^\s\"'<>()\[\],;:@.]+"
_ADDRESS_IN_NAME = re.compile(rf"(?<!{_CHAR}){_CHAR}+@{_CHAR}+")
# The same with blanks around its `@`, when what follows looks like a domain (a dot
# between two labels): "Team @ Work" is a name, "bob @ example.com" an address.
_SPACED_ADDRESS = re.compile(rf"(?<!{_CHAR}){_CHAR}+\s*@\s*{_LABEL}(?:\.{_LABEL})+")
# Unicode's confusables of FULL STOP (confusables.txt) that NFKC leaves as they are.
_DOTS = str.maketrans(dict.fromkeys("\u3002\u06d4\u0701\u0702\u2e3c\ua4f8\ua60e", "."))
# A header field's first line (RFC 5322 §2.2: printable ASCII but ":" names it), or
# the empty line that ends an empty header section.
_HEADER_START = re.compile(rb"[!-9;-~]+[ \t]*:|\r?\n")


def foreign_address_in_name(
    names: Sequence[tuple[str, str]], is_own: Callable[[str], bool]
) -> str | None:
    """The first address a `From:` display name shows that is not the sender's, if any
    (in ASCII, `\\u` escapes for the rest: it goes into an SMTP reply)."""
    for name, _ in names:
        shown = as_shown(name)
        candidates: list[str] = _ADDRESS_IN_NAME.findall(shown)
        candidates += ["".join(found.split()) for found in _SPACED_ADDRESS.findall(shown)]
        for candidate in candidates:
            if not is_own(candidate.strip(".")):
                return candidate.encode("ascii", "backslashreplace").decode("ascii")
    return None


def as_shown(name: str) -> str:
    """A display name as a reader sees it: compatibility forms folded (NFKC), dot
    look-alikes made dots, invisible format characters (Unicode category Cf) gone."""
    folded = unicodedata.normalize("NFKC", name).translate(_DOTS)
    return "".join(char for char in folded if unicodedata.category(char) != "Cf")


def _line_end(raw: bytes) -> bytes:
    first = raw.find(b"\n")
    return b"\n" if first > 0 and raw[first - 1 : first] != b"\r" else b"\r\n"


def with_added_headers(
    raw: bytes, *, sender: str | None, message_id: str | None, date: str | None = None
) -> bytes:
    """`raw` with `From: <sender>`, `Date:` and `Message-ID:` put in front, those given.

    A message that starts with no header at all is all body: the added header
    section then ends with its empty line, so the body stays a body."""
    end = _line_end(raw)
    added = b""
    if sender is not None:
        added += b"From: <" + sender.encode("ascii") + b">" + end
    if date is not None:
        added += b"Date: " + date.encode("ascii") + end
    if message_id is not None:
        added += b"Message-ID: " + message_id.encode("ascii", "replace") + end
    if added and not _HEADER_START.match(raw):
        added += end
    return added + raw
