"""Security headers on every response (added by `api/edge.py`, so SSE streams keep streaming).

The content security policy allows scripts, styles and everything else from the
gateway itself only (no inline script: the web UI and the API docs load theirs
from files); nothing may frame a page (clickjacking); no page is sniffed as
another type; a referrer only goes to our own origin. API responses carry
personal data, so no cache keeps them (`no-store`), unless a route set its
own `Cache-Control`; the docs' static assets may be cached.
"""

from __future__ import annotations

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
RAW_SECURITY_HEADERS: RawHeaders = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
RAW_NO_STORE: RawHeaders = [*RAW_SECURITY_HEADERS, (b"cache-control", b"no-store")]


def with_defaults(headers: RawHeaders, defaults: RawHeaders) -> RawHeaders:
    """`headers` plus each default whose name they lack (names compare case-insensitively,
    as `MutableHeaders.setdefault` does), in one pass over the response's headers."""
    present = {name.lower() for name, _ in headers}
    return [*headers, *(item for item in defaults if item[0] not in present)]
