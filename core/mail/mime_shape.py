"""How deep a message's MIME tree nests and how many parts it has, in one linear pass.

The standard library's parser (and every walk over what it builds) recurses once per
level of `multipart/*` and `message/*` nesting (RFC 2046 §5.1, §5.2), and its cost
grows with the number of parts: a message nested a thousand levels deep ends in a
`RecursionError`, and one of 60,000 tiny parts costs seconds. The parser also keeps
every line as an object while it reads, so a message of many short lines takes many
times its size in memory. `mime_shape` counts lines, then scans the bytes without
recursion and stops as soon as a bound is passed, so a caller knows before parsing
whether the tree is one it may walk. Over a bound, the message is still stored as
it came: only the text read from it is not taken from its parts.

The scan follows the parser's own rules, so it never counts less than the parser
builds: a header block ends at a blank line or at the first line that is not a
header field; a delimiter line is `--boundary` of any enclosing multipart, with
optional `--` and trailing white space (RFC 2046 §5.1.1); every `message/*` part but
`message/delivery-status` holds a message; in a `multipart/digest`, a part without a
`Content-Type` is `message/rfc822` (RFC 2046 §5.1.5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message

__all__ = ["MAX_DEPTH", "MAX_LINES", "MAX_PARTS", "MimeShape", "mime_shape"]

# Nesting deeper than this is not a real client's message (a forward of a forward of
# a reply with an attachment is 5 or 6 levels).
MAX_DEPTH = 30
# Parts of one message: a mailing list's digest has a few hundred at most.
MAX_PARTS = 1000
# Lines of one message: the parser keeps each as an object (~50 bytes) while it reads,
# so 24 MB of 3-byte lines (quoted-printable soft breaks) would take 400 MB. A 24 MB
# base64 attachment has 330,000 lines.
MAX_LINES = 1_000_000
# A Content-Type field longer than this is not a real one; its parameters are not read.
MAX_CONTENT_TYPE = 8 * 1024

_FIELD = re.compile(rb"[\x21-\x39\x3b-\x7e]*:")  # a field name and its colon (RFC 5322 §3.6.8)
_BLANK_LINE = re.compile(rb"\n\r?\n")  # the end of a header block (after its last field)
# A line of a header block that is neither a field, a continuation nor the blank end.
_OTHER_LINE = re.compile(rb"^(?![\x21-\x39\x3b-\x7e]*:|[ \t]|\r?$)", re.M)
_SIMPLE_BOUNDARY = re.compile(
    rb';\s*boundary\s*=\s*(?:"([^"\\\r\n]*)"|([^\s;"\\]+))\s*(?:;|$)', re.I
)
_CONTENT_TYPE = re.compile(rb"^content-type:(.*(?:\n[ \t].*)*)", re.M | re.I)


@dataclass(frozen=True, slots=True)
class MimeShape:
    depth: int  # containers around the deepest part seen (0: a single part)
    parts: int  # entities seen, the message itself included
    over: str | None  # why the message is over a bound, else None


@dataclass(slots=True)
class _Container:
    boundary: bytes | None  # a multipart's boundary; None for a message/* part
    digest: bool = False


def mime_shape(raw: bytes, max_depth: int = MAX_DEPTH, max_parts: int = MAX_PARTS) -> MimeShape:
    """The shape of `raw`'s MIME tree, the scan stopped at the first bound passed."""
    if raw.count(b"\n") > MAX_LINES:
        return MimeShape(0, 1, f"it has over {MAX_LINES:,} lines")
    stack: list[_Container] = []
    parts, deepest, pos = 1, 0, 0
    in_headers = True
    while True:
        if in_headers:
            digest = bool(stack) and stack[-1].digest and stack[-1].boundary is not None
            content_type, pos = _content_type(raw, pos)
            maintype, boundary, over = _kind(content_type, digest)
            if over is not None:
                return MimeShape(deepest, parts, over)
            if maintype == "message":
                stack.append(_Container(None))
                parts += 1
            elif maintype == "multipart" and boundary is not None:
                digest = content_type.lower().startswith(b"multipart/digest")
                stack.append(_Container(boundary, digest))
            deepest = max(deepest, len(stack))
            if deepest > max_depth:
                return MimeShape(deepest, parts, f"its MIME parts nest over {max_depth} deep")
            if parts > max_parts:
                return MimeShape(deepest, parts, f"it has over {max_parts} MIME parts")
            in_headers = maintype == "message"
            continue
        found = _next_delimiter(raw, pos, stack)
        if found is None:
            return MimeShape(deepest, parts, None)
        index, closing, pos = found
        del stack[index + 1 :]
        if closing:
            del stack[index]
        else:
            parts += 1
            in_headers = True


