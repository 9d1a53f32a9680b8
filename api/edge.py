"""The one ASGI layer in front of the app: every request passes it once.

In the order they apply (each was its own middleware; four layers cost an `await`
each per request and per message sent, SSE events included):

1. the cross-site check of a cookie-authenticated unsafe request (`api/csrf.py`);
2. the request guard: the URL, the body's size and text (`api/limits.py`);
3. the send metrics: a 2xx on a send route is a mail accepted (`api/metrics.py`);
4. the security headers, added to every response this layer or the app starts
   (`api/headers.py`), refusals of steps 1 and 2 included;
5. gzip for a whole JSON answer to a GET (`api/compression.py`).

Pure ASGI: it wraps `send` to add headers and never buffers a response, so SSE
streams keep streaming. Errors the app does not handle are answered by Starlette's
`ServerErrorMiddleware`, outside this layer, with their own headers (api/errors.py).
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.compression import compresses, gzipping
from api.csrf import UNSAFE_METHODS, cross_site, refuse_cross_site
from api.headers import RAW_NO_STORE, RAW_SECURITY_HEADERS, with_defaults
from api.limits import BODYLESS, guarded_body
from api.metrics import SEND_ROUTES
from core import metrics

# The request headers the checks read: their first value (as `Headers.get`).
_READ = frozenset({b"authorization", b"cookie", b"origin", b"sec-fetch-site", b"host"})


class Edge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        public_origin: str,
        login_path: str,
        max_body_bytes: int,
        streamed: dict[str, int],
        cacheable_prefix: str,
    ) -> None:
        """`streamed`: upload paths and their own (larger) limit, bodies not buffered;
        `cacheable_prefix`: paths whose responses may be cached (the docs' assets)."""
        self.app = app
        self.public_origin = public_origin
        self.login_path = login_path
        self.limit = max_body_bytes
        self.streamed = streamed
        self.cacheable_prefix = cacheable_prefix
        # The labelled children, looked up once (`labels()` takes a lock and builds a
        # key on every call). Starlette builds its middleware at the first request, so
        # under `serve --workers` this runs in the worker that counts.
        self.accepted = metrics.MAILS_ACCEPTED.labels("rest")
        self.commit_seconds = metrics.SEND_COMMIT_SECONDS.labels("rest")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        defaults = RAW_SECURITY_HEADERS if path.startswith(self.cacheable_prefix) else RAW_NO_STORE

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_defaults(list(message.get("headers", ())), defaults)
            await send(message)

        method: str = scope["method"]
        headers: dict[bytes, str] = {}
        declared = b""
        if method not in BODYLESS:
            for name, value in scope["headers"]:
                if name == b"content-length":
                    declared = value  # the last one, as the guard always took it
                elif name in _READ and name not in headers:
                    headers[name] = value.decode("latin-1")
        if method in UNSAFE_METHODS and cross_site(
            scope, headers, self.public_origin, self.login_path
        ):
            await refuse_cross_site(scope, receive, send_with_headers)
            return
        body = await guarded_body(
            scope, receive, send_with_headers, declared, self.limit, self.streamed
        )
        if body is None:
            return
        if method != "POST" or not SEND_ROUTES.match(path):
            sending = gzipping(send_with_headers) if compresses(scope) else send_with_headers
            await self.app(scope, body, sending)
            return
        started = time.perf_counter()

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                if 200 <= message["status"] < 300:
                    self.accepted.inc()
                    self.commit_seconds.observe(time.perf_counter() - started)
                message["headers"] = with_defaults(list(message.get("headers", ())), defaults)
            await send(message)

        await self.app(scope, body, send_counted)
