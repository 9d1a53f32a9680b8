"""How much MIME structure the gateway reads in a message, and the bounded header scan.

A message is parsed for IMAP (BODYSTRUCTURE, ENVELOPE, `BODY[n]`) by code whose cost
grows with the number of parts, their nesting, the lines of each header section and
the lines of every multipart body (each level scans its body for its boundary). A
message over any of these bounds is *opaque*: stored and served back byte for byte,
its structure one part (docs/imap.md, docs/security.md). The bounds are generous for
mail people write: Dovecot 2.3 stops at 100 nested and 10,000 total parts; real mail
rarely nests past 10 or carries more than a few hundred parts.

Nothing here imports a MIME library: header sections are found and split with
`bytes.find`/`bytes.count` (C speed) and scanned a line at a time only within the bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "LIMITS",
    "MimeLimits",
    "OverBound",
    "header_fields",
    "plainly_within",
    "split_header",
]


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


def split_header(data: bytes, start: int, end: int, max_bytes: int) -> tuple[int, int]:
    """(end of the header fields, start of the body) of the part `data[start:end]`.

    The header ends at the first empty line (RFC 5322 §2.1), which belongs to neither
    side; a part that starts with an empty line has no header, one without any empty
    line is all header. OverBound when the header is longer than `max_bytes`."""
    if start >= end:
        return start, start
    if data.startswith(b"\r\n", start, end):
        return start, start + 2
    if data[start] == 0x0A:
        return start, start + 1
    limit = min(end, start + max_bytes + 3)
    crlf = data.find(b"\n\r\n", start, limit)
    lf = data.find(b"\n\n", start, limit)
    if crlf != -1 and (lf == -1 or crlf < lf):
        fields_end, body = crlf + 1, crlf + 3
    elif lf != -1:
        fields_end, body = lf + 1, lf + 2
    elif end - start <= max_bytes:
        return end, end
    else:
        raise OverBound(f"a header section is longer than {max_bytes} bytes")
    if fields_end - start > max_bytes:
        raise OverBound(f"a header section is longer than {max_bytes} bytes")
    return fields_end, body


# Header field lines: (name lowered, [(start, end without its line break, next start)]).
Field = tuple[bytes, list[tuple[int, int, int]]]


def header_fields(
    data: bytes,
    start: int,
    end: int,
    *,
    wanted: frozenset[bytes] | None = None,
    max_field_lines: int | None = None,
) -> list[Field]:
    """The header fields in `data[start:end]` with the lines each is folded over
    (RFC 5322 §2.2.3), in order. With `wanted`, only those names; with
    `max_field_lines`, a field folded over more lines is left out. The caller bounds
    the section (`split_header`, a line count): this walks it a line at a time."""
    fields: list[Field] = []
    current: list[tuple[int, int, int]] | None = None
    skipping = False
    pos = start
    while pos < end:
        newline = data.find(b"\n", pos, end)
        following = end if newline == -1 else newline + 1
        line_end = following if newline == -1 else newline
        if line_end > pos and data[line_end - 1] == 0x0D and newline != -1:
            line_end -= 1
        if pos < line_end and data[pos] in (0x20, 0x09):  # a folded continuation
            if current is not None and not skipping:
                current.append((pos, line_end, following))
                if max_field_lines is not None and len(current) > max_field_lines:
                    fields.pop()
                    current, skipping = None, True
        else:
            colon = data.find(b":", pos, line_end)
            current, skipping = None, False
            if colon > pos:
                name = data[pos:colon].strip().lower()
                if wanted is None or name in wanted:
                    current = [(pos, line_end, following)]
                    fields.append((name, current))
        pos = following
    return fields


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
