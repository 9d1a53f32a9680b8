"""A request for a fixed path goes straight to its route: a dict lookup, not a scan.

The router matches a request by asking every route in order (`APIRoute.matches`: a
regex and FastAPI's scope lookups each), and the send routes come after thirty others
(docs/architecture.md gives what the scan costs a send). `index_routes` maps each
(method, path) of a route without path parameters to that route, when it is the one
the scan would choose: no route before it matches that method and path (checked once,
at start-up, with the routes' own `matches`). Such a path matches nothing else, so the
answer is the same; every other request, and any request with a `root_path` (the check
assumed none), goes through the router as before. The route list itself is untouched,
so the OpenAPI document and the `Allow` header see the same routes in the same order.
"""

from __future__ import annotations

from fastapi import FastAPI, routing
from starlette.routing import Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from api.fastapi_compat import replace_router_entry, router_entry, router_is_plain


class RouteIndex:
    """The router's entry point, with the index in front of its scan."""

    def __init__(self, router: routing.APIRouter, index: dict[tuple[str, str], Route]) -> None:
        self.router = router
        self.scan: ASGIApp = router_entry(router)
        self.index = index

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = None
        if scope["type"] == "http" and not scope.get("root_path") and "router" not in scope:
            route = self.index.get((scope["method"], scope["path"]))
        if route is None or "fastapi.telemetry" in scope:
            await self.scan(scope, receive, send)
            return
        # What APIRouter.app does with the first full match (its form limits are none,
        # and without telemetry it records no route).
        scope["router"] = self.router
        match, child_scope = route.matches(scope)
        assert match is Match.FULL
        scope.update(child_scope)
        await route.handle(scope, receive, send)


def index_routes(app: FastAPI) -> int:
    """Put the index in front of the app's router; how many (method, path) it holds."""
    router = app.router
    if not router_is_plain(router):
        return 0  # the router does more before its scan than RouteIndex repeats
    index: dict[tuple[str, str], Route] = {}
    earlier: list[Route | Mount] = []
    for route in router.routes:
        if not isinstance(route, Route | Mount):
            break  # a route whose match may depend on more than the path and method
        if isinstance(route, routing.APIRoute) and not route.param_convertors and route.methods:
            for method in route.methods:
                scope = _scope(method, route.path)
                if route.matches(scope)[0] is Match.FULL and not any(
                    other.matches(scope)[0] is Match.FULL for other in earlier
                ):
                    index.setdefault((method, route.path), route)
        earlier.append(route)
    if index:
        replace_router_entry(router, RouteIndex(router, index))
    return len(index)


def _scope(method: str, path: str) -> Scope:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
