"""Auth boundaries (issue 2, point 4): logins, agent keys, user keys, lifecycles, revocation.

Every boundary of ARCHITECTURE.md "Data model" (keys) and "Interfaces (contract)"
is checked over HTTP against a real gateway, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.store.models import Base, Key, User
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api
from tests.support.sse import open_stream

COOKIE = "agentmail_session"
WORKSPACE = ("ModelRouter", "/home/u/ModelRouter")


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> str:
    """The response is the JSON error shape with this status (and code); returns the message."""
    where = f"{response.request.method} {response.request.url.path}"
    assert response.status_code == status, (where, response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error"}, (where, body)
    assert set(body["error"]) == {"code", "message"}, (where, body)
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


# --- web login --------------------------------------------------------------------------


async def test_first_start_created_the_admin_and_login_sets_an_httponly_cookie(api: Api) -> None:
    client = api.client()
    response = await client.post(
        "/api/v1/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
    )
    assert response.status_code == 200, response.text
    assert response.json()["user"]["name"] == "admin"
    assert response.json()["user"]["is_admin"] is True
    set_cookie = response.headers["set-cookie"]
    assert set_cookie.startswith(f"{COOKIE}="), set_cookie
    assert "httponly" in set_cookie.lower(), set_cookie
    assert client.cookies.get(COOKIE)

    me = await client.get("/api/v1/me")
    assert me.status_code == 200, me.text
    assert me.json()["user"]["name"] == "admin"
    assert me.json()["user"]["is_admin"] is True


async def test_wrong_password_and_unknown_user_look_the_same(api: Api) -> None:
    await api.human("jianf")
    client = api.client()
    wrong = await client.post(
        "/api/v1/auth/login", json={"username": "jianf", "password": "not-the-password"}
    )
    unknown = await client.post(
        "/api/v1/auth/login", json={"username": "nobody", "password": "not-the-password"}
    )
    wrong_message = assert_error(wrong, 401, "unauthorized")
    unknown_message = assert_error(unknown, 401, "unauthorized")
    assert wrong_message == unknown_message
    assert COOKIE not in wrong.headers.get("set-cookie", "")
    assert COOKIE not in unknown.headers.get("set-cookie", "")


async def test_logout_revokes_the_login_server_side(api: Api) -> None:
    human = await api.human("jianf")
    token = human.cookies.get(COOKIE)
    assert token
    assert (await human.get("/api/v1/me")).status_code == 200
    # A copy of the cookie works as long as the login lives.
    copy = cookie_client(api, token)
    assert (await copy.get("/api/v1/me")).status_code == 200

    response = await human.post("/api/v1/auth/logout")
    assert response.status_code == 200, response.text

    assert_error(await human.get("/api/v1/me"), 401, "unauthorized")
    # Replaying the old cookie value (a stolen or kept copy) no longer works either.
    assert_error(await copy.get("/api/v1/me"), 401, "unauthorized")
    assert_error(await api.client(token).get("/api/v1/me"), 401, "unauthorized")
    # The browser is told it is logged out, not that a "key" is bad (issue 11, item 20).
    after_logout = (await copy.get("/api/v1/me")).json()["error"]["message"]
    assert after_logout.startswith("not logged in"), after_logout
    as_key = (await api.client(token).get("/api/v1/me")).json()["error"]["message"]
    assert "key" in as_key
    # Logging in again gives a new, working login.
    again = await api.login("jianf", PASSWORD)
    assert (await again.get("/api/v1/me")).status_code == 200
    assert again.cookies.get(COOKIE) != token


# --- no or bad credentials --------------------------------------------------------------

PROTECTED: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/v1/me", None),
    ("POST", "/api/v1/auth/logout", None),
    ("GET", "/api/v1/me/mail/inbox", None),
    ("POST", "/api/v1/me/mail/send", {"to": "admin@", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/me/keys", None),
    ("POST", "/api/v1/me/keys", {"lifecycle": "permanent"}),
    ("POST", "/api/v1/me/permission/decide", {"mail_id": "x", "decision": "approve"}),
    ("GET", "/api/v1/me/sessions", None),
    ("GET", "/api/v1/admin/users", None),
    ("POST", "/api/v1/admin/users", {"name": "eve", "password": "password123"}),
    ("GET", "/api/v1/admin/agent-keys", None),
    ("POST", "/api/v1/admin/agent-keys", {"lifecycle": "permanent"}),
    ("DELETE", "/api/v1/admin/agent-keys/some-id", None),
    ("POST", "/api/v1/agent/register", registration("builder")),
    ("POST", "/api/v1/agent/heartbeat", None),
    ("GET", "/api/v1/agents", None),
    ("POST", "/api/v1/mail/send", {"to": "admin@", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/mail/inbox", None),
    ("POST", "/api/v1/permission/request", {"to": "admin@", "question": "q?"}),
    ("GET", "/api/v1/sessions", None),
    ("GET", "/api/v1/events/stream", None),
]


async def _call_all(
    client: httpx.AsyncClient, calls: list[tuple[str, str, dict[str, Any] | None]]
) -> list[tuple[str, str, httpx.Response]]:
    """Make every call (concurrently: they are independent); `(method, path, response)`."""
    responses = await asyncio.gather(
        *(client.request(method, path, json=body) for method, path, body in calls)
    )
    return [(method, path, r) for (method, path, _), r in zip(calls, responses, strict=True)]


async def test_no_credentials_is_401_everywhere_protected(api: Api) -> None:
    for method, path, response in await _call_all(api.client(), PROTECTED):
        assert_error(response, 401, "unauthorized")
        assert response.headers.get("www-authenticate") == "Bearer", (method, path)


async def test_garbage_credentials_are_401(api: Api) -> None:
    await api.agent("builder")  # there are real keys in the table
    for token in ("garbage", "amk_" + "x" * 43, "amu_" + secrets.token_urlsafe(32)):
        for method, path, response in await _call_all(api.client(token), PROTECTED):
            assert_error(response, 401, "unauthorized")
            assert response.headers.get("www-authenticate") == "Bearer", (method, path)
    garbage_cookie = cookie_client(api, "ams_" + secrets.token_urlsafe(32))
    assert_error(await garbage_cookie.get("/api/v1/me"), 401, "unauthorized")


# --- users and names --------------------------------------------------------------------


async def test_only_admins_create_users_and_agent_keys(api: Api) -> None:
    human = await api.human("jianf")
    new_user = {"name": "eve", "password": "password123", "is_admin": True}
    assert_error(await human.post("/api/v1/admin/users", json=new_user), 403, "forbidden")
    assert_error(await human.get("/api/v1/admin/users"), 403, "forbidden")
    assert_error(
        await human.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"}),
        403,
        "forbidden",
    )
    assert_error(await human.get("/api/v1/admin/agent-keys"), 403, "forbidden")
    # A user key of a non-admin is no better than the login.
    user_key = api.client(await api.user_key(human))
    assert_error(await user_key.post("/api/v1/admin/users", json=new_user), 403, "forbidden")

    admin = await api.admin()
    created = await admin.post("/api/v1/admin/users", json=new_user)
    assert created.status_code == 201, created.text
    assert created.json()["name"] == "eve" and created.json()["is_admin"] is True
    listed = await admin.get("/api/v1/admin/users")
    assert {u["name"] for u in listed.json()["users"]} == {"admin", "jianf", "eve"}
    # The new admin is one.
    eve = await api.login("eve", "password123")
    assert (await eve.post("/api/v1/admin/agent-keys", json={})).status_code == 201


async def test_duplicate_user_name_is_409(api: Api) -> None:
    await api.human("jianf")
    admin = await api.admin()
    for name in ("jianf", "JianF", "admin"):
        response = await admin.post(
            "/api/v1/admin/users", json={"name": name, "password": "password123"}
        )
        assert_error(response, 409, "name_taken")


async def test_concurrent_creation_of_one_user_name_one_wins(api: Api) -> None:
    """Admins racing to create one name: one 201, the others 409 (never a 500)."""
    admin = await api.admin()
    for name in ("jianf", "eve", "mallory"):
        user = {"name": name, "password": "password123"}
        responses = await asyncio.gather(
            *(admin.post("/api/v1/admin/users", json=user) for _ in range(8))
        )
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [201] + [409] * 7, [(r.status_code, r.text) for r in responses]
        for response in responses:
            if response.status_code != 201:
                assert_error(response, 409, "name_taken")


async def test_a_user_and_an_agent_racing_for_one_name_one_wins(api: Api) -> None:
    """A user created while an agent registers the same name: exactly one gets it."""
    admin = await api.admin()
    for n in range(5):
        name = f"racer{n}"
        agent = api.client(await api.agent_key())
        user, registered = await asyncio.gather(
            admin.post("/api/v1/admin/users", json={"name": name, "password": "password123"}),
            register(agent, name),
        )
        winners = (user.status_code == 201) + (registered.status_code == 200)
        assert winners == 1, (name, user.status_code, registered.status_code)
        loser = registered if user.status_code == 201 else user
        assert_error(loser, 409, "name_taken")


# --- what an agent key can and cannot do ------------------------------------------------


async def test_agent_key_does_the_agent_things(api: Api) -> None:
    human = await api.human("jianf")
    client = api.client(await api.agent_key())
    registered = await register(client, "builder")
    assert registered.status_code == 200, registered.text
    assert registered.json()["status"] == "registered"
    assert registered.json()["agent_key"] is None

    beat = await client.post("/api/v1/agent/heartbeat")
    assert beat.status_code == 200, beat.text
    assert beat.json()["pending_mails"] == 0

    async with open_stream(client) as stream:
        task = await human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "task", "body": "do it"},
        )
        assert task.status_code == 200, task.text
        pushed = await stream.next_of("new_mail")
        assert pushed.json["mail_id"] == task.json()["mail_id"]

    inbox = await client.get("/api/v1/mail/inbox")
    assert inbox.status_code == 200, inbox.text
    assert [m["mail_id"] for m in inbox.json()["mails"]] == [task.json()["mail_id"]]
    read = await client.get(f"/api/v1/mail/{task.json()['mail_id']}")
    assert read.status_code == 200 and read.json()["body"] == "do it"

    sent = await client.post(
        "/api/v1/mail/send",
        json={"to": "jianf@", "subject": "done", "body": "ok", "reply_to": task.json()["mail_id"]},
    )
    assert sent.status_code == 200, sent.text
    assert (await client.get("/api/v1/agents")).status_code == 200
    assert (await client.get("/api/v1/sessions")).status_code == 200


AGENT_FORBIDDEN: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/v1/me", None),
    ("POST", "/api/v1/auth/logout", None),
    ("GET", "/api/v1/me/mail/inbox", None),
    ("GET", "/api/v1/me/mail/sent", None),
    ("POST", "/api/v1/me/mail/send", {"to": "jianf@", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/me/keys", None),
    ("POST", "/api/v1/me/keys", {"lifecycle": "permanent"}),
    ("DELETE", "/api/v1/me/keys/some-id", None),
    ("POST", "/api/v1/me/permission/decide", {"mail_id": "x", "decision": "approve"}),
    ("GET", "/api/v1/me/sessions", None),
    ("GET", "/api/v1/admin/users", None),
    ("POST", "/api/v1/admin/users", {"name": "eve", "password": "password123"}),
    ("GET", "/api/v1/admin/agent-keys", None),
    ("POST", "/api/v1/admin/agent-keys", {"lifecycle": "permanent"}),
    ("DELETE", "/api/v1/admin/agent-keys/some-id", None),
    ("PATCH", "/api/v1/admin/agents/builder", {"default_budget": 5}),
]


async def test_agent_key_never_reaches_me_or_admin(api: Api) -> None:
    await api.human("jianf")
    bound = await api.agent("builder")
    unbound = api.client(await api.agent_key())
    enrolment = api.client(await api.agent_key("one_time"))
    for client in (bound, unbound, enrolment):
        for _method, _path, response in await _call_all(client, AGENT_FORBIDDEN):
            assert_error(response, 403, "forbidden")
    # The enrolment key was not used up by those refusals.
    assert (await register(enrolment, "other")).status_code == 200


# --- what a user key can and cannot do --------------------------------------------------


async def test_user_key_reaches_me(api: Api) -> None:
    human = await api.human("jianf")
    await api.agent("builder")
    client = api.client(await api.user_key(human))
    me = await client.get("/api/v1/me")
    assert me.status_code == 200 and me.json()["user"]["name"] == "jianf"
    sent = await client.post(
        "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": "s", "body": "b"}
    )
    assert sent.status_code == 200, sent.text
    assert (await client.get("/api/v1/me/mail/inbox")).status_code == 200
    outbox = await client.get("/api/v1/me/mail/sent")
    assert [m["mail_id"] for m in outbox.json()["mails"]] == [sent.json()["mail_id"]]
    assert (await client.get("/api/v1/me/keys")).status_code == 200
    async with open_stream(client):
        pass


USER_KEY_FORBIDDEN: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/api/v1/agent/register", registration("sneaky")),
    ("POST", "/api/v1/agent/heartbeat", None),
    ("POST", "/api/v1/mail/send", {"to": "builder@ModelRouter", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/mail/inbox", None),
    ("GET", "/api/v1/mail/sent", None),
    ("POST", "/api/v1/permission/request", {"to": "jianf@", "question": "q?"}),
]


async def test_user_key_never_acts_as_an_agent(api: Api) -> None:
    human = await api.human("jianf", is_admin=True)
    await api.agent("builder")
    for client in (api.client(await api.user_key(human)), human):
        for _method, _path, response in await _call_all(client, USER_KEY_FORBIDDEN):
            assert_error(response, 403, "forbidden")
    admin = await api.admin()
    agents = (await admin.get("/api/v1/agents")).json()["agents"]
    assert [a["agent_name"] for a in agents] == ["builder"]


# --- binding of agent keys to names -----------------------------------------------------


async def test_agent_key_is_bound_to_the_name_it_first_registers(api: Api) -> None:
    client = api.client(await api.agent_key())
    assert (await register(client, "builder")).status_code == 200

    again = await register(client, "Builder", workspaces=[WORKSPACE, ("infra", "/srv/infra")])
    assert again.status_code == 200, again.text
    assert [w["name"] for w in again.json()["agent"]["workspaces"]] == ["ModelRouter", "infra"]

    message = assert_error(await register(client, "other"), 403, "forbidden")
    assert "builder" in message

    fresh = api.client(await api.agent_key())
    assert_error(await register(fresh, "builder"), 409, "name_taken")
    # Nothing changed for the real builder.
    admin = await api.admin()
    [agent] = (await admin.get("/api/v1/agents")).json()["agents"]
    assert agent["agent_name"] == "builder"
    assert [w["name"] for w in agent["workspaces"]] == ["ModelRouter", "infra"]


async def test_unbound_agent_key_must_register_first(api: Api) -> None:
    await api.human("jianf")
    client = api.client(await api.agent_key())
    for response in (
        await client.post("/api/v1/agent/heartbeat"),
        await client.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "s", "body": "b"}),
        await client.get("/api/v1/mail/inbox"),
    ):
        message = assert_error(response, 403, "forbidden")
        assert "register first" in message


async def test_concurrent_first_registrations_of_one_name_one_wins(api: Api) -> None:
    """Several fresh keys race for one new name: one 200, the others 409 (never a 500)."""
    clients = [api.client(await api.agent_key()) for _ in range(6)]
    responses = await asyncio.gather(*(register(c, "builder") for c in clients))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * 5, [(r.status_code, r.text) for r in responses]
    for response in responses:
        if response.status_code != 200:
            assert_error(response, 409, "name_taken")


# --- enrolment (one-time agent) keys ----------------------------------------------------


async def test_enrolment_key_is_exchanged_for_a_permanent_key(api: Api) -> None:
    human = await api.human("jianf")
    enrolment_key = await api.agent_key("one_time")
    enrolment = api.client(enrolment_key)

    # Unused, it is good for nothing but register.
    assert_error(await enrolment.post("/api/v1/agent/heartbeat"), 403, "forbidden")
    assert_error(
        await enrolment.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "s"}),
        403,
        "forbidden",
    )
    assert_error(await enrolment.get("/api/v1/mail/inbox"), 403, "forbidden")
    assert_error(await enrolment.get("/api/v1/events/stream"), 403, "forbidden")
    assert_error(await enrolment.get("/api/v1/agents"), 403, "forbidden")

    # Refused for a taken name, it stays unused.
    await api.agent("taken")
    assert_error(await register(enrolment, "taken"), 409, "name_taken")

    registered = await register(enrolment, "builder")
    assert registered.status_code == 200, registered.text
    permanent_key = registered.json()["agent_key"]
    assert isinstance(permanent_key, str) and permanent_key != enrolment_key

    # The one-time key is dead, for register too.
    assert_error(await register(enrolment, "builder"), 401, "unauthorized")
    assert_error(await enrolment.post("/api/v1/agent/heartbeat"), 401, "unauthorized")

    # The permanent key is the agent's.
    agent = api.client(permanent_key)
    assert (await agent.post("/api/v1/agent/heartbeat")).status_code == 200
    sent = await agent.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "hi"})
    assert sent.status_code == 200, sent.text
    inbox = (await human.get("/api/v1/me/mail/inbox")).json()["mails"]
    assert [m["from"] for m in inbox] == ["builder@ModelRouter.hi"]
    assert (await register(agent, "builder")).json()["agent_key"] is None
    assert_error(await register(agent, "other"), 403, "forbidden")

    admin = await api.admin()
    listed = (await admin.get("/api/v1/admin/agent-keys")).json()["keys"]
    keys = {k["lifecycle"]: k for k in listed if k["owner"] == "builder"}
    assert keys["one_time"]["active"] is False
    assert keys["one_time"]["owner"] == "builder"
    assert keys["permanent"]["active"] is True
    assert keys["permanent"]["owner"] == "builder"


async def test_enrolment_key_enrols_once_even_when_raced(api: Api) -> None:
    """Two registrations racing with one enrolment key: only one permanent key comes out."""
    enrolment = api.client(await api.agent_key("one_time"))
    responses = await asyncio.gather(*(register(enrolment, f"agent{n}") for n in range(4)))
    ok = [r for r in responses if r.status_code == 200]
    assert len(ok) == 1, [(r.status_code, r.text) for r in responses]
    for response in responses:
        if response.status_code != 200:
            assert_error(response, 401, "unauthorized")
    admin = await api.admin()
    agents = (await admin.get("/api/v1/agents")).json()["agents"]
    assert len(agents) == 1


# --- one-time user keys -----------------------------------------------------------------


async def test_one_time_user_key_serves_exactly_one_request(api: Api) -> None:
    human = await api.human("jianf")
    client = api.client(await api.user_key(human, "one_time"))
    assert (await client.get("/api/v1/me")).status_code == 200
    assert_error(await client.get("/api/v1/me"), 401, "unauthorized")
    assert_error(await client.get("/api/v1/me/mail/inbox"), 401, "unauthorized")


async def test_one_time_user_key_serves_one_of_concurrent_requests(api: Api) -> None:
    human = await api.human("jianf")
    client = api.client(await api.user_key(human, "one_time"))
    responses = await asyncio.gather(*(client.get("/api/v1/me") for _ in range(5)))
    assert sorted(r.status_code for r in responses) == [200, 401, 401, 401, 401]


# --- timed keys -------------------------------------------------------------------------


async def test_timed_keys_need_expires_in(api: Api) -> None:
    human = await api.human("jianf")
    admin = await api.admin()
    for client, path in ((admin, "/api/v1/admin/agent-keys"), (human, "/api/v1/me/keys")):
        message = assert_error(
            await client.post(path, json={"lifecycle": "timed"}), 422, "invalid_request"
        )
        assert "expires_in" in message
        for bad in ("soon", 0, -5, "1y", ""):
            response = await client.post(path, json={"lifecycle": "timed", "expires_in": bad})
            assert_error(response, 422, "invalid_request")


async def test_timed_keys_stop_working_when_they_expire(api: Api) -> None:
    human = await api.human("jianf")
    agent = api.client((await issue_agent_key(api, "timed", expires_in=1))["key"])
    user = api.client((await issue_user_key(human, "timed", expires_in=1))["key"])
    assert (await register(agent, "builder")).status_code == 200
    assert (await user.get("/api/v1/me")).status_code == 200

    await asyncio.sleep(1.2)
    assert_error(await agent.post("/api/v1/agent/heartbeat"), 401, "unauthorized")
    assert_error(await user.get("/api/v1/me"), 401, "unauthorized")


async def test_expires_in_accepts_text(api: Api) -> None:
    human = await api.human("jianf")
    for issued in (
        await issue_agent_key(api, "timed", expires_in="1h"),
        await issue_user_key(human, "timed", expires_in="1h"),
        await issue_user_key(human, "timed", expires_in=3600),
    ):
        assert issued["lifecycle"] == "timed"
        expires_at = datetime.fromisoformat(issued["expires_at"])
        ahead = expires_at - datetime.now(UTC)
        assert timedelta(minutes=59) < ahead <= timedelta(hours=1), ahead
    permanent = await issue_user_key(human)
    assert permanent["expires_at"] is None


# --- revocation -------------------------------------------------------------------------


async def test_admin_revokes_an_agent_key_at_once(api: Api) -> None:
    issued = await issue_agent_key(api)
    agent = api.client(issued["key"])
    assert (await register(agent, "builder")).status_code == 200
    admin = await api.admin()
    async with open_stream(agent):
        revoked = await admin.delete(f"/api/v1/admin/agent-keys/{issued['key_id']}")
        assert revoked.status_code == 200, revoked.text
        assert_error(await agent.post("/api/v1/agent/heartbeat"), 401, "unauthorized")
    assert_error(await agent.get("/api/v1/mail/inbox"), 401, "unauthorized")
    assert_error(await register(agent, "builder"), 401, "unauthorized")
    listed = (await admin.get("/api/v1/admin/agent-keys")).json()["keys"]
    [view] = [k for k in listed if k["key_id"] == issued["key_id"]]
    assert view["active"] is False and view["revoked_at"] is not None
    assert_error(await admin.delete("/api/v1/admin/agent-keys/no-such-key"), 404, "not_found")


async def test_user_revokes_own_key_but_not_anothers(api: Api) -> None:
    jianf = await api.human("jianf")
    other = await api.human("other")
    mine = await issue_user_key(jianf)
    theirs = await issue_user_key(other)
    their_client = api.client(theirs["key"])

    assert_error(await jianf.delete(f"/api/v1/me/keys/{theirs['key_id']}"), 404, "not_found")
    assert (await their_client.get("/api/v1/me")).status_code == 200
    # Nor through the admin endpoint for agent keys, nor an agent key through /me/keys.
    admin = await api.admin()
    assert_error(await admin.delete(f"/api/v1/admin/agent-keys/{theirs['key_id']}"), 404)
    agent_key = await issue_agent_key(api)
    assert_error(await jianf.delete(f"/api/v1/me/keys/{agent_key['key_id']}"), 404, "not_found")
    assert_error(await admin.delete(f"/api/v1/me/keys/{agent_key['key_id']}"), 404, "not_found")
    assert (await register(api.client(agent_key["key"]), "builder")).status_code == 200

    my_client = api.client(mine["key"])
    assert (await my_client.get("/api/v1/me")).status_code == 200
    revoked = await jianf.delete(f"/api/v1/me/keys/{mine['key_id']}")
    assert revoked.status_code == 200, revoked.text
    assert_error(await my_client.get("/api/v1/me"), 401, "unauthorized")
    assert (await their_client.get("/api/v1/me")).status_code == 200
    # The login that issued it is unaffected.
    assert (await jianf.get("/api/v1/me")).status_code == 200


# --- client-generated agent keys --------------------------------------------------------


async def test_client_generated_agent_key(api: Api) -> None:
    key = "client-" + secrets.token_hex(24)
    issued = await issue_agent_key(api, key=key, label="my laptop")
    assert issued["key"] is None
    assert key not in str(issued)
    client = api.client(key)
    assert (await register(client, "builder")).status_code == 200
    assert (await client.post("/api/v1/agent/heartbeat")).status_code == 200

    admin = await api.admin()
    too_short = await admin.post(
        "/api/v1/admin/agent-keys", json={"lifecycle": "permanent", "key": "x" * 31}
    )
    assert_error(too_short, 422, "invalid_request")
    assert_error(await api.client("x" * 31).post("/api/v1/agent/heartbeat"), 401)
    # The same key cannot be registered twice.
    duplicate = await admin.post("/api/v1/admin/agent-keys", json={"key": key})
    assert duplicate.status_code in (409, 422), duplicate.text
    assert_error(duplicate, duplicate.status_code)


# --- storage of secrets -----------------------------------------------------------------


async def _all_stored_text(api: Api) -> list[str]:
    """Every value in every table of the store, as text."""
    store = api.gateway.store
    assert store is not None
    values: list[str] = []

    def read_all(session: Session) -> None:
        for table in Base.metadata.sorted_tables:
            for row in session.execute(select(table)).all():
                for value in row:
                    if isinstance(value, bytes):
                        values.append(value.decode("utf-8", "replace"))
                    elif value is not None:
                        values.append(str(value))

    await store.read(read_all)
    return values


async def test_keys_and_passwords_are_stored_only_as_hashes(api: Api) -> None:
    human = await api.human("jianf")
    login_token = human.cookies.get(COOKIE)
    assert login_token
    client_key = "client-" + secrets.token_hex(24)
    issued_keys = [
        (await issue_agent_key(api))["key"],
        (await issue_agent_key(api, "one_time"))["key"],
        (await issue_agent_key(api, "timed", expires_in="1h"))["key"],
        (await issue_user_key(human))["key"],
        (await issue_user_key(human, "one_time"))["key"],
        login_token,
    ]
    assert (await issue_agent_key(api, key=client_key))["key"] is None
    enrolled = await register(api.client(issued_keys[1]), "builder")
    issued_keys.append(enrolled.json()["agent_key"])
    issued_keys.append(client_key)
    assert all(issued_keys)

    stored = await _all_stored_text(api)
    for key in issued_keys:
        assert not any(key in value for value in stored), "a plaintext key is stored"
        for password in (PASSWORD, ADMIN_PASSWORD):
            assert not any(password in value for value in stored), "a plaintext password"

    store = api.gateway.store
    assert store is not None
    digests = set(await store.read(lambda s: s.scalars(select(Key.token_sha256)).all()))
    users = {u.name: u for u in await store.read(lambda s: s.scalars(select(User)).all())}
    for key in issued_keys:
        assert hashlib.sha256(key.encode()).hexdigest() in digests
    for user in users.values():
        assert re.fullmatch(r"\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}", user.password_hash), user.name


async def test_key_listings_never_show_the_key(api: Api) -> None:
    human = await api.human("jianf")
    agent_keys = [(await issue_agent_key(api, lc))["key"] for lc in ("permanent", "one_time")]
    user_keys = [(await issue_user_key(human, lc))["key"] for lc in ("permanent", "one_time")]
    admin = await api.admin()
    admin_list = await admin.get("/api/v1/admin/agent-keys")
    my_list = await human.get("/api/v1/me/keys")
    assert admin_list.status_code == 200 and my_list.status_code == 200
    assert len(admin_list.json()["keys"]) == 2
    assert len(my_list.json()["keys"]) == 2
    for key in agent_keys + user_keys:
        assert key not in admin_list.text
        assert key not in my_list.text
    for view in admin_list.json()["keys"] + my_list.json()["keys"]:
        assert "key" not in view and "token_sha256" not in view
    # A user sees only their own keys.
    other = await api.human("other")
    assert (await other.get("/api/v1/me/keys")).json()["keys"] == []
