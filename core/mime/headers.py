"""Header sections read under the bounds: found with `bytes.find` (C speed), their
fields split a line at a time (RFC 5322 §2.2), MIME's Content-Type and
Content-Disposition read (RFC 2045 §5, RFC 2183).

The caller bounds what is scanned (core/mime/bounds.py); nothing here imports a MIME
library but the email package's header registry for what the plain forms miss.
"""

from __future__ import annotations

import re
from email.headerregistry import ContentDispositionHeader, ContentTypeHeader, HeaderRegistry

from core.mime.bounds import OverBound

__all__ = [
    "REGISTRY",
    "Field",
    "content_type",
    "disposition",
    "header_fields",
    "header_split",
    "split_header",
    "unfolded",
]

# The email package's default registry, the one pymap parses headers with.
REGISTRY = HeaderRegistry()


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


def header_split(data: bytes) -> tuple[int, int]:
    """(end of the header fields, start of the body) of a whole message, unbounded: the
    first empty line (RFC 5322 §2.1); a message without one is all header. For a
    message over the bounds, whose header is then read only in part."""
    if data.startswith(b"\r\n"):
        return 0, 2
    if data.startswith(b"\n"):
        return 0, 1
    crlf, lf = data.find(b"\n\r\n"), data.find(b"\n\n")
    if crlf != -1 and (lf == -1 or crlf < lf):
        return crlf + 1, crlf + 3
    if lf != -1:
        return lf + 1, lf + 2
    return len(data), len(data)


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


def unfolded(data: bytes, lines: list[tuple[int, int, int]]) -> str:
    """A field's value with its folding removed (RFC 5322 §2.2.3), name and colon cut."""
    raw = b"".join(data[start:end] for start, end, _ in lines)
    value = raw[raw.index(b":") + 1 :].strip()
    return value.decode("utf-8", "surrogateescape")


# type "/" subtype *(";" parameter) (RFC 2045 §5.1) in its plain form: no comment, no
# quoted pair, no RFC 2231 continuation or charset (those go to the email package).
_PLAIN_TYPE = re.compile(r"\s*([\w!#$%&'+.^`|~-]+)\s*/\s*([\w!#$%&'+.^`|~-]+)\s*(;.*)?", re.S)
_PLAIN_PARAM = re.compile(r'\s*;\s*([\w!#$%&\'+.^`|~-]+)\s*=\s*("[^"]*"|[^;\s"]+)\s*', re.S)


def content_type(value: str | None, default: str) -> tuple[str, str, dict[str, str]]:
    """(type, subtype, parameters) lowered as the email package gives them; a header
    it cannot read is `text/plain` (RFC 2045 §5.2). The plain form is read by two
    regular expressions, much cheaper than the email package's header registry."""
    if value is None:
        value = default
    plain = _PLAIN_TYPE.fullmatch(value)
    if plain is not None and not any(c in value for c in "()\\*"):
        rest, pos = plain.group(3) or "", 0
        params: dict[str, str] = {}
        while pos < len(rest):
            param = _PLAIN_PARAM.match(rest, pos)
            if param is None:
                break
            params.setdefault(param.group(1).lower(), param.group(2).strip('"'))
            pos = param.end()
        else:
            return plain.group(1).lower(), plain.group(2).lower(), params
    header = REGISTRY("content-type", value)
    assert isinstance(header, ContentTypeHeader)
    return header.maintype, header.subtype, {str(k): str(v) for k, v in header.params.items()}


def disposition(value: str | None) -> tuple[str | None, dict[str, str]]:
    if value is None:
        return None, {}
    header = REGISTRY("content-disposition", value)
    assert isinstance(header, ContentDispositionHeader)
    kind = header.content_disposition
    return kind, {str(k): str(v) for k, v in header.params.items()}
