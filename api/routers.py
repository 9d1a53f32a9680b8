"""The API's routes, built once a process and shared by every app it creates.

The routes depend on no setting and no store (a route reaches them through
`request.app.state`), while building them is most of an app's start: FastAPI makes
a pydantic adapter per parameter and response model, once when a router is
included and again when `flat_routes` copies each leaf out of its inclusion. A
process that starts many apps (the test suite starts one per test, `agentmail`
commands build one for the OpenAPI document) builds them once.

The routes hang from a plain `APIRouter`, not an app: no route carries an app's
`dependency_overrides` (the gateway uses none; `send_handler.py` gives any request
with one to FastAPI's own handler, which then sees no override either).
"""

from __future__ import annotations

import functools

from fastapi import APIRouter
from starlette.routing import BaseRoute

from api import metrics, send_handler
from api.flat_routes import flattened
from api.routes import (
    account,
    agents,
    allowlists,
    attachments,
    auth,
    directory,
    drafts,
    events,
    external_addresses,
    folders,
    keys,
    mail,
    permissions,
    push,
    search,
    sessions,
    tree,
    users,
    webhooks,
)
from api.routes import health as probes
from core.version import VERSION

API_PREFIX = "/api/v1"

_API_ROUTERS = (
    auth.router,
    account.router,
    users.router,
    keys.router,
    agents.router,
    allowlists.router,
    allowlists.agent_router,
    mail.agent_router,
    mail.human_router,
    drafts.router,
    folders.router,
    attachments.agent_router,
    attachments.human_router,
    tree.agent_router,
    tree.human_router,
    permissions.router,
    push.router,
    external_addresses.router,
    webhooks.router,
    sessions.shared_router,
    sessions.human_router,
    directory.shared_router,
    directory.human_router,
    search.agent_router,
    search.human_router,
    events.router,
    probes.version_router,
)


async def health() -> dict[str, str]:
    return {"status": "ok", "version": VERSION}


def build_routes(*, flat: bool = True, send_handlers: bool = True) -> list[BaseRoute]:
    """Every API route in matching order: `/api/v1`, the probes, `/metrics`.
    `flat=False` keeps FastAPI's nested inclusions and `send_handlers=False`
    FastAPI's own handler on the send routes (both for tests comparing the two)."""
    api = APIRouter(prefix=API_PREFIX)
    api.add_api_route("/health", health, methods=["GET"], tags=["meta"])
    for router in _API_ROUTERS:
        api.include_router(router)
    root = APIRouter()
    root.include_router(api)
    root.include_router(probes.router)
    root.include_router(metrics.router)
    routes = flattened(root.routes) if flat else list(root.routes)
    if send_handlers:
        send_handler.install(routes)
    return routes


@functools.cache
def shared_routes() -> tuple[BaseRoute, ...]:
    """`build_routes()`, built on first use."""
    return tuple(build_routes())
