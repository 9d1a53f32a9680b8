"""Compressed answers: gzip for the API's JSON, and the build's precompressed files.

The first inbox page is 20 to 200 KB of JSON that gzip brings to a tenth; on a phone
that is the difference a person sees. What is compressed (RFC 9110 §8.4):

- a JSON answer to a GET under `/api/`, of at least `MIN_BYTES`, sent whole (one
  body message: FastAPI's JSON responses), to a client that accepts gzip;
- never a streamed answer (SSE, attachment downloads: they are not JSON or not whole),
  an answer that sets a cookie, nor an answer to another method. Secrets are only
  ever answered to POST (an issued key, a login, a webhook's signing secret), so no
  compressed answer mixes a secret with text an attacker chose (BREACH).

The web UI's files are compressed once at build (`web/scripts/precompress.mjs`:
brotli and gzip beside each file); `precompressed` picks the variant a client
accepts, as nginx's `gzip_static` does.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Iterable

from starlette.types import Message, Scope, Send

MIN_BYTES = 1024  # below this the gzip header and the CPU cost more than they save
LEVEL = 5  # ~90% of level 9's saving on JSON for about a third of its CPU
IN_THREAD_BYTES = 256 * 1024  # larger answers are compressed off the event loop
_JSON = b"application/json"


def accepted_codings(scope: Scope) -> frozenset[str]:
    """The content codings the request's `Accept-Encoding` allows (RFC 9110 §12.5.3):
    listed without `q=0`."""
    codings: set[str] = set()
    for name, value in scope["headers"]:
        if name != b"accept-encoding":
            continue
        for item in value.decode("latin-1").split(","):
            coding, _, params = item.partition(";")
            quality = params.strip().lower().removeprefix("q=").strip() if params else "1"
            try:
                allowed = float(quality) > 0
            except ValueError:
                allowed = False
            if coding.strip() and allowed:
                codings.add(coding.strip().lower())
    return frozenset(codings)


def precompressed(accepted: frozenset[str]) -> Iterable[tuple[str, str]]:
    """(coding, file suffix) of the build's variants this client accepts, best first."""
    if "br" in accepted:
        yield "br", ".br"
    if "gzip" in accepted or "x-gzip" in accepted:
        yield "gzip", ".gz"


def compresses(scope: Scope) -> bool:
    """Whether this request's answer may be compressed, if it turns out to be JSON."""
    return (
        scope["method"] == "GET"
        and scope["path"].startswith("/api/")
        and "gzip" in accepted_codings(scope)
    )


def _whole_json(start: Message) -> bool:
    length, json = 0, False
    for name, value in start.get("headers", ()):
        lowered = name.lower()
        if lowered == b"content-type":
            json = value.startswith(_JSON)
        elif lowered in (b"content-encoding", b"set-cookie"):
            return False
        elif lowered == b"content-length" and value.isdigit():
            length = int(value)
    return json and length >= MIN_BYTES


def _compress(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=LEVEL, mtime=0)


def gzipping(send: Send) -> Send:
    """`send`, with a whole JSON answer of `MIN_BYTES` or more gzipped on the way."""
    held: Message | None = None

    async def send_gzipped(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start":
            if _whole_json(message):
                held = message  # sent with the body, whose length it must then give
                return
            await send(message)
            return
        if held is None or message["type"] != "http.response.body":
            await send(message)
            return
        start, held = held, None
        body: bytes = message.get("body", b"")
        if message.get("more_body", False) or len(body) < MIN_BYTES:
            await send(start)
            await send(message)
            return
        if len(body) > IN_THREAD_BYTES:
            compressed = await asyncio.to_thread(_compress, body)
        else:
            compressed = _compress(body)
        headers = [item for item in start["headers"] if item[0].lower() != b"content-length"]
        headers += [
            (b"content-encoding", b"gzip"),
            (b"content-length", str(len(compressed)).encode()),
            (b"vary", b"accept-encoding"),
        ]
        await send({**start, "headers": headers})
        await send({**message, "body": compressed})

    return send_gzipped
