"""Flattened routes (api/flat_routes.py) answer and document exactly as the nested ones.

Two copies of one small app with nested routers (prefixes at two levels, router
tags, a route dependency, a path parameter, a literal path before a parameter,
a response model, declared responses, a status code): one is flattened, and both
must give the same OpenAPI document and the same answer to each request, 404 and
405 included. The gateway's own app is checked too: its document and its route
list do not change when it is flattened (tests/integration/test_openapi_errors.py
checks the same document against the routes' error declarations).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import httpx
from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException
from pydantic import BaseModel

from api import app as app_module
from api.flat_routes import flatten_routes
from api.route_table import api_routes
from api.routers import build_routes
from core.settings import Settings
from core.store.engine import Store


class Item(BaseModel):
    id: str
    tag: str


async def caller(x_caller: Annotated[str | None, Header()] = None) -> str:
    if x_caller is None:
        raise HTTPException(status_code=401, detail="who are you")
    return x_caller


def small_app() -> FastAPI:
    app = FastAPI()
    items = APIRouter(prefix="/items", tags=["items"], responses={404: {"description": "gone"}})

    @items.get("/mine")
    async def mine(who: Annotated[str, Depends(caller)]) -> Item:
        return Item(id="mine", tag=who)

    @items.get("/{item_id}", response_model=Item)
    async def one(item_id: int) -> dict[str, str]:
        return {"id": str(item_id), "tag": "plain", "extra": "dropped by the model"}

    @items.post("/{item_id}", status_code=201, dependencies=[Depends(caller)])
    async def make(item_id: int, body: Item) -> Item:
        return Item(id=f"{item_id}-{body.id}", tag=body.tag)

    meta = APIRouter(tags=["meta"])

    @meta.get("/ping")
    async def ping() -> dict[str, str]:
        return {"pong": "yes"}

    api = APIRouter(prefix="/api")
    api.include_router(items)
    api.include_router(meta)
    app.include_router(api)
    return app


REQUESTS: list[tuple[str, str, dict[str, str], object]] = [
    ("GET", "/api/items/mine", {"x-caller": "ann"}, None),
    ("GET", "/api/items/mine", {}, None),
    ("GET", "/api/items/7", {}, None),
    ("GET", "/api/items/seven", {}, None),
    ("POST", "/api/items/7", {"x-caller": "ann"}, {"id": "a", "tag": "b"}),
    ("POST", "/api/items/7", {}, {"id": "a", "tag": "b"}),
    ("POST", "/api/items/7", {"x-caller": "ann"}, {"id": "a"}),
    ("DELETE", "/api/items/7", {}, None),
    ("GET", "/api/ping", {}, None),
    ("GET", "/api/nowhere", {}, None),
]


async def answers(app: FastAPI) -> list[tuple[int, str, str | None]]:
    transport = httpx.ASGITransport(app=app)
    seen = []
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for method, path, headers, body in REQUESTS:
            response = await client.request(method, path, headers=headers, json=body)
            seen.append((response.status_code, response.text, response.headers.get("allow")))
    return seen


async def test_a_flattened_app_answers_and_documents_as_the_nested_one() -> None:
    nested, flat = small_app(), small_app()
    flatten_routes(flat)
    assert all(type(route).__name__ != "_IncludedRouter" for route in flat.routes)
    assert flat.openapi() == nested.openapi()
    assert await answers(flat) == await answers(nested)


def gateway_app(tmp_path: Path, *, flat: bool) -> FastAPI:
    # Built only for its routes and document: no request reaches the store.
    routes = build_routes(flat=flat)
    return app_module.create_app(Settings(data_dir=tmp_path), Store.__new__(Store), routes=routes)


def test_the_gateway_documents_the_same_routes_flattened(tmp_path: Path) -> None:
    nested = gateway_app(tmp_path, flat=False)
    nested_routes = [(r.path_format, sorted(r.methods)) for r in api_routes(nested)]
    nested_document = nested.openapi()
    flat = gateway_app(tmp_path, flat=True)
    assert [(r.path_format, sorted(r.methods)) for r in api_routes(flat)] == nested_routes
    assert flat.openapi() == nested_document
    assert len(flat.routes) > len(nested.routes)  # the inclusions were replaced by their routes
