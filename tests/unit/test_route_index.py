"""The route index (api/route_index.py) sends a request where the router's scan would.

A small app whose fixed paths are shadowed in part by an earlier route with a path
parameter: an indexed copy and a plain copy must give the same answer to each request
(404, 405, a trailing slash and a `root_path` included). The gateway's own app: every
(method, path) in its index is the route the scan picks first, and the send routes are
in it.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI
from starlette.routing import Match

from api.app import create_app
from api.route_index import RouteIndex, index_routes
from core.settings import Settings
from core.store.engine import Store


def small_app() -> FastAPI:
    app = FastAPI()

    @app.get("/items/{item_id}")
    async def one(item_id: str) -> dict[str, str]:
        return {"route": "one", "item": item_id}

    @app.get("/items/mine")  # shadowed for GET by the route above: never reached by GET
    async def mine_get() -> dict[str, str]:
        return {"route": "mine_get"}

    @app.post("/items/mine")  # not shadowed for POST: the one POST reaches
    async def mine_post() -> dict[str, str]:
        return {"route": "mine_post"}

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"route": "ping"}

    @app.put("/ping")
    async def ping_put() -> dict[str, str]:
        return {"route": "ping_put"}

    return app


REQUESTS = [
    ("GET", "/items/mine"),
    ("POST", "/items/mine"),
    ("DELETE", "/items/mine"),
    ("GET", "/items/7"),
    ("POST", "/items/7"),
    ("GET", "/ping"),
    ("PUT", "/ping"),
    ("HEAD", "/ping"),
    ("DELETE", "/ping"),
    ("GET", "/ping/"),
    ("GET", "/nowhere"),
]


async def answers(app: FastAPI, root_path: str = "") -> list[tuple[int, str, str | None]]:
    transport = httpx.ASGITransport(app=app, root_path=root_path)
    seen = []
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for method, path in REQUESTS:
            response = await client.request(method, root_path + path)
            seen.append((response.status_code, response.text, response.headers.get("allow")))
    return seen


async def test_an_indexed_app_answers_as_the_plain_one() -> None:
    plain, indexed = small_app(), small_app()
    assert index_routes(indexed) == 3  # POST /items/mine, GET /ping, PUT /ping
    assert isinstance(indexed.router.middleware_stack, RouteIndex)
    assert ("GET", "/items/mine") not in indexed.router.middleware_stack.index
    assert await answers(indexed) == await answers(plain)
    assert await answers(indexed, "/base") == await answers(plain, "/base")


def test_the_gateway_index_holds_the_routes_the_scan_picks(tmp_path: Path) -> None:
    # Built only for its routes: no request reaches the store.
    app = create_app(Settings(data_dir=tmp_path), Store.__new__(Store))
    stack = app.router.middleware_stack
    assert isinstance(stack, RouteIndex)
    assert {("POST", "/api/v1/mail/send"), ("POST", "/api/v1/me/mail/send")} <= set(stack.index)
    for (method, path), route in stack.index.items():
        scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
        first = next(r for r in app.router.routes if r.matches(scope)[0] is Match.FULL)
        assert first is route, (method, path)
