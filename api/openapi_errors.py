"""The error responses and the security of every operation in the OpenAPI document.

The document is the contract (clients and the web UI's types are generated from
it; schemathesis checks the server against it), so it must list every status a
route really gives. They are derived here, in one place, when the document is
first built, not written on each route:

* every route: 400 (a NUL in the URL, malformed JSON; `api/limits.py`);
* an authenticated route (it depends on one of `api.deps.PRINCIPAL_DEPENDENCIES`):
  401, 403, and the bearer / cookie security schemes;
* a path parameter: 404; any parameter or body: 422;
* an unsafe method (POST, PUT, PATCH, DELETE): 413 and 422 (the request guard
  reads every such body, declared or not);
* what only the route's service knows (409, 429, 415, 416, a 404 from the body):
  the small table `SPECIFIC` below, checked against the routes by a test.

Every error has the one body `{"error": {"code", "message", "fields"?}}` (`ErrorResponse`);
a route's own declaration of a status wins over the derived one. Each error
response is declared once, in `components.responses` (`NotFound`…), and an
operation refers to it by `$ref` (OpenAPI 3.1 §4.8.16): the generated clients
then hold one type for it instead of a copy in every operation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from api.allow import install_allow_header
from api.deps import PRINCIPAL_DEPENDENCIES, SESSION_COOKIE
from api.route_table import ApiRoute, api_routes
from core.errors import FieldCode

PREFIX = "/api/v1"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _left_out_when_absent(schema: dict[str, Any]) -> None:
    """An optional key that is left out, never `null`: no default in the schema."""
    schema.pop("default", None)


class FieldError(BaseModel):
    """One input a refusal is about, as data a client can put in its own words."""

    field: str = Field(
        description="The input's dotted name: `subject`, `cc.2`, `workspaces.0.path`, `limit`."
    )
    code: FieldCode = Field(description="What is wrong with it; docs/api.md lists the words.")
    limit: int | SkipJsonSchema[None] = Field(
        None,
        json_schema_extra=_left_out_when_absent,
        description="The bound passed: characters or items for `too_long` and `too_short`, "
        "the largest or smallest value allowed for `too_large` and `too_small`.",
    )


class ErrorDetail(BaseModel):
    code: str = Field(description="A stable snake_case word; docs/api.md lists them all.")
    message: str = Field(
        description="For developers and logs: what went wrong and what to do instead, in "
        "English. A client that shows refusals to people says them from `code` and "
        "`fields` in its own words."
    )
    fields: list[FieldError] = Field(
        default_factory=list,
        description="The inputs the refusal is about, when it is about particular ones "
        "(every 422 of a request's shape; some refusals of values). Left out when empty.",
    )


class ErrorResponse(BaseModel):
    """Every refusal of the API, whatever its status."""

    error: ErrorDetail


DESCRIPTIONS = {
    400: "Malformed request: invalid JSON, or a NUL character in the URL.",
    401: "No valid credentials: a bearer key or the login cookie.",
    403: "Authenticated, but not allowed to do this.",
    404: "No such object, or not visible to the caller.",
    409: "Conflicts with the current state (a taken name or alias, already decided).",
    413: "The request body is over the limit.",
    415: "Wrong content type for this endpoint.",
    416: "No byte of the content is in the range asked for (`Range: bytes=a-b`).",
    422: "Invalid input: a wrong type, a missing field, or a refused value.",
    429: "Too many requests: a rate limit or the conversation's budget.",
}

# The name of each error response in `components.responses`.
NAMES = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    413: "PayloadTooLarge",
    415: "UnsupportedMediaType",
    416: "RangeNotSatisfiable",
    422: "UnprocessableEntity",
    429: "TooManyRequests",
}

# Refusals that no dependency reveals: they come from the route's service.
_SEND = {404, 409, 429}  # an unknown session_id / reply_to; a taken alias; rate and budget
SPECIFIC: dict[tuple[str, str], set[int]] = {
    ("POST", "/auth/login"): {401, 429},  # a wrong password; the login throttle
    ("POST", "/admin/users"): {409},
    ("POST", "/agent/register"): {409},
    ("POST", "/agent/heartbeat"): {404},
    ("POST", "/mail/send"): _SEND,
    ("POST", "/me/mail/send"): _SEND,
    ("POST", "/mail/{mail_id}/forward"): _SEND,
    ("POST", "/me/mail/{mail_id}/forward"): _SEND,
    ("POST", "/permission/request"): _SEND,
    ("POST", "/me/drafts/{draft_id}/send"): _SEND,
    ("POST", "/me/permission/decide"): {404, 409},
    ("POST", "/sessions/{session_id}/sync"): {409},
    ("POST", "/me/sessions/{session_id}/sync"): {409},
    ("POST", "/sessions/{session_id}/proposals/{proposal_id}/accept"): {409},
    ("POST", "/me/sessions/{session_id}/proposals/{proposal_id}/accept"): {409},
    ("POST", "/sessions/{session_id}/proposals/{proposal_id}/reject"): {409},
    ("POST", "/me/sessions/{session_id}/proposals/{proposal_id}/reject"): {409},
    ("POST", "/me/password"): {429},  # the login throttle guards the current password
    ("DELETE", "/agent/workspaces/{name}"): {409},  # open conversations, the last one
    ("POST", "/attachments"): {415},
    ("POST", "/me/attachments"): {415},
    ("GET", "/attachments/{attachment_id}"): {416},  # a byte range beyond the end
    ("GET", "/me/attachments/{attachment_id}"): {416},
    ("GET", "/mail/inbox"): {404},  # a `folder_id` that is none of the caller's
    ("GET", "/me/mail/inbox"): {404},
    ("GET", "/mail/inbox/rows"): {404},
    ("GET", "/me/mail/inbox/rows"): {404},
    ("POST", "/me/folders"): {409},  # a name in use, or the gateway's own
    ("PATCH", "/me/folders/{folder_id}"): {409},
    # an address already mine; codes an hour
    ("POST", "/me/external-addresses"): {409, 429},
    ("POST", "/me/external-addresses/{address_id}/code"): {429},
}

SECURITY_SCHEMES = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An agent key, or a user key of a human.",
    },
    "cookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": SESSION_COOKIE,
        "description": "The web login (`POST /api/v1/auth/login`).",
    },
}
_SECURITY: list[dict[str, list[str]]] = [{"bearer": []}, {"cookie": []}]
_REF = "#/components/schemas/"
_RESPONSE_REF = "#/components/responses/"
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Bearer`."}},
    416: {
        "Content-Range": {
            "schema": {"type": "string"},
            "description": "`bytes */size`: the content's size.",
        }
    },
    429: {
        "Retry-After": {
            "schema": {"type": "integer"},
            "description": "Seconds until a rate-limited request may succeed.",
        }
    },
}


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any] | None]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def is_authenticated(route: ApiRoute) -> bool:
    return not PRINCIPAL_DEPENDENCIES.isdisjoint(_calls(route.dependant))


def route_path(route: ApiRoute) -> str:
    return route.path_format.removeprefix(PREFIX)


def error_statuses(route: ApiRoute, method: str) -> set[int]:
    """Every error status `method` on `route` can answer with (405 is the router's)."""
    dependant = route.dependant
    found = {400}
    if is_authenticated(route):
        found |= {401, 403}
    if dependant.path_params:
        found.add(404)
    params = dependant.path_params + dependant.query_params + dependant.header_params
    if params or dependant.cookie_params or dependant.body_params:
        found.add(422)
    if dependant.body_params:
        found.add(415)  # a body that does not say it is JSON (api/errors.py)
    if method in UNSAFE:
        found |= {413, 422}
    found |= SPECIFIC.get((method, route_path(route)), set())
    return found


def _error_response(status: int) -> dict[str, Any]:
    declared: dict[str, Any] = {
        "description": DESCRIPTIONS[status],
        "content": {"application/json": {"schema": {"$ref": f"{_REF}ErrorResponse"}}},
    }
    if status in _HEADERS:
        declared["headers"] = _HEADERS[status]
    return declared


def error_responses() -> dict[str, dict[str, Any]]:
    """`components.responses`: every error response, by its name in `NAMES`."""
    return {NAMES[status]: _error_response(status) for status in sorted(NAMES)}


def _is_fastapi_default(response: dict[str, Any]) -> bool:
    """FastAPI's own 422 (`{detail: [...]}`), which our handler never sends."""
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    return bool(schema.get("$ref", "").endswith("/HTTPValidationError"))


def document_route(document: dict[str, Any], route: ApiRoute) -> None:
    """Add the route's derived errors (and its security) to its operations."""
    for method in sorted(route.methods):
        operation = document["paths"][route.path_format][method.lower()]
        responses = operation.setdefault("responses", {})
        for status in sorted(error_statuses(route, method)):
            if str(status) not in responses or _is_fastapi_default(responses[str(status)]):
                responses[str(status)] = {"$ref": _RESPONSE_REF + NAMES[status]}
        if is_authenticated(route):
            operation.setdefault("security", _SECURITY)


def declare_errors(app: FastAPI) -> None:
    """Document every route's errors when the document is first built (so routes
    added after this call are covered too), and give 405s a correct `Allow`."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = build()
            components = document.setdefault("components", {})
            schemas = components.setdefault("schemas", {})
            error_schema = ErrorResponse.model_json_schema(ref_template=_REF + "{model}")
            schemas.update(error_schema.pop("$defs", {}))
            schemas["ErrorResponse"] = error_schema
            components["responses"] = error_responses()
            components["securitySchemes"] = SECURITY_SCHEMES
            for route in api_routes(app):
                if route.include_in_schema:
                    document_route(document, route)
            for unused in ("HTTPValidationError", "ValidationError"):
                if f'"{_REF}{unused}"' not in json.dumps(document["paths"]):
                    schemas.pop(unused, None)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    install_allow_header(app)
