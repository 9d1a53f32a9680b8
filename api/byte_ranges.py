"""One byte range of a download (RFC 9110 §14): `Range: bytes=a-b`, `a-` or `-n`.

A client resuming a download or a player seeking in a file asks for one range; the
answer is `206` with `Content-Range`, or `416` with `Content-Range: bytes */size`
when no byte of the content is in it (§14.1.1, §15.5.17). Several ranges, another
unit or a header that does not parse are ignored, and the whole content is sent:
§14.2 lets a server do so. An `If-Range` that is not the content's ETag (§13.1.5)
asks for the whole content too; the ETag is the sha256, as the content never changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ByteRange", "Unsatisfiable", "etag", "requested_range"]

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


@dataclass(frozen=True, slots=True)
class ByteRange:
    start: int
    end: int  # the last byte's position, inclusive, as in `Content-Range`

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def content_range(self, size: int) -> str:
        return f"bytes {self.start}-{self.end}/{size}"


class Unsatisfiable(Exception):
    """No byte of the content is in the range asked for: `416`."""


def etag(sha256: str) -> str:
    return f'"{sha256}"'


def requested_range(
    header: str | None, if_range: str | None, size: int, sha256: str
) -> ByteRange | None:
    """The one range asked for, within `size`; None for the whole content."""
    if header is None or (if_range is not None and if_range.strip() != etag(sha256)):
        return None
    found = _RANGE.fullmatch(header.replace(" ", "").lower())
    if found is None or found.group(1) == found.group(2) == "":
        return None
    first, last = found.groups()
    if first == "":  # the last `n` bytes (a suffix range)
        if int(last) == 0 or size == 0:
            raise Unsatisfiable
        return ByteRange(max(size - int(last), 0), size - 1)
    start = int(first)
    if last != "" and int(last) < start:
        return None  # not a valid range-spec: ignored (§14.1.1)
    if start >= size:
        raise Unsatisfiable
    return ByteRange(start, size - 1 if last == "" else min(int(last), size - 1))
