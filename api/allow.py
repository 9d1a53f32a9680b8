"""`405 Method Not Allowed` with an `Allow` header that lists every method of the path.

Starlette answers a method it has no route for with the methods of the first
route whose path matches, but one path often has several routes (GET, PUT and
DELETE of `/me/drafts/{draft_id}` are three), so its `Allow` would be short of
some. RFC 9110 §15.5.6: a 405 MUST carry `Allow` with the target's methods.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from api.errors import error_response
from api.route_table import api_routes


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    root = request.scope.get("root_path", "")
    path = request.url.path.removeprefix(root) if root else request.url.path
    routes = api_routes(app)
    # The first route that matches names the resource (as in routing, where the
    # literal `/mail/send` comes before `/mail/{mail_id}`); its methods are those of
    # every route of that same path template.
    template = next((r.path_format for r in routes if r.path_regex.match(path)), None)
    methods: set[str] = set()
    for route in routes:
        if route.path_format == template:
            methods |= route.methods
    if "GET" in methods:
        methods.add("HEAD")  # Starlette answers HEAD wherever GET is routed
    return sorted(methods)


def install_allow_header(app: FastAPI) -> None:
    async def method_not_allowed(request: Request, _exc: Exception) -> JSONResponse:
        allow = ", ".join(allowed_methods(app, request))
        message = f"{request.method} is not allowed here; allowed: {allow}"
        return error_response(405, "method_not_allowed", message, {"Allow": allow})

    app.add_exception_handler(405, method_not_allowed)
