"""A message's MIME structure, computed once under bounds, as plain data.

`mime_structure(data)` gives every part's section number, type and parameters,
disposition, language, location, id, description and encoding, byte offsets of its
header and body, the body's line count and, for the message and each
message/rfc822 part, the ENVELOPE fields as written. Sizes follow RFC 2046 §5.1.1:
the line break before a boundary delimiter belongs to the delimiter, not to the
part before it, unless it ended a close delimiter line of a part inside (Dovecot
reads it so). A line count is the number of line feeds in the body (Dovecot's).

Past a bound (core/mime/bounds.py) the walk stops early and the result is
`opaque`: the message is kept and served as it is, never walked again. The result
is JSON-able (`to_json`/`from_json`) so that it can be stored with the message; it
holds no MIME library's objects. The walk is pure CPU: run it off the event loop
for anything but a small message (`is_opaque` first tries a few counts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.mime.bounds import LIMITS, MimeLimits, OverBound, plainly_within
from core.mime.headers import content_type, disposition, header_fields, split_header, unfolded

__all__ = ["Envelope", "Part", "Structure", "is_opaque", "mime_structure", "over_bound"]

_ENVELOPE_FIELDS = (
    "date", "subject", "from", "sender", "reply-to", "to", "cc", "bcc", "in-reply-to",
    "message-id",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Envelope:
    """RFC 3501 §7.4.2 ENVELOPE's header fields, unfolded as written (None: absent)."""

    fields: dict[str, str]


@dataclass(frozen=True, slots=True)
class Part:
    section: str  # IMAP section number ("" for the message, "1.2", …; a carried message its part's)
    maintype: str
    subtype: str
    params: dict[str, str]
    header_start: int
    body_start: int
    body_end: int
    lines: int
    headers: dict[str, str]  # content-id, -description, -transfer-encoding, … as written
    disposition: str | None = None
    disposition_params: dict[str, str] = field(default_factory=dict)
    envelope: Envelope | None = None  # of the message inside a message/rfc822 part
    parts: list[Part] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Structure:
    size: int
    opaque: bool
    reason: str | None = None  # the bound an opaque message went over
    root: Part | None = None
    envelope: Envelope | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Structure:
        root = data.get("root")
        envelope = data.get("envelope")
        return cls(
            data["size"],
            data["opaque"],
            data.get("reason"),
            None if root is None else _part_from_json(root),
            None if envelope is None else Envelope(dict(envelope["fields"])),
        )


def _part_from_json(data: dict[str, Any]) -> Part:
    envelope = data.get("envelope")
    return Part(
        **{k: v for k, v in data.items() if k not in ("envelope", "parts")},
        envelope=None if envelope is None else Envelope(dict(envelope["fields"])),
        parts=[_part_from_json(part) for part in data["parts"]],
    )


def is_opaque(data: bytes, limits: MimeLimits = LIMITS) -> bool:
    """Whether `data` is over a bound: a few counts for most mail, else the bounded walk."""
    return over_bound(data, limits) is not None


def over_bound(data: bytes, limits: MimeLimits = LIMITS) -> str | None:
    """The bound `data` is over (a reason a person can read), or None when within all:
    what decides whether a message's parts are read at all, by IMAP and by the text
    an agent is given alike."""
    if plainly_within(data, limits):
        return None
    return _walked(data, limits, full=False).reason


def mime_structure(data: bytes, limits: MimeLimits = LIMITS) -> Structure:
    """The structure of the message `data` (see module doc), or an opaque result."""
    return _walked(data, limits, full=True)


def _walked(data: bytes, limits: MimeLimits, *, full: bool) -> Structure:
    """Without `full`, only what decides the bounds is read (types and boundaries)."""
    walk = _Walk(data, limits, full)
    try:
        walk.work(data.count(b"\n"))
        root, envelope = walk.part("", 0, len(data), 0, "text/plain")
    except OverBound as over:
        return Structure(len(data), True, str(over))
    except RecursionError:  # the depth bound keeps far below the limit; never a crash
        return Structure(len(data), True, "nested too deep")
    return Structure(len(data), False, None, root, envelope)


_TYPE_ONLY = frozenset((b"content-type",))
_KEPT = frozenset(
    (b"content-id", b"content-description", b"content-transfer-encoding",
     b"content-language", b"content-location", b"content-md5")
)  # fmt: skip


