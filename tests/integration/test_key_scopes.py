"""Auth boundaries: what each kind of key reaches.

An agent key does the agent's things and never reaches /me or /admin; a user key
reaches /me and never acts as an agent; an agent key is bound to the name it first
registers. Over HTTP against a real gateway, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.credentials import (
    ADMIN_CALLS,
    WORKSPACE,
    assert_error,
    call_all,
    register,
    registration,
)
from tests.support.gateway import Api
from tests.support.sse import open_stream

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
    *ADMIN_CALLS,
    ("PATCH", "/api/v1/admin/agents/builder", {"default_budget": 5}),
]


async def test_agent_key_never_reaches_me_or_admin(api: Api) -> None:
    await api.human("jianf")
    bound = await api.agent("builder")
    unbound = api.client(await api.agent_key())
    enrolment = api.client(await api.agent_key("one_time"))
    for client in (bound, unbound, enrolment):
        for _method, _path, response in await call_all(client, AGENT_FORBIDDEN):
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
        for _method, _path, response in await call_all(client, USER_KEY_FORBIDDEN):
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