def _content_type(raw: bytes, pos: int) -> tuple[bytes, int]:
    """The `Content-Type` value of the header block at `pos` (b"" when none),
    and where the body after the block starts.

    Most blocks are header fields up to a blank line: then one search finds the
    field. A block with any other line (where the parser ends the header fields,
    and which may be a delimiter) is read a line at a time."""
    blank = _BLANK_LINE.search(raw, pos)
    end = blank.end() if blank is not None else len(raw)
    block = raw[pos:end]
    plain = block[:1] not in (b"\r", b"\n") and not block.startswith(b"From ")
    if plain and _OTHER_LINE.search(block) is None:
        found = _CONTENT_TYPE.search(block)
        return (_joined(found.group(1).split(b"\n")) if found else b""), end
    return _fields(raw, pos)


def _fields(raw: bytes, pos: int) -> tuple[bytes, int]:
    """`_content_type`, a line at a time."""
    value: list[bytes] | None = None
    current = False
    size = 0
    end = len(raw)
    while pos < end:
        stop = raw.find(b"\n", pos)
        stop = end if stop < 0 else stop + 1
        line = raw[pos:stop].rstrip(b"\r\n")
        if not line:
            return _joined(value), stop
        if line[:1] in (b" ", b"\t"):
            if current and value is not None and size <= MAX_CONTENT_TYPE:
                value.append(line)
                size += len(line)
        elif _FIELD.match(line) or (pos == 0 and line.startswith(b"From ")):
            # The first Content-Type field counts, as `Message.get` reads it.
            current = value is None and line[:13].lower() == b"content-type:"
            if current:
                value = [line[13:]]
                size = len(line)
        else:
            return _joined(value), pos  # not a header field: the body starts here
        pos = stop
    return _joined(value), end


def _joined(value: list[bytes] | None) -> bytes:
    return b" ".join(v.strip() for v in value) if value else b""


def _kind(content_type: bytes, digest: bool) -> tuple[str, bytes | None, str | None]:
    """(main type, multipart boundary, why over a bound) of a Content-Type value."""
    if len(content_type) > MAX_CONTENT_TYPE:
        return "", None, f"a Content-Type field is over {MAX_CONTENT_TYPE} characters"
    if not content_type:
        return ("message" if digest else "text"), None, None
    full = content_type.split(b";", 1)[0].strip().lower()
    if full == b"message/delivery-status":
        return "text", None, None
    maintype = full.split(b"/", 1)[0].decode("ascii", "replace")
    if maintype != "multipart":
        return maintype, None, None
    simple = _SIMPLE_BOUNDARY.search(content_type)
    if simple is not None and content_type.lower().count(b"boundary") == 1:
        # One plain `boundary=` (no RFC 2231 form, no other parameter naming it).
        return maintype, (simple.group(1) or simple.group(2) or b"").rstrip(), None
    # The parameter as the standard library reads it (quotes, RFC 2231 continuations).
    probe = Message()
    probe["Content-Type"] = content_type.decode("latin-1")
    try:
        boundary = probe.get_boundary()
    except (LookupError, TypeError, ValueError, IndexError):
        boundary = None
    # An empty boundary is one: the parser then splits at every `--` line.
    return maintype, None if boundary is None else boundary.encode("latin-1", "replace"), None


def _next_delimiter(raw: bytes, pos: int, stack: list[_Container]) -> tuple[int, bool, int] | None:
    """The next delimiter line at or after `pos` of any enclosing multipart, innermost
    first: (its container's index, whether it closes the multipart, the next line)."""
    if not any(c.boundary is not None for c in stack):
        return None
    at = pos
    while True:
        at = raw.find(b"--", at)
        if at < 0:
            return None
        if at != pos and raw[at - 1] not in b"\r\n":
            at += 2
            continue
        stop = raw.find(b"\n", at)
        stop = len(raw) if stop < 0 else stop + 1
        line = raw[at + 2 : stop].rstrip(b"\r\n")
        for index in range(len(stack) - 1, -1, -1):
            boundary = stack[index].boundary
            if boundary is None or not line.startswith(boundary):
                continue
            rest = line[len(boundary) :]
            closing = rest.startswith(b"--")
            if not (rest[2:] if closing else rest).strip(b" \t"):
                return index, closing, stop
        at = stop
