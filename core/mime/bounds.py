"""How much MIME structure the gateway reads in a message: the bounds, and a quick check.

A message is parsed for IMAP (BODYSTRUCTURE, ENVELOPE, `BODY[n]`) by code whose cost
grows with the number of parts, their nesting, the lines of each header section and
the lines of every multipart body (each level scans its body for its boundary). A
message over any of these bounds is *opaque*: stored and served back byte for byte,
its structure one part (docs/imap.md, docs/security.md). The bounds are generous for
mail people write: Dovecot 2.3 stops at 100 nested and 10,000 total parts; real mail
rarely nests past 10 or carries more than a few hundred parts.

`plainly_within` says, from a few byte counts, that a message is certainly within
them; the exact answer is the bounded walk's (core/mime/structure.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["LIMITS", "MimeLimits", "OverBound", "plainly_within"]


@dataclass(frozen=True, slots=True)
class MimeLimits:
    max_depth: int = 50  # multipart and message/rfc822 levels below the message
    max_parts: int = 1_000  # every part, the message itself included
    max_header_lines: int = 2_000  # lines of one header section (folded lines count)
    max_header_bytes: int = 256 * 1024  # bytes of one header section
    max_total_header_bytes: int = 1024 * 1024  # of all header sections together
    # Lines read: the message's own, again for each multipart body scanned for its
    # boundary, and each header section's (a 24 MB base64 attachment is ~320,000 lines).
    max_work: int = 2_000_000


LIMITS: Final = MimeLimits()


class OverBound(Exception):
    """A message over one of the `MimeLimits`; the text names which."""


def plainly_within(data: bytes, limits: MimeLimits = LIMITS) -> bool:
    """True when `data` is certainly within the bounds, from a few C-speed counts.

    Every header section is inside the message, so a message shorter than one section
    may be has its sections within bounds; each nested level needs a header/body
    separator (an empty line) and each part a delimiter line (`--` at a line start),
    so these counts bound the depth and the number of parts, and lines times depth
    bounds the work. False says nothing: the exact bounded walk decides
    (core/mime/structure.py)."""
    lines = data.count(b"\n")
    if lines > limits.max_header_lines or len(data) > limits.max_header_bytes:
        return False
    separators = data.count(b"\n\r\n") + data.count(b"\n\n") + 1
    delimiters = data.count(b"\n--") + 1
    return (
        separators <= limits.max_depth
        and delimiters + separators < limits.max_parts  # message/rfc822 parts need no "--"
        and lines * (separators + 3) <= limits.max_work
    )
