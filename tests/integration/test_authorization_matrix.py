"""Security issue, hole 13: the authorization matrix, generated from the route table.

Every REST endpoint the application answers, with every kind of caller
(tests/support/identities.py) → the status its policy in api/policies.py
implies; a route without a declared policy fails. The same callers against
SMTP (AUTH, MAIL FROM, RCPT) and IMAP (LOGIN, SELECT) follow. One gateway on
SQLite for the whole module (the participant rules themselves are tested on both
backends in test_conversation_access*.py); the size is printed in the summary.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI

from api.app import create_app
from api.policies import POLICIES, Policy, Route, routes, stale, undeclared
from tests.support.identities import Identity, World, matrix_world
from tests.support.summary import note

pytestmark = pytest.mark.asyncio(loop_scope="module")

V1 = "/api/v1"
PASS = None  # the policy lets it through: any answer but 401/403 (and 404 for a participant)
PARTICIPANT_POLICIES = {"participant", "agent_participant", "human_participant", "owner"}
ALLOWED_KINDS: dict[Policy, set[str]] = {
    "authenticated": {"human", "agent"},
    "agent_key": {"agent", "unbound"},
    "agent": {"agent"},
    "agent_participant": {"agent"},
    "human": {"human"},
    "human_participant": {"human"},
    "owner": {"human"},
    "admin": {"human"},
    "participant": {"human", "agent"},
    "nobody": set(),
}
# Bodies that pass validation, so an outsider gets as far as the check that refuses it.
BODIES: dict[str, dict[str, Any]] = {
    "/forward": {"to": "carol@"},
    "/sessions/{session_id}": {"subject": "matrix"},
    "/sync": {"title": "matrix"},
    "/drafts/{draft_id}": {"subject": "matrix"},
    "/me/folders": {"name": "matrix"},
    "/me/folders/{folder_id}": {"name": "matrix renamed"},
    "/webhooks": {"url": "http://127.0.0.1:9/hooks/matrix"},
    "/verify": {"code": "000000"},
}
# Routes that use up what they act on: each request gets a new one.
CONSUMING = {
    ("DELETE", f"{V1}/me/drafts/{{draft_id}}"),
    ("POST", f"{V1}/me/drafts/{{draft_id}}/send"),
    ("DELETE", f"{V1}/me/folders/{{folder_id}}"),
    ("DELETE", f"{V1}/me/push/subscriptions/{{subscription_id}}"),
    ("DELETE", f"{V1}/me/webhooks/{{webhook_id}}"),
    ("DELETE", f"{V1}/me/external-addresses/{{address_id}}"),
}


def expected(policy: Policy, who: Identity) -> int | None:
    if policy in ("anonymous", "metrics"):  # the matrix calls from loopback: metrics are open
        return PASS
    if who.kind == "invalid":
        return 401
    if who.kind not in ALLOWED_KINDS[policy] or (policy == "admin" and not who.admin):
        return 403
    if policy in PARTICIPANT_POLICIES and not who.participant:
        return 404
    return PASS


def agrees(policy: Policy, who: Identity, status: int) -> bool:
    want = expected(policy, who)
    if want is not None:
        return status == want
    refused = {401, 403, 404} if policy in PARTICIPANT_POLICIES else {401, 403}
    return status < 500 and status not in refused


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    async with matrix_world(tmp_path_factory.mktemp("matrix")) as built:
        yield built


def _app(world: World) -> FastAPI:
    """The application exactly as the gateway serves it (built the same way)."""
    gateway = world.api.gateway
    assert gateway.store is not None
    return create_app(gateway.settings, gateway.store)


# A path naming something that belongs to someone (a conversation, a mail, a file, a
# draft, one's own key) must say that only they reach it.
OWNED = re.compile(
    r"\{(session_id|mail_id|attachment_id|draft_id|proposal_id|folder_id|subscription_id)\}"
    r"|/me/keys/|/me/webhooks/|/me/external-addresses/"
)


async def test_every_route_declares_a_policy(world: World) -> None:
    app = _app(world)
    assert undeclared(app) == [], "declare who may call these in api/policies.py"
    assert stale(app) == [], "these routes are gone: remove them from api/policies.py"
    loose = [
        route
        for route, policy in POLICIES.items()
        if OWNED.search(route[1]) and policy not in PARTICIPANT_POLICIES | {"nobody"}
    ]
    assert loose == [], "these routes name someone's things: give them a participant policy"


async def test_a_new_route_without_a_policy_is_found(world: World) -> None:
    app = _app(world)

    @app.get(f"{V1}/me/secrets")
    async def secrets() -> dict[str, str]:
        return {}

    assert undeclared(app) == [("GET", f"{V1}/me/secrets")]


async def _url(world: World, route: Route) -> str:
    path = route[1]
    side = "human" if path.startswith(f"{V1}/me/") else "agent"
    values = {
        "session_id": world.session_id,
        "mail_id": world.mail_for[side],
        "attachment_id": world.attachment_for[side],
        "draft_id": world.draft_id,
        "folder_id": world.folder_id,
        "key_id": world.agent_key_id if "/admin/" in path else world.user_key_id,
        "name": "builder",
        "webhook_id": world.webhook_id,
    }
    if route in CONSUMING and "{draft_id}" in path:
        values["draft_id"] = await world.fresh_draft()
    if route in CONSUMING and "{folder_id}" in path:
        values["folder_id"] = await world.fresh_folder()
    if "{login_id}" in path:
        values["login_id"] = await world.fresh_login()
    if "{subscription_id}" in path:
        values["subscription_id"] = await world.fresh_push_subscription()
    if route in CONSUMING and "{webhook_id}" in path:
        values["webhook_id"] = await world.fresh_webhook()
    if "{address_id}" in path:
        values["address_id"] = await world.fresh_external_address()
    if "{proposal_id}" in path:
        values["proposal_id"] = await world.fresh_proposal()
    missing = set(re.findall(r"\{(\w+)\}", path)) - set(values)
    assert not missing, f"{path}: the matrix needs a value for {missing}: add it in _url"
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


def _body(world: World, method: str, path: str) -> dict[str, Any] | None:
    if method not in ("POST", "PUT", "PATCH"):
        return None
    if path.endswith("/file"):
        return {"folder_id": world.folder_id}
    if path.endswith("/replay"):
        return {"event_id": world.webhook_event_id}
    return next((body for end, body in BODIES.items() if path.endswith(end)), {})


async def _client(world: World, route: Route, who: Identity) -> httpx.AsyncClient:
    """Logging out ends a web login: that request gets a login of its own."""
    if route == ("POST", f"{V1}/auth/logout") and who.cookie:
        return await world.api.login(who.login, who.secret)
    return who.client


async def _status(client: httpx.AsyncClient, method: str, url: str, body: Any) -> tuple[int, str]:
    if "/events/" not in url:
        response = await client.request(method, url, json=body)
        return response.status_code, response.text[:200]
    # The SSE stream answers its status and goes on forever: closed unread.
    async with client.stream(method, url, json=body) as streamed:
        return streamed.status_code, ""


async def test_rest_matrix(world: World) -> None:
    table = sorted(set(routes(_app(world))) & set(POLICIES))
    wrong = []
    for route in table:
        method, path = route
        policy = POLICIES[route]
        for who in world.identities:
            url = await _url(world, route)
            status, text = await _status(
                await _client(world, route, who), method, url, _body(world, *route)
            )
            if not agrees(policy, who, status):
                want = expected(policy, who) or "allowed"
                wrong.append(
                    f"{method} {path} [{policy}] as {who.label}: {status}, want {want}: {text}"
                )
    size = len(table) * len(world.identities)
    shape = f"{len(table)} endpoints x {len(world.identities)} identities = {size} requests"
    note(f"authorization matrix (REST): {shape}")
    assert wrong == [], "\n".join(wrong)
