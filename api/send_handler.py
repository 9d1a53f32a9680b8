"""The send routes' request handler: FastAPI's work on a send, done once and in order.

FastAPI's request handler is the largest piece of the loop's work on a REST send
(docs/performance.md): per request it builds a sub-`Response`, reads the body
through `Request.body`, parses the content type with `email.message`, solves the
caller dependency and the `Idempotency-Key` header through its general machinery
(cache keys, kinds, four kinds of parameters), validates the returned model again and
wraps it all in two exit stacks. For the routes registered here (`HANDLED`), the route's
ASGI app is replaced by `SendHandler`, which does what FastAPI would do on the path a
send takes, with FastAPI's own objects:

* the body (already buffered by the request guard, api/limits.py) is parsed with
  `json.loads`, as Starlette's `Request.json` does, and validated by the route's own
  body field (FastAPI's `TypeAdapter`, `from_attributes=True`);
* the caller is the route's own dependency function (`api/deps.py`), called once;
* the answer is the route's response field's JSON (the model is dumped once, not
  validated again), with the headers FastAPI's `Response` would carry.

Anything off that path goes to FastAPI's own handler, untouched, before any side
effect: a content type other than `application/json`, a body that is empty, is not
JSON or does not validate, an `Idempotency-Key` of the wrong length, a dependency
override. So the 400 for malformed JSON before the 401, the 415, the 422's locations
and the header's checks are FastAPI's answers, by construction; the caller's and the
route's own errors (401, 403, the domain's) propagate to the same exception handlers.
`install` refuses, at start-up, a route whose parameters are not the ones handled
here, so a change to a send route cannot silently diverge.

`json.loads` rather than pydantic's `model_validate_json`: the latter would save a little
CPU a send, but its parser (jiter) and the stdlib's disagree on some bodies (a raw
surrogate or a NaN in an ignored field, a BOM, nesting depth), and FastAPI's answers
are the stdlib's.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import routing
from fastapi.datastructures import DefaultPlaceholder
from pydantic import BaseModel
from starlette.requests import Request
from starlette.routing import BaseRoute
from starlette.types import Message, Receive, Scope, Send

from api.deps import PRINCIPAL_DEPENDENCIES
from api.idempotency import REPLAYED_HEADER
from core.mail.idempotency import MAX_KEY_LENGTH, Outcome
from core.principal import Principal

# The route's own code: the request (for the app's state), the caller, the validated
# body and the Idempotency-Key header (None when absent).
Work = Callable[[Request, Principal, Any, str | None], Awaitable[Outcome]]

# Endpoint function → its work. A route module registers its send endpoints here.
HANDLED: dict[Callable[..., Any], Work] = {}

_IDEMPOTENCY_HEADER = b"idempotency-key"
_REPLAYED = (REPLAYED_HEADER.lower().encode("latin-1"), b"true")
_JSON = (b"content-type", b"application/json")


@dataclass(frozen=True, slots=True)
class _Parsed:
    body: Any
    idempotency: str | None


class SendHandler:
    """The ASGI app of one send route (see the module's docstring)."""

    def __init__(self, route: routing.APIRoute, caller: Callable[..., Any], work: Work) -> None:
        assert route.body_field is not None and route.response_field is not None
        self.fastapi = route.app  # FastAPI's own handler: every case off the send's path
        self.body_field = route.body_field
        self.response_field = route.response_field
        self.caller: Callable[[Request], Awaitable[Principal]] = caller
        self.work = work
        self.route = route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        received: list[Message] = []
        chunks: list[bytes] = []
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                await self.fastapi(scope, _replay(received, receive), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        parsed = self._parse(scope, b"".join(chunks))
        if parsed is None:
            await self.fastapi(scope, _replay(received, receive), send)
            return
        request = Request(scope, receive, send)
        caller = await self.caller(request)
        outcome = await self.work(request, caller, parsed.body, parsed.idempotency)
        route = self.route
        content: bytes = self.response_field.serialize_json(
            outcome.result,
            include=route.response_model_include,
            exclude=route.response_model_exclude,
            by_alias=route.response_model_by_alias,
            exclude_unset=route.response_model_exclude_unset,
            exclude_defaults=route.response_model_exclude_defaults,
            exclude_none=route.response_model_exclude_none,
        )
        headers = [(b"content-length", str(len(content)).encode("latin-1")), _JSON]
        if outcome.replayed:
            headers.append(_REPLAYED)
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def _parse(self, scope: Scope, body: bytes) -> _Parsed | None:
        """The validated body and key, or None for anything FastAPI must answer."""
        if scope["app"].dependency_overrides or not body:
            return None
        content_type: bytes | None = None
        idempotency: bytes | None = None
        for name, value in scope["headers"]:
            # The first of each, as Starlette's `Headers.get` takes it.
            if name == b"content-type" and content_type is None:
                content_type = value
            elif name == _IDEMPOTENCY_HEADER and idempotency is None:
                idempotency = value
        if content_type is None or not _is_json(content_type):
            return None
        key = None if idempotency is None else idempotency.decode("latin-1")
        if key is not None and not 1 <= len(key) <= MAX_KEY_LENGTH:
            return None  # FastAPI's 422 for the header, after the caller's 401 or 403
        try:
            document = json.loads(body)
        except Exception:  # FastAPI answers: 400 malformed_json, or its own 400
            return None
        value, errors = self.body_field.validate(document, {}, loc=("body",))
        if errors:
            return None
        return _Parsed(value, key)


def _is_json(content_type: bytes) -> bool:
    """`application/json` with or without parameters: the type FastAPI's parse (through
    `email.message`) finds JSON. Other JSON types (`+json`) are left to FastAPI."""
    main = content_type.decode("latin-1").partition(";")[0].strip().lower()
    return main == "application/json"


def _replay(received: list[Message], receive: Receive) -> Receive:
    """`receive` that gives back the messages already taken, then the client's next."""
    pending = list(received)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def install(routes: Iterable[BaseRoute]) -> int:
    """Give every registered send route its own handler; how many there were."""
    installed = 0
    for route in routes:
        if isinstance(route, routing.APIRoute) and route.endpoint in HANDLED:
            caller = _checked_caller(route)
            route.app = SendHandler(route, caller, HANDLED[route.endpoint])
            installed += 1
    return installed


def _checked_caller(route: routing.APIRoute) -> Callable[..., Any]:
    """The route's caller dependency, after checking that FastAPI would do nothing on a
    send that `SendHandler` does not: one body model, one caller, at most the key."""
    dependant = route.dependant
    problems = []
    if len(dependant.dependencies) != 1 or route.dependencies:
        problems.append("one dependency, the caller")
    caller = dependant.dependencies[0].call if dependant.dependencies else None
    if caller not in PRINCIPAL_DEPENDENCIES:
        problems.append("a caller from api/deps.py")
    if dependant.path_params or dependant.query_params or dependant.cookie_params:
        problems.append("no path, query or cookie parameter")
    if [p.alias.lower() for p in dependant.header_params] not in ([], ["idempotency-key"]):
        problems.append("no header but Idempotency-Key")
    if len(dependant.body_params) != 1 or route.body_field is None:
        problems.append("one JSON body")
    elif not (
        isinstance(model := route.body_field.field_info.annotation, type)
        and issubclass(model, BaseModel)
    ):
        problems.append("a body that is a model")
    if route.response_field is None or not isinstance(route.response_class, DefaultPlaceholder):
        problems.append("a response model and the default response class")
    if route.status_code not in (None, 200) or dependant.background_tasks_param_name:
        problems.append("status 200 and no background task")
    if route.max_body_size is not None:
        problems.append("no body limit of its own (the request guard's applies)")
    if problems:
        raise RuntimeError(
            f"{route.path}: api/send_handler.py handles a route with "
            + ", ".join(problems)
            + "; give it its own handler's support or unregister it"
        )
    assert caller is not None
    return caller
