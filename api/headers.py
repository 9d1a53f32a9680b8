"""Security headers on every response, as pure ASGI so SSE streams keep streaming.

The content security policy allows scripts, styles and everything else from the
gateway itself only (no inline script: the web UI and the API docs load theirs
from files); nothing may frame a page (clickjacking); no page is sniffed as
another type; a referrer only goes to our own origin. API responses carry
personal data, so no cache keeps them (`no-store`), unless a route set its
own `Cache-Control`; the docs' static assets may be cached.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI sets a few inline styles (swagger-api/swagger-ui#10655): its page
# alone allows them. Inline script stays refused there too.
DOCS_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}


RawHeaders = list[tuple[bytes, bytes]]
_RAW_SECURITY_HEADERS: RawHeaders = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
_NO_STORE: RawHeaders = [(b"cache-control", b"no-store")]


def _with_defaults(headers: RawHeaders, defaults: RawHeaders) -> RawHeaders:
    """`headers` plus each default whose name they lack (names compare case-insensitively,
    as `MutableHeaders.setdefault` does), in one pass over the response's headers."""
    present = {name.lower() for name, _ in headers}
    return [*headers, *(item for item in defaults if item[0] not in present)]


class SecurityHeaders:
    def __init__(self, app: ASGIApp, *, cacheable_prefix: str) -> None:
        self.app = app
        self.cacheable_prefix = cacheable_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cacheable = scope.get("path", "").startswith(self.cacheable_prefix)
        defaults = _RAW_SECURITY_HEADERS if cacheable else _RAW_SECURITY_HEADERS + _NO_STORE

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _with_defaults(list(message.get("headers", ())), defaults)
            await send(message)

        await self.app(scope, receive, send_with_headers)
