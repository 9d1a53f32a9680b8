"""The client SDK (bridges/client) against a real gateway, both DBs: every call of
the agent API, idempotent sends, permission waits and the gateway's refusals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from bridges.client import AgentClient, GatewayError
from tests.support.gateway import Api
from tests.support.http import HUMAN_SEND, ok

WORKSPACES = [{"name": "ModelRouter", "path": "/home/u/ModelRouter"}]


@pytest.fixture
async def builder(api: Api) -> AsyncIterator[AgentClient]:
    async with AgentClient(api.base_url, await api.agent_key()) as client:
        await client.register("builder", WORKSPACES, platform="stub")
        yield client


async def _task(human: httpx.AsyncClient, subject: str = "a task") -> dict[str, str]:
    return ok(await human.post(HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": subject}))


async def test_the_agent_api_round_trip(api: Api, builder: AgentClient) -> None:
    human = await api.human("jianf")
    task = await _task(human)
    beat = await builder.heartbeat()
    assert beat.pending_mails == 1 and beat.sessions[0].session_id == task["session_id"]

    inbox = await builder.inbox()
    assert [m.mail_id for m in inbox.mails] == [task["mail_id"]]
    mail = await builder.read(task["mail_id"])
    assert mail.from_ == "jianf@.a-task" and mail.to_workspace is not None
    assert mail.to_workspace.path == "/home/u/ModelRouter"
    await builder.mark_read(task["mail_id"])
    assert (await builder.inbox()).total == 0

    upload = await builder.upload_attachment(b"report\n", "report.txt", "text/plain")
    reply = await builder.send(
        "jianf@",
        "done, see the report",
        reply_to=task["mail_id"],
        attachment_ids=[upload.attachment_id],
        mail_type="final_summary",
    )
    assert reply.session_id == task["session_id"] and not reply.replayed
    assert await builder.download_attachment(upload.attachment_id) == b"report\n"

    thread = await builder.thread(reply.mail_id)
    assert [m.mail_id for m in thread.mails] == [task["mail_id"], reply.mail_id]
    detail = await builder.session(task["session_id"])
    assert len(detail.mails) == 2
    people = await builder.participants(task["session_id"])
    assert {p["name"] for p in people.participants} == {"jianf", "builder"}
    assert any(c.name == "jianf" for c in await builder.contacts())
    assert any(c.address.startswith("jianf@") for c in await builder.suggest("jian"))
    synced = await builder.sync_session(
        task["session_id"], session_alias="fix-login", title="Fix the login"
    )
    assert (synced.session_alias, synced.subject) == ("fix-login", "Fix the login")

    await api.agent("helper")
    forwarded = await builder.forward(task["mail_id"], "helper@", "FYI")
    assert forwarded.session_id != task["session_id"]


async def test_a_send_under_one_key_is_made_once(api: Api, builder: AgentClient) -> None:
    human = await api.human("jianf")
    task = await _task(human)
    first = await builder.send("jianf@", "done", reply_to=task["mail_id"], idempotency_key="t-1")
    again = await builder.send("jianf@", "done", reply_to=task["mail_id"], idempotency_key="t-1")
    assert again.mail_id == first.mail_id and again.replayed and not first.replayed
    with pytest.raises(GatewayError) as refused:
        await builder.send("jianf@", "other", reply_to=task["mail_id"], idempotency_key="t-1")
    assert refused.value.code == "idempotency_key_reused" and refused.value.status == 422


async def test_refusals_carry_the_gateway_code(builder: AgentClient) -> None:
    with pytest.raises(GatewayError) as refused:
        await builder.send("nobody@", "hello")
    assert (refused.value.status, refused.value.code) == (422, "unknown_recipient")
    with pytest.raises(GatewayError) as missing:
        await builder.read("00000000-0000-0000-0000-000000000000")
    assert missing.value.code == "not_found"


async def test_a_permission_is_asked_and_waited_for(api: Api, builder: AgentClient) -> None:
    human = await api.human("jianf")
    task = await _task(human)
    asked = await builder.request_permission(
        "jianf@",
        "May I run touch done.txt?",
        session_id=task["session_id"],
        action="touch done.txt",
        options=["approve once", "always allow", "reject"],
        expires_in="1h",
    )
    waiting = asyncio.create_task(builder.wait_for_decision(asked.mail_id, poll=0.05))
    decided = await human.post(
        "/api/v1/me/permission/decide",
        json={"mail_id": asked.mail_id, "decision": "always allow", "note": "fine"},
    )
    assert decided.status_code == 200, decided.text
    async with asyncio.timeout(10):
        mail = await waiting
    assert (mail.permission_state, mail.decision, mail.decision_note) == (
        "decided",
        "always allow",
        "fine",
    )
    assert mail.action == "touch done.txt" and mail.action_sha256
