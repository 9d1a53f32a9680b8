"""The app's API routes as one flat list, whatever the FastAPI version.

FastAPI ≥ 0.16x keeps included routers nested (`app.routes` holds the router,
not its routes) and flattens them with `iter_route_contexts`; older versions
copy every route into `app.routes`. The OpenAPI error declarations and the
`Allow` header both need the leaf routes with their paths and methods.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol, cast

from fastapi import FastAPI, routing
from fastapi.dependencies.models import Dependant


class ApiRoute(Protocol):
    path_format: str
    path_regex: re.Pattern[str]
    methods: set[str]
    dependant: Dependant
    include_in_schema: bool


def api_routes(app: FastAPI) -> list[ApiRoute]:
    flatten: Callable[[Any], Iterable[Any]] | None = getattr(routing, "iter_route_contexts", None)
    candidates = flatten(app.routes) if flatten is not None else app.routes
    return [
        cast(ApiRoute, route)
        for route in candidates
        if isinstance(getattr(route, "original_route", route), routing.APIRoute)
    ]
