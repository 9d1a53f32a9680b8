"""The request guard: what every request body must satisfy before any route sees it
(run by `api/edge.py`).

* Size: a body over the limit is refused with 413 while it streams in (by
  Content-Length, or by counting a chunked body), before the app reads it.
* Text: JSON strings must be storable text. U+0000 (PostgreSQL's text type
  refuses it) and unpaired surrogates (`"\\ud800"` is valid JSON but no UTF-8)
  are refused with 422, as is a NUL in the URL, instead of failing deep inside.

The body is read once here and replayed to the app. Uploads are the exception:
their paths (`streamed`) have their own larger limit, checked here by
Content-Length only; the body streams to the route unbuffered, which counts it
as it goes (`api/uploads.py`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from api.uploads import FIELD as UPLOAD_FIELD
from api.uploads import MULTIPART_OVERHEAD

_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")
BODYLESS = {"GET", "HEAD", "OPTIONS"}


def _error(code: str, message: str, fields: list[dict[str, Any]] | None = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if fields:
        error["fields"] = fields
    return json.dumps({"error": error}).encode()


def _first_bad_text(value: Any, where: str = "body") -> str | None:
    """The location of the first string (or key) that is not storable text."""
    if isinstance(value, str):
        return where if _BAD_TEXT.search(value) else None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_bad_text(item, f"{where}[{index}]")
            if found:
                return found
    elif isinstance(value, dict):
        for key, item in value.items():
            if _BAD_TEXT.search(key):
                return f"{where} (a key)"
            found = _first_bad_text(item, f"{where}.{key}" if where != "body" else key)
            if found:
                return found
    return None


async def guarded_body(
    scope: Scope,
    receive: Receive,
    send: Send,
    declared: bytes,
    limit: int,
    streamed: dict[str, int],
) -> Receive | None:
    """The `receive` to run the app with, or None when this guard answered (or the client
    went away). `declared`: the request's Content-Length (its last one), or b""."""
    if "\x00" in scope["path"] or b"%00" in scope.get("query_string", b""):
        await _respond(send, 400, _error("bad_request", "the URL contains a NUL character"))
        return None
    method = scope["method"]
    if method in BODYLESS:
        return receive
    upload_limit = streamed.get(scope["path"])
    if upload_limit is not None and method == "POST":
        if declared.isdigit() and int(declared) > upload_limit:
            # Uploads are large: let the client finish sending so it sees the 413.
            await _drain(receive, {"more_body": True}, 4 * upload_limit + 65536)
            await _upload_too_large(send, upload_limit - MULTIPART_OVERHEAD)
            return None
        return receive
    if declared.isdigit() and int(declared) > limit:
        await _too_large(send, limit)
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None  # the client went away
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            # Read (and drop) a moderate rest first: most clients cannot take an
            # answer while they are still sending, and would see a reset instead.
            await _drain(receive, message, 4 * limit + 65536)
            await _too_large(send, limit)
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    problem = _text_problem(body)
    if problem:
        await _respond(send, 422, _error("invalid_request", problem))
        return None
    return _replay(body, receive)


async def _too_large(send: Send, limit: int) -> None:
    message = f"request body over {limit} bytes"
    await _respond(send, 413, _error("payload_too_large", message), close=True)


async def _upload_too_large(send: Send, limit: int) -> None:
    """As the upload route says it once the file passes its limit (api/uploads.py)."""
    message = f"an attachment is at most {limit} bytes"
    fields = [{"field": UPLOAD_FIELD, "code": "too_long", "limit": limit}]
    await _respond(send, 413, _error("payload_too_large", message, fields), close=True)


def _text_problem(body: bytes) -> str | None:
    if b"\\u" not in body:
        # JSON can only carry a NUL or a surrogate as a `\\u` escape: a raw NUL (a
        # control character) or a surrogate's bytes (no UTF-8) fail to parse at all,
        # and the route's own parsing refuses them. Most bodies have no escape.
        return None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None  # not JSON: the route's own parsing answers (400 malformed_json)
    try:
        where = _first_bad_text(document)
    except RecursionError:
        return "the JSON document is nested too deeply"
    if where is None:
        return None
    return f"{where}: text must not contain NUL characters or unpaired surrogates"


async def _drain(receive: Receive, message: Message, budget: int) -> None:
    while message.get("more_body", False) and budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _respond(send: Send, status: int, body: bytes, *, close: bool = False) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
