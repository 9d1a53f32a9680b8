"""Cross-site request forgery: a login cookie only counts on requests from our own origin.

A browser attaches the session cookie to any request to the gateway, whichever
page made it; a bearer key it never attaches by itself. So every unsafe request
(POST, PUT, PATCH, DELETE) that authenticates with the cookie must say where it
comes from: an `Origin` header equal to the gateway's own origin (RFC 6454 §7.3;
browsers send it on every non-GET request), or, without `Origin`,
`Sec-Fetch-Site: same-origin` (Fetch Metadata). Otherwise `403 csrf_origin`.
The cookie is also `SameSite=Strict`, which modern browsers honour; this check
does not rely on it.

The login itself carries no cookie, but a forged login (into the attacker's
account) is refused the same way whenever the browser says where it comes from;
a client that is no browser (no `Origin`, no `Sec-Fetch-Site`) may log in.

The gateway's own origin is the `public_origin` setting when set, else the
request's scheme and `Host` (scheme from TLS, or from a trusted proxy's
`X-Forwarded-Proto`, which uvicorn applied before this runs).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import cookie_parser
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from api.deps import SESSION_COOKIE

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalized_origin(origin: str) -> str | None:
    """`scheme://host[:port]` in lower case without a default port; None if not an origin."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or port == _DEFAULT_PORTS[parts.scheme]:
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


def own_origin(scope: Scope, host: str, public_origin: str) -> str | None:
    if public_origin:
        return normalized_origin(public_origin)
    return normalized_origin(f"{scope.get('scheme', 'http')}://{host}") if host else None


def _bearer(authorization: str) -> bool:
    scheme, _, token = authorization.partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


def cross_site(
    scope: Scope, headers: dict[bytes, str], public_origin: str, login_path: str
) -> bool:
    """True when this unsafe request must be refused (`403 csrf_origin`). `headers`: the
    first value of each header the check reads (authorization, cookie, origin,
    sec-fetch-site, host), as `Headers.get` gives it."""
    if _bearer(headers.get(b"authorization", "")):
        return False  # the cookie is ignored when a key is given (api/deps.py)
    with_cookie = SESSION_COOKIE in cookie_parser(headers.get(b"cookie", ""))
    if not (with_cookie or scope.get("path") == login_path):
        return False
    origin = headers.get(b"origin")
    if origin is not None:
        expected = own_origin(scope, headers.get(b"host", ""), public_origin)
        return expected is None or normalized_origin(origin) != expected
    fetch_site = headers.get(b"sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.strip().lower() != "same-origin"
    # Neither header: no browser sent this. Fine for a login, not with a cookie.
    return with_cookie


async def refuse_cross_site(scope: Scope, receive: Receive, send: Send) -> None:
    message = (
        "a request authenticated by the login cookie must come from the gateway's own "
        "origin (Origin header); other clients use 'Authorization: Bearer <key>'"
    )
    response = JSONResponse({"error": {"code": "csrf_origin", "message": message}}, status_code=403)
    await response(scope, receive, send)
