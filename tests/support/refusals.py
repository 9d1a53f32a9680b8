"""What a refusal must look like, for the bad-input tests.

A 4xx with exactly `{"error": {"code": <snake_case>, "message": <text>}}` (and
`fields`, well formed, when the refusal is about particular inputs), never a 500;
and the two parties those tests send as.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Iterable
from typing import Any, get_args

import httpx

from core.errors import FieldCode
from tests.support.gateway import Api

CODE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
WORKSPACES = (("ModelRouter", "/home/u/ModelRouter"), ("infra", "/srv/infra"))


def assert_error_shape(
    response: httpx.Response, status: int | None = None, code: str | None = None
) -> str:
    """Exactly `{"error": {"code", "message", "fields"?}}`, a 4xx (this status and code);
    the message."""
    where = f"{response.request.method} {response.request.url.path}"
    if status is None:
        assert 400 <= response.status_code < 500, (where, response.status_code, response.text)
    else:
        assert response.status_code == status, (where, response.status_code, response.text)
    assert response.headers.get("content-type", "").startswith("application/json"), where
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, (where, body)
    error = body["error"]
    assert isinstance(error, dict) and set(error) - {"fields"} == {"code", "message"}, (where, body)
    assert_fields_shape(error, where)
    assert isinstance(error["code"], str) and CODE.fullmatch(error["code"]), (where, body)
    assert isinstance(error["message"], str) and error["message"].strip(), (where, body)
    if code is not None:
        assert error["code"] == code, (where, body)
    message: str = error["message"]
    return message


FIELD_CODES = frozenset(get_args(FieldCode))


def assert_fields_shape(error: dict[str, Any], where: str) -> None:
    """`fields`, when present: a non-empty list of `{field, code, limit?}` in the
    documented words (docs/api.md "Errors"), the limit an integer."""
    if "fields" not in error:
        return
    fields = error["fields"]
    assert isinstance(fields, list) and fields, (where, error)
    for item in fields:
        assert isinstance(item, dict) and set(item) - {"limit"} == {"field", "code"}, (where, item)
        assert isinstance(item["field"], str) and item["field"], (where, item)
        assert item["code"] in FIELD_CODES, (where, item)
        if "limit" in item:
            assert type(item["limit"]) is int, (where, item)


def problem(response: httpx.Response) -> str | None:
    """What is wrong with a response that must be a success or a well-formed 4xx, if anything."""
    request = response.request
    where = f"{request.method} {request.url.path} {request.content[:200]!r}"
    try:
        assert response.status_code < 500
        if response.status_code >= 400:
            assert_error_shape(response)
    except AssertionError:
        return f"{where} -> {response.status_code} {response.text[:200]}"
    return None


def assert_no_server_errors(responses: Iterable[httpx.Response]) -> None:
    """Every response is a success or a well-formed 4xx; lists all that are not."""
    problems = [p for p in map(problem, responses) if p is not None]
    assert not problems, f"{len(problems)} bad responses:\n" + "\n".join(problems[:20])


async def all_of(calls: Iterable[Awaitable[httpx.Response]]) -> list[httpx.Response]:
    """Independent requests, made concurrently; responses in order."""
    return list(await asyncio.gather(*calls))


async def send_raw(
    client: httpx.AsyncClient, method: str, path: str, content: bytes | str
) -> httpx.Response:
    """A request whose JSON body is exactly these bytes (no client-side encoding)."""
    return await client.request(
        method, path, content=content, headers={"Content-Type": "application/json"}
    )


async def parties(api: Api) -> tuple[httpx.AsyncClient, httpx.AsyncClient]:
    """The human `jianf` and the agent `builder` (workspaces ModelRouter and infra)."""
    await api.admin()
    human, agent = await asyncio.gather(api.human("jianf"), api.agent("builder", WORKSPACES))
    return human, agent


Case = tuple[httpx.AsyncClient, str, dict[str, Any], str]


async def assert_422_naming_fields(cases: list[Case]) -> None:
    """Each `(client, path, body, field)` is a 422 `invalid_request` naming `field`."""
    responses = await all_of(client.post(path, json=body) for client, path, body, _ in cases)
    for (_, path, body, field), response in zip(cases, responses, strict=True):
        message = assert_error_shape(response, 422, "invalid_request")
        assert re.search(rf"(^|[;.\s]){re.escape(field)}[.:]", message), (path, body, message)
