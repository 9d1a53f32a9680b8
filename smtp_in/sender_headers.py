"""The sender's headers on a submitted message: what `From:` may claim, what is added.

A `From:` whose address is the sender's own still lies when its display name is
another address (`"bob@agentmail.localhost" <alice@agentmail.localhost>`): most
clients show the name alone. Such a message is refused (`550 5.7.1`), not
rewritten, so the sender learns why and nothing is stored under a name they did
not choose. A message without `From:` or `Message-ID:` gets one, as a submission
server may add them (RFC 6409 §8.1, §8.3): the sender's address, and the one
Message-ID every mail of the submission carries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Something@something inside a display name (after RFC 2047 decoding).
_ADDRESS_IN_NAME = re.compile(r"[^\s\"'<>()\[\],;:@]+@[^\s\"'<>()\[\],;:@]+")
# A header field's first line (RFC 5322 §2.2: printable ASCII but ":" names it), or
# the empty line that ends an empty header section.
_HEADER_START = re.compile(rb"[!-9;-~]+[ \t]*:|\r?\n")


def foreign_address_in_name(
    names: Sequence[tuple[str, str]], is_own: Callable[[str], bool]
) -> str | None:
    """The first address a `From:` display name shows that is not the sender's, if any."""
    for name, _ in names:
        for candidate in _ADDRESS_IN_NAME.findall(name):
            if not is_own(candidate.strip(".")):
                return str(candidate)
    return None


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
