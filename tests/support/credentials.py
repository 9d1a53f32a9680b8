"""Logins and keys for the auth tests.

The JSON error shape they assert, an agent's registration, keys issued by an admin
or by a user, and a client holding a login cookie.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.refusals import assert_fields_shape

COOKIE = "agentmail_session"
WORKSPACE = ("ModelRouter", "/home/u/ModelRouter")

# The admin calls, in the lists of what a credential must not reach.
ADMIN_CALLS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/v1/admin/users", None),
    ("POST", "/api/v1/admin/users", {"name": "eve", "password": "password123"}),
    ("GET", "/api/v1/admin/agent-keys", None),
    ("POST", "/api/v1/admin/agent-keys", {"lifecycle": "permanent"}),
    ("DELETE", "/api/v1/admin/agent-keys/some-id", None),
]


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> str:
    """The response is the JSON error shape with this status (and code); returns the message."""
    where = f"{response.request.method} {response.request.url.path}"
    assert response.status_code == status, (where, response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error"}, (where, body)
    assert set(body["error"]) - {"fields"} == {"code", "message"}, (where, body)
    assert_fields_shape(body["error"], where)
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], (where, body)
    if code is not None:
        assert body["error"]["code"] == code, (where, body)
    message: str = body["error"]["message"]
    return message


def registration(
    name: str, workspaces: Sequence[tuple[str, str]] = (WORKSPACE,), platform: str = "test"
) -> dict[str, Any]:
    return {
        "name": name,
        "workspaces": [{"name": n, "path": p} for n, p in workspaces],
        "platform": platform,
    }


async def register(client: httpx.AsyncClient, name: str, **extra: Any) -> httpx.Response:
    return await client.post("/api/v1/agent/register", json=registration(name, **extra))


async def issue_agent_key(api: Api, lifecycle: str = "permanent", **extra: Any) -> dict[str, Any]:
    """`{key_id, key, lifecycle, expires_at}` of a new agent key."""
    admin = await api.admin()
    response = await admin.post("/api/v1/admin/agent-keys", json={"lifecycle": lifecycle, **extra})
    assert response.status_code == 201, response.text
    issued: dict[str, Any] = response.json()
    return issued


async def issue_user_key(
    human: httpx.AsyncClient, lifecycle: str = "permanent", **extra: Any
) -> dict[str, Any]:
    response = await human.post("/api/v1/me/keys", json={"lifecycle": lifecycle, **extra})
    assert response.status_code == 201, response.text
    issued: dict[str, Any] = response.json()
    return issued


def cookie_client(api: Api, token: str) -> httpx.AsyncClient:
    client = api.client()
    client.cookies.set(COOKIE, token)
    return client


async def call_all(
    client: httpx.AsyncClient, calls: list[tuple[str, str, dict[str, Any] | None]]
) -> list[tuple[str, str, httpx.Response]]:
    """Make every call (concurrently: they are independent); `(method, path, response)`."""
    responses = await asyncio.gather(
        *(client.request(method, path, json=body) for method, path, body in calls)
    )
    return [(method, path, r) for (method, path, _), r in zip(calls, responses, strict=True)]
