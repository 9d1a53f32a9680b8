"""How errors look over HTTP: always JSON `{"error": {"code", "message"}}`, with
`fields` beside them when the refusal is about particular inputs.

Domain errors map to status codes here and nowhere else; a test checks that
every domain error has a mapping. The codes are documented in docs/api.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from api.field_problems import field_problems
from api.headers import SECURITY_HEADERS
from core import errors as domain
from core import metrics

log = logging.getLogger(__name__)

STATUS: dict[type[domain.DomainError], int] = {
    domain.InvalidAddress: 422,
    domain.InvalidRequest: 422,
    domain.UnknownRecipient: 422,
    domain.UnknownWorkspace: 422,
    domain.UnknownAlias: 422,
    domain.NotFound: 404,
    domain.AuthenticationFailed: 401,
    domain.Forbidden: 403,
    domain.NameTaken: 409,
    domain.LimitReached: 422,
    domain.WorkspaceConflict: 409,
    domain.AlreadyDecided: 409,
    domain.InvalidDecision: 422,
    domain.BudgetExhausted: 429,
    domain.HopLimitReached: 422,
    domain.DraftChanged: 409,
    domain.PayloadTooLarge: 413,
    # RFC 4918 §11.5 "Insufficient Storage": the server's, not the client's fault; retry.
    domain.StorageFull: 507,
    # The object store away: the server's side, and it passes; retried by the client.
    domain.StorageUnavailable: 503,
    domain.RateLimited: 429,
    domain.AutoNotAllowed: 422,
    domain.IdempotencyKeyReused: 422,
    domain.OutboundNotAllowed: 403,
}

STORAGE_RETRY_SECONDS = 60  # a full disk is freed by a person, not within seconds
UNAVAILABLE_RETRY_SECONDS = 10  # an object store that is away is usually back soon
MAX_FIELDS = 20  # a body of 10,000 wrong items answers with the first few

# Codes for errors that only exist at the HTTP layer.
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
}


def field_json(problem: domain.FieldProblem) -> dict[str, object]:
    found: dict[str, object] = {"field": problem.field, "code": problem.code}
    if problem.limit is not None:
        found["limit"] = problem.limit
    return found


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    fields: Sequence[domain.FieldProblem] = (),
) -> JSONResponse:
    metrics.REFUSALS.labels("rest", code).inc()
    error: dict[str, object] = {"code": code, "message": message}
    if fields:
        error["fields"] = [field_json(problem) for problem in fields]
    return JSONResponse({"error": error}, status_code=status, headers=headers)


async def _domain_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, domain.DomainError)
    status = next(s for cls, s in STATUS.items() if isinstance(exc, cls))
    headers = None
    if isinstance(exc, domain.RateLimited):
        headers = {"Retry-After": str(exc.retry_after)}
    if isinstance(exc, domain.StorageFull):
        headers = {"Retry-After": str(STORAGE_RETRY_SECONDS)}
    if isinstance(exc, domain.StorageUnavailable):
        headers = {"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)}
    if isinstance(exc, domain.PayloadTooLarge):
        # The rest of the body was not read: the connection cannot carry another request.
        headers = {"Connection": "close"}
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    return error_response(status, exc.code, exc.message, headers, exc.fields)


def _location(loc: tuple[object, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = list(exc.errors())
    if any(p.get("type") == "json_invalid" for p in problems):
        return error_response(400, "malformed_json", "the request body is not valid JSON")
    if isinstance(exc.body, bytes | bytearray) and exc.body:
        # FastAPI reads a body as JSON only when it says so (Content-Type: application/json
        # or +json): text/plain, a form or no Content-Type at all leave raw bytes here.
        return error_response(
            415,
            "unsupported_media_type",
            "send the request body as JSON, with 'Content-Type: application/json'",
        )
    message = "; ".join(f"{_location(tuple(p['loc']))}: {p['msg']}" for p in problems[:10])
    return error_response(
        422, "invalid_request", message, fields=field_problems(problems[:MAX_FIELDS])
    )


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_CODES.get(exc.status_code, "error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    return error_response(exc.status_code, code, message, dict(exc.headers or {}) or None)


async def _client_left(request: Request, _exc: Exception) -> JSONResponse:
    """The client closed the connection while sending its body (a cut upload): nothing
    was stored (an upload's partial bytes are dropped as it unwinds) and nobody reads the
    answer. Not a server fault: no 500 and no traceback in the log."""
    log.info("the client left while sending %s %s", request.method, request.url.path)
    return error_response(400, "client_left", "the request body was cut short by the client")


async def _unexpected(_request: Request, _exc: Exception) -> JSONResponse:
    # Answered outside the app's middleware (Starlette's ServerErrorMiddleware): its own headers.
    headers = {**SECURITY_HEADERS, "cache-control": "no-store"}
    return error_response(500, "internal_error", "internal error; it has been logged", headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(domain.DomainError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(ClientDisconnect, _client_left)
    app.add_exception_handler(Exception, _unexpected)
