"""The app's routes as one flat list, so a request is matched in one pass.

FastAPI ≥ 0.16x keeps an included router nested (`_IncludedRouter`) and matches
through the nesting on every request: each level asks its children again,
recomputes the routes' version by walking the whole subtree, and matches once
more to handle what it chose. With the API's routers inside one `/api/v1`
router, that is a large share of a REST send's CPU before any work is done
(docs/performance.md). Older FastAPI copied every route into the
app at `include_router` time; this does the same once the app is built: every
inclusion whose leaves are all FastAPI routes is replaced, in place, by copies
of those leaves carrying what the inclusion gave them (full path, tags,
dependencies, responses, response class, overrides provider, body limit).

The order of the routes is kept, so the first match is the same route as
before; the OpenAPI document is the same (tests/unit/test_flat_routes.py
compares both with the nested app's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, routing
from starlette.routing import BaseRoute

from api.fastapi_compat import route_contexts


def flatten_routes(app: FastAPI) -> None:
    app.router.routes[:] = flattened(app.router.routes)


def flattened(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """`routes` with every inclusion of FastAPI routes replaced by copies of its leaves."""
    leaves_of = route_contexts()
    if leaves_of is None:  # an older FastAPI: include_router already copied the routes
        return list(routes)
    flat: list[BaseRoute] = []
    for route in routes:
        leaves = list(leaves_of([route]))
        nested = any(leaf.original_route is not route for leaf in leaves)
        if nested and all(isinstance(leaf.original_route, routing.APIRoute) for leaf in leaves):
            flat.extend(_standalone(leaf) for leaf in leaves)
        else:
            flat.append(route)
    return flat


def _standalone(leaf: Any) -> routing.APIRoute:
    """A route that is what `leaf` (a route seen through its inclusions) is."""
    original: routing.APIRoute = leaf.original_route
    return routing.APIRoute(
        leaf.path,
        leaf.endpoint,
        response_model=leaf.response_model,
        status_code=leaf.status_code,
        tags=list(leaf.tags),
        dependencies=list(leaf.dependencies),
        summary=leaf.summary,
        description=leaf.description,
        response_description=leaf.response_description,
        responses=dict(leaf.responses),
        deprecated=leaf.deprecated,
        name=leaf.name,
        methods=set(leaf.methods),
        operation_id=leaf.operation_id,
        response_model_include=leaf.response_model_include,
        response_model_exclude=leaf.response_model_exclude,
        response_model_by_alias=leaf.response_model_by_alias,
        response_model_exclude_unset=leaf.response_model_exclude_unset,
        response_model_exclude_defaults=leaf.response_model_exclude_defaults,
        response_model_exclude_none=leaf.response_model_exclude_none,
        include_in_schema=leaf.include_in_schema,
        response_class=leaf.response_class,
        dependency_overrides_provider=leaf.dependency_overrides_provider,
        callbacks=leaf.callbacks,
        openapi_extra=leaf.openapi_extra,
        generate_unique_id_function=leaf.generate_unique_id_function,
        strict_content_type=leaf.strict_content_type,
        max_body_size=leaf.max_body_size,
        form_limits=getattr(original, "form_limits", None),
    )
