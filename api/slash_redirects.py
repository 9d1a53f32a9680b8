"""A path one slash away from a route is redirected there, by path only.

Starlette answers `GET /api/v1/sessions/` with a redirect to the absolute URL it
builds from the request's `Host` header: whoever sends `Host: evil.example` gets a
link to evil.example in the gateway's name (a cache or a proxy in front may keep
it for others). The gateway has no list of its host names to check that header
against, and needs none: the redirect here carries the path alone (RFC 9110
§10.2.2 allows a relative `Location`, resolved against the URL requested), so
clients that add or drop a trailing slash still land on the route, on the host
they asked.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.responses import RedirectResponse
from starlette.routing import Match
from starlette.types import Receive, Scope, Send


def install_relative_slash_redirects(app: FastAPI) -> None:
    """Replace the router's redirect (absolute, from `Host`) with a relative one.

    It runs where the router's own did: after no route matched, before the 404."""
    router = app.router
    router.redirect_slashes = False
    not_found = router.default

    async def redirect_or_not_found(scope: Scope, receive: Receive, send: Send) -> None:
        location = _toggled_route_path(scope, app) if scope["type"] == "http" else None
        if location is None:
            await not_found(scope, receive, send)
            return
        await RedirectResponse(location)(scope, receive, send)

    router.default = redirect_or_not_found


def _toggled_route_path(scope: Scope, app: FastAPI) -> str | None:
    """The path with its trailing slash added or removed, with the query, when a
    route matches it; never one a browser would read as another host (`//x`, `/\\x`)."""
    path: str = scope["path"]
    if path == "/":
        return None
    other = path.rstrip("/") if path.endswith("/") else path + "/"
    if not other.startswith("/") or other[1:2] in ("/", "\\"):
        return None
    other_scope = {**scope, "path": other}
    if all(route.matches(other_scope)[0] is Match.NONE for route in app.router.routes):
        return None
    # As Starlette writes a path into a URL: `?`, `#` and `\` escaped.
    location = other.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
    query = scope.get("query_string", b"")
    return f"{location}?{query.decode('latin-1')}" if query else location
