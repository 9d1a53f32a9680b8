"""The internals of FastAPI and Starlette the API's request path relies on, checked here.

Three modules take work off FastAPI's per-request path with FastAPI's own objects:
`flat_routes.py` (an inclusion's routes copied out of `iter_route_contexts`' contexts),
`send_handler.py` (a send route's ASGI app, using the route's `dependant`,
`body_field.validate` and `response_field.serialize_json`: FastAPI's private
`fastapi._compat.ModelField`), and `route_index.py` (the router's entry point,
Starlette's `Router.middleware_stack`, replaced by a lookup in front of its scan, when
FastAPI's `APIRouter.form_limits` are none). None of these is documented. `check()`
builds a small app the way `api/app.py` does and looks at each on real objects; it
runs at start-up and in tests/unit/test_library_compat.py, so a FastAPI or Starlette
release that moved one fails there, naming the versions, before a request is served.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import fastapi
import starlette
from fastapi import APIRouter, FastAPI, routing
from pydantic import BaseModel

__all__ = [
    "InternalMissing",
    "check",
    "replace_router_entry",
    "route_contexts",
    "router_entry",
    "router_is_plain",
]


class InternalMissing(RuntimeError):
    """An internal of FastAPI or Starlette this gateway relies on is not where it was."""


def route_contexts() -> Callable[[list[Any]], Iterable[Any]] | None:
    """FastAPI's `iter_route_contexts` (an inclusion's routes with what it gave them), or
    None before FastAPI kept inclusions nested."""
    found: Callable[[list[Any]], Iterable[Any]] | None = getattr(
        routing, "iter_route_contexts", None
    )
    return found


def router_entry(router: APIRouter) -> Any:
    """The ASGI app a router's requests enter by: its scan, unless something wraps it."""
    return router.middleware_stack


def router_is_plain(router: APIRouter) -> bool:
    """Nothing runs before the router's scan: no form limits, no middleware of its own."""
    return not router.form_limits and router.middleware_stack == router.app


def replace_router_entry(router: APIRouter, entry: Any) -> None:
    router.middleware_stack = entry


# Keywords `flat_routes._standalone` passes to `APIRoute`, read from the route contexts.
ROUTE_KEYWORDS = [
    "response_model",
    "status_code",
    "tags",
    "dependencies",
    "summary",
    "description",
    "response_description",
    "responses",
    "deprecated",
    "name",
    "methods",
    "operation_id",
    "response_model_include",
    "response_model_exclude",
    "response_model_by_alias",
    "response_model_exclude_unset",
    "response_model_exclude_defaults",
    "response_model_exclude_none",
    "include_in_schema",
    "response_class",
    "dependency_overrides_provider",
    "callbacks",
    "openapi_extra",
    "generate_unique_id_function",
    "strict_content_type",
    "max_body_size",
]
_ROUTE_ATTRIBUTES = [
    "app",
    "dependant",
    "body_field",
    "response_field",
    "max_body_size",
    "response_class",
    "status_code",
    "path",
    "methods",
    "endpoint",
]
_DEPENDANT_ATTRIBUTES = [
    "dependencies",
    "call",
    "path_params",
    "query_params",
    "cookie_params",
    "header_params",
    "body_params",
    "background_tasks_param_name",
]


class _Body(BaseModel):
    text: str


def _sample_app() -> FastAPI:
    router = APIRouter(prefix="/inner")

    @router.post("/echo", response_model=_Body)
    async def echo(body: _Body) -> _Body:
        return body

    outer = APIRouter(prefix="/outer")
    outer.include_router(router)
    app = FastAPI()
    app.include_router(outer)
    return app


def _missing() -> list[str]:
    missing: list[str] = []
    parameters = inspect.signature(routing.APIRoute.__init__).parameters
    missing += [f"APIRoute({k}=)" for k in (*ROUTE_KEYWORDS, "form_limits") if k not in parameters]
    app = _sample_app()
    router = app.router
    missing += [
        f"{type(router).__name__}.{a}"
        for a in ("middleware_stack", "app", "form_limits")
        if not hasattr(router, a)
    ]
    contexts = route_contexts()
    if contexts is None:
        return [*missing, "fastapi.routing.iter_route_contexts"]
    leaves = list(contexts(list(router.routes)))
    if len(leaves) < 1 or not hasattr(leaves[-1], "original_route"):
        return [*missing, "RouteContext.original_route"]
    leaf = leaves[-1]
    leaf_names = ("path", "endpoint", *ROUTE_KEYWORDS)
    missing += [f"RouteContext.{k}" for k in leaf_names if not hasattr(leaf, k)]
    route = leaf.original_route
    if not isinstance(route, routing.APIRoute):
        return [*missing, "RouteContext.original_route as an APIRoute"]
    missing += [f"APIRoute.{a}" for a in _ROUTE_ATTRIBUTES if not hasattr(route, a)]
    dependant = getattr(route, "dependant", None)
    missing += [f"Dependant.{a}" for a in _DEPENDANT_ATTRIBUTES if not hasattr(dependant, a)]
    body, response = getattr(route, "body_field", None), getattr(route, "response_field", None)
    validate = getattr(body, "validate", None)
    if validate is None or list(inspect.signature(validate).parameters)[:3] != [
        "value",
        "values",
        "loc",
    ]:
        missing.append("ModelField.validate(value, values, loc)")
    serialize = getattr(response, "serialize_json", None)
    if serialize is None or "exclude_none" not in inspect.signature(serialize).parameters:
        missing.append("ModelField.serialize_json(value, ..., exclude_none)")
    return missing


def check() -> None:
    """Raise `InternalMissing` (naming the versions) unless every internal used is where
    it was, with the parameters the API passes."""
    missing = _missing()
    if missing:
        raise InternalMissing(
            f"FastAPI {fastapi.__version__} (Starlette {starlette.__version__}) lacks "
            "internals api/ relies on: "
            + ", ".join(missing)
            + " (see api/fastapi_compat.py and docs/architecture.md)"
        )