class _Walk:
    """One bounded walk over one message: counts what it reads, stops at a bound."""

    def __init__(self, data: bytes, limits: MimeLimits, full: bool) -> None:
        self.data, self.limits, self.full = data, limits, full
        self.parts = self.header_bytes = self.lines_read = 0

    def work(self, lines: int) -> None:
        self.lines_read += lines
        if self.lines_read > self.limits.max_work:
            raise OverBound(f"reading it takes more than {self.limits.max_work} lines")

    def part(
        self, section: str, start: int, end: int, depth: int, default_type: str
    ) -> tuple[Part, Envelope]:
        data, limits = self.data, self.limits
        self.parts += 1
        if self.parts > limits.max_parts:
            raise OverBound(f"more than {limits.max_parts} MIME parts")
        if depth > limits.max_depth:
            raise OverBound(f"MIME parts nested more than {limits.max_depth} deep")
        fields_end, body_start = split_header(data, start, end, limits.max_header_bytes)
        header_lines = data.count(b"\n", start, fields_end)
        if header_lines > limits.max_header_lines:
            raise OverBound(f"a header section has more than {limits.max_header_lines} lines")
        self.header_bytes += fields_end - start
        if self.header_bytes > limits.max_total_header_bytes:
            raise OverBound(f"headers longer than {limits.max_total_header_bytes} bytes")
        self.work(header_lines)
        values: dict[bytes, str] = {}
        wanted = None if self.full else _TYPE_ONLY
        for name, folded in header_fields(data, start, fields_end, wanted=wanted):
            if name not in values:
                values[name] = unfolded(data, folded)
        envelope = Envelope(
            {name: values[key] for name in _ENVELOPE_FIELDS if (key := name.encode()) in values}
        )
        maintype, subtype, params = content_type(values.get(b"content-type"), default_type)
        kind: str | None = None
        kind_params: dict[str, str] = {}
        if self.full:
            kind, kind_params = disposition(values.get(b"content-disposition"))
        headers = {name.decode(): values[name] for name in _KEPT if name in values}
        lines = data.count(b"\n", body_start, end)
        nested: list[Part] = []
        inner: Envelope | None = None
        boundary = params.get("boundary")
        if maintype == "multipart" and boundary:
            self.work(lines)
            inner_type = "message/rfc822" if subtype == "digest" else "text/plain"
            nested = self.multipart(section, body_start, end, depth, boundary, inner_type)
        elif maintype == "message" and subtype == "rfc822":
            # The carried message answers to its part's number (RFC 3501 §6.4.5: its
            # parts are numbered below it); a message that is itself message/rfc822
            # carries its message as part 1.
            child, inner = self.part(section or "1", body_start, end, depth + 1, "text/plain")
            nested = [child]
        part = Part(
            section, maintype, subtype, params, start, body_start, end, lines, headers,
            kind, kind_params, inner, nested,
        )  # fmt: skip
        return part, envelope

    def multipart(
        self, section: str, start: int, end: int, depth: int, boundary: str, inner_type: str
    ) -> list[Part]:
        """The parts between the delimiter lines `--boundary` (RFC 2046 §5.1.1): each
        starts after its delimiter line and ends before the line break that precedes
        the next one; the close delimiter `--boundary--` ends the last."""
        data = self.data
        delimiter = b"--" + boundary.encode("utf-8", "surrogateescape")
        at_line_start = b"\n" + delimiter  # found only where a line starts: C-speed
        parts: list[Part] = []
        begun: int | None = None  # where the current part began
        pos = start
        found = start if data.startswith(delimiter, start, end) else -1
        while True:
            if found == -1:
                found = data.find(at_line_start, max(pos - 1, start), end)
                if found == -1:
                    break
                found += 1
            pos = found + len(delimiter)
            self.work(1)
            closing = data.startswith(b"--", pos, end)
            newline = data.find(b"\n", pos, end)
            after = end if newline == -1 else newline + 1
            if begun is not None:
                stop = found
                if stop > begun and data[stop - 1] == 0x0A:
                    stop -= 2 if stop - 1 > begun and data[stop - 2] == 0x0D else 1
                number = f"{section}.{len(parts) + 1}" if section else str(len(parts) + 1)
                child = self.part(number, begun, stop, depth + 1, inner_type)[0]
                if stop < found and _closed(data, child):
                    child = _extended(data, child, found)
                parts.append(child)
            if closing:
                begun = None
                break
            begun, pos, found = after, after, -1
        if begun is not None:  # no close delimiter: the last part runs to the end
            number = f"{section}.{len(parts) + 1}" if section else str(len(parts) + 1)
            parts.append(self.part(number, begun, end, depth + 1, inner_type)[0])
        return parts


def _closed(data: bytes, part: Part) -> bool:
    """Whether the part's last line is a close delimiter of its own (or, for a
    message/rfc822 part, of the message it carries)."""
    if part.maintype == "message" and part.subtype == "rfc822" and part.parts:
        return _closed(data, part.parts[0])
    boundary = part.params.get("boundary")
    if part.maintype != "multipart" or not boundary or not part.parts:
        return False
    line = data.rfind(b"\n", part.body_start, part.body_end) + 1 or part.body_start
    close = b"--" + boundary.encode("utf-8", "surrogateescape") + b"--"
    return data.startswith(close, max(line, part.body_start), part.body_end)


def _extended(data: bytes, part: Part, end: int) -> Part:
    """The part, ending at `end`: a close delimiter line keeps its own line break, and
    the next delimiter then has none before it (Dovecot reads it so: the line break
    went with the line it ended)."""
    nested = part.parts
    if part.maintype == "message" and part.subtype == "rfc822" and nested:
        nested = [_extended(data, nested[0], end)]
    return replace(part, body_end=end, lines=data.count(b"\n", part.body_start, end), parts=nested)
