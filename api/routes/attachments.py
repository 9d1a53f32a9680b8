"""Attachments: upload (`POST …/attachments`) and download (`GET …/attachments/{id}`),
for agents under `/attachments` and humans under `/me/attachments`.

No `from __future__ import annotations` here: the routes are built by a factory
whose caller dependency is a local variable, which FastAPI must see evaluated.
"""

import unicodedata
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from api.byte_ranges import Unsatisfiable, etag, requested_range
from api.deps import Agent, BlobsDep, Human, SettingsDep, StoreDep
from api.errors import error_response
from api.uploads import OPENAPI_BODY, receive_upload
from core.errors import NotFound
from core.mail import attachments
from core.views import AttachmentView

# RFC 5987 attr-char: what may stay unescaped in `filename*=UTF-8''…`.
_ATTR_CHARS = "!#$&+-.^_`|~"
_FALLBACK_SAFE = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$&'()+,-.;=@[]^_`{}~"
)


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name per RFC 6266 / RFC 5987.

    The fallback keeps only harmless printable ASCII, so no quote, backslash or
    line break can end the header or the parameter; clients that know
    `filename*` (all current browsers) use the percent-encoded UTF-8 name.
    """
    ascii_name = unicodedata.normalize("NFKD", filename).encode("ascii", "ignore").decode()
    fallback = "".join(c if c in _FALLBACK_SAFE else "_" for c in ascii_name).strip() or "download"
    exact = quote(filename, safe=_ATTR_CHARS)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{exact}"


def attachment_router(prefix: str, Caller: Any, tag: str) -> APIRouter:
    router = APIRouter(prefix=prefix, tags=[tag])

    @router.post("", openapi_extra=OPENAPI_BODY)
    async def upload(
        request: Request, caller: Caller, store: StoreDep, settings: SettingsDep, blobs: BlobsDep
    ) -> AttachmentView:
        """Upload one file (multipart field `file`); send it with `attachment_ids`."""
        async with blobs.writer(settings.max_attachment_bytes) as writer:
            part = await receive_upload(request, writer)
            return await attachments.register_upload(
                store, writer, caller, part.filename, part.content_type
            )

    @router.get(
        "/{attachment_id}",
        response_class=StreamingResponse,
        responses={
            200: {"content": {"application/octet-stream": {}}},
            206: {"description": "The one byte range asked for (`Range: bytes=a-b`)"},
        },
    )
    async def download(
        attachment_id: str, request: Request, caller: Caller, store: StoreDep, blobs: BlobsDep
    ) -> Response:
        """The bytes, always as `application/octet-stream` attachment (never rendered
        inline); one byte range of them for `Range: bytes=a-b` (`206`)."""
        found = await attachments.downloadable(store, caller, attachment_id)
        headers = {
            "Accept-Ranges": "bytes",
            "ETag": etag(found.sha256),
            "Content-Disposition": content_disposition(found.filename),
            "X-Content-Type-Options": "nosniff",
        }
        try:
            asked = requested_range(
                request.headers.get("range"), request.headers.get("if-range"), found.size,
                found.sha256,
            )  # fmt: skip
        except Unsatisfiable:
            headers = {"Accept-Ranges": "bytes", "Content-Range": f"bytes */{found.size}"}
            message = f"the attachment has {found.size} bytes: none is in the range asked for"
            return error_response(416, "range_not_satisfiable", message, headers)
        if asked is None:
            reader = await blobs.open(found.sha256)
        else:
            reader = await blobs.open(found.sha256, asked.start, asked.length)
        if reader is None:
            raise NotFound(f"the content of attachment {attachment_id} is missing")
        headers["Content-Length"] = str(reader.size if asked is None else asked.length)
        if asked is not None:
            headers["Content-Range"] = asked.content_range(reader.size)
        # Streamed a chunk at a time from the blob store: no whole file in memory.
        return StreamingResponse(
            reader.chunks(),
            status_code=200 if asked is None else 206,
            media_type="application/octet-stream",
            headers=headers,
        )

    return router


agent_router = attachment_router("/attachments", Agent, "agent attachments")
human_router = attachment_router("/me/attachments", Human, "my attachments")
routers = (agent_router, human_router)
