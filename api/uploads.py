"""Reading a multipart upload as it streams in: the `file` part goes straight to a
`BlobWriter` (a temporary file, hashed on the way), so no upload is ever whole in
memory. The request guard leaves these bodies unbuffered (`api/limits.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.exceptions import HTTPException

from core.errors import FieldProblem, InvalidRequest, PayloadTooLarge
from core.store.blobs import BlobWriter

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

FIELD = "file"
# Boundaries, part headers and small extra fields on top of the file itself.
MULTIPART_OVERHEAD = 64 * 1024
# Browsers (WHATWG HTML, "multipart/form-data encoding") and httpx escape these
# three in a part's filename; everything else arrives as UTF-8.
_FORM_ESCAPES = (("%22", '"'), ("%0A", "\n"), ("%0D", "\r"))
OPENAPI_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [FIELD],
                    "properties": {FIELD: {"type": "string", "format": "binary"}},
                }
            }
        },
    }
}


@dataclass(slots=True)
class UploadedPart:
    filename: str = ""
    content_type: str = ""


def _filename(raw: bytes) -> str:
    name = raw.decode("utf-8", errors="replace")
    for escaped, char in _FORM_ESCAPES:
        name = name.replace(escaped, char).replace(escaped.lower(), char)
    return name


@dataclass(slots=True)
class _Parts:
    """Parser callbacks: remembers the `file` part's headers and gathers its data."""

    found: UploadedPart | None = None
    data: list[bytes] = field(default_factory=list)
    complete: bool = False
    _in_file: bool = False
    _headers: dict[bytes, bytes] = field(default_factory=dict)
    _name: bytes = b""
    _value: bytes = b""

    def on_part_begin(self) -> None:
        self._headers = {}
        self._in_file = False

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[self._name.lower()] = self._value
        self._name = self._value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if options.get(b"name") != FIELD.encode():
            return
        if self.found is not None:
            raise InvalidRequest(f"{FIELD}: one file per upload")
        content_type, _ = parse_options_header(self._headers.get(b"content-type", b""))
        self.found = UploadedPart(
            filename=_filename(options.get(b"filename", b"")),
            content_type=content_type.decode("latin-1"),
        )
        self._in_file = True

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_file:
            self.data.append(data[start:end])

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_end": self.on_end,
        }

    def on_end(self) -> None:
        self.complete = True


async def _drain(chunks: AsyncIterator[bytes], budget: int) -> None:
    async for chunk in chunks:
        budget -= len(chunk)
        if budget <= 0:
            return


async def receive_upload(request: Request, writer: BlobWriter) -> UploadedPart:
    """Stream the body's `file` part into `writer`; 413 as soon as it is over the limit."""
    content_type, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise HTTPException(415, f"an upload is multipart/form-data with one file field '{FIELD}'")
    parts = _Parts()
    parser = MultipartParser(boundary, parts.callbacks())
    body_limit = writer.limit + MULTIPART_OVERHEAD
    received = 0
    chunks = request.stream().__aiter__()
    try:
        async for chunk in chunks:
            received += len(chunk)
            if received > body_limit:
                raise PayloadTooLarge(
                    f"an attachment is at most {writer.limit} bytes",
                    FieldProblem(FIELD, "too_long", writer.limit),
                )
            parser.write(chunk)
            for data in parts.data:
                await writer.write(data)
            parts.data.clear()
        parser.finalize()
    except PayloadTooLarge:
        # Most clients cannot read an answer while they are still sending: read
        # (and drop) a moderate rest first, as the request guard does.
        await _drain(chunks, 4 * writer.limit + 65536)
        raise
    except FormParserError as error:
        raise HTTPException(400, f"the multipart body cannot be read: {error}") from error
    if not parts.complete:
        raise HTTPException(400, "the multipart body ends before its closing boundary")
    if parts.found is None:
        raise InvalidRequest(f"{FIELD}: a multipart file field '{FIELD}' is required")
    return parts.found
