"""An agent's question makes its conversation `waiting` until a human writes in it
(both databases), as an open permission request does."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

DECIDE = "/api/v1/me/permission/decide"


async def status_of(client: httpx.AsyncClient, session_id: str) -> str:
    status: str = ok(await client.get(f"/api/v1/sessions/{session_id}"))["session"]["status"]
    return status


async def say(client: httpx.AsyncClient, url: str, reply_to: str, **body: Any) -> dict[str, Any]:
    to = "jianf@" if url == AGENT_SEND else "builder@ModelRouter"
    return ok(await client.post(url, json={"to": to, "reply_to": reply_to, **body}))


async def test_a_question_waits_for_a_human_answer(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    await api.agent("helper")
    task = ok(
        await jianf.post(
            HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "t", "session_alias": "q"}
        )
    )
    conv = task["session_id"]
    assert await status_of(jianf, conv) == "active"
    question = await say(
        builder, AGENT_SEND, task["mail_id"], body="Which port?", mail_type="question"
    )
    assert await status_of(jianf, conv) == "waiting"
    waiting = ok(await jianf.get("/api/v1/me/sessions", params={"status": "waiting"}))
    assert [s["session_id"] for s in waiting["sessions"]] == [conv]
    assert ok(await jianf.get(f"/api/v1/me/mail/{question['mail_id']}"))["mail_type"] == "question"
    # More agent mail is no answer.
    await say(builder, AGENT_SEND, question["mail_id"], body="(still wondering)")
    assert await status_of(jianf, conv) == "waiting"
    answer = await say(jianf, HUMAN_SEND, question["mail_id"], body="8180")
    assert await status_of(jianf, conv) == "active"
    # A later normal agent mail keeps it active; a new question waits again.
    await say(builder, AGENT_SEND, answer["mail_id"], body="thanks")
    assert await status_of(jianf, conv) == "active"
    again = await say(
        builder, AGENT_SEND, answer["mail_id"], body="And the host?", mail_type="question"
    )
    assert await status_of(jianf, conv) == "waiting"
    # Closed by the human, reopened by the next question.
    await say(jianf, HUMAN_SEND, again["mail_id"], body="localhost")
    patch = await jianf.patch(f"/api/v1/me/sessions/{conv}", json={"status": "completed"})
    assert ok(patch)["status"] == "completed"
    await say(builder, AGENT_SEND, again["mail_id"], body="One more?", mail_type="question")
    assert await status_of(jianf, conv) == "waiting"


async def test_an_answered_question_still_waits_on_an_open_permission_request(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(
        await jianf.post(
            HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "t", "session_alias": "qp"}
        )
    )
    conv = task["session_id"]
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "May I deploy?", "session_id": conv},
        )
    )
    question = await say(builder, AGENT_SEND, task["mail_id"], body="Now?", mail_type="question")
    await say(jianf, HUMAN_SEND, question["mail_id"], body="yes, now")
    assert await status_of(jianf, conv) == "waiting"  # the request is still open
    ok(await jianf.post(DECIDE, json={"mail_id": asked["mail_id"], "decision": "approve"}))
    assert await status_of(jianf, conv) == "active"
    # A decision does not answer a question: a new one keeps it waiting after deciding.
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "And restart?", "session_id": conv},
        )
    )
    await say(builder, AGENT_SEND, task["mail_id"], body="Which host?", mail_type="question")
    ok(await jianf.post(DECIDE, json={"mail_id": asked["mail_id"], "decision": "approve"}))
    assert await status_of(jianf, conv) == "waiting"
