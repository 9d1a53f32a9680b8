"""`Idempotency-Key` on `/mail/send` and `/permission/request`, both DBs:
the same key again answers the first result and stores nothing new."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import update
from sqlalchemy.orm import Session

from core.store.models import IdempotencyRecord, utcnow
from tests.support.gateway import Api
from tests.support.http import AGENT_MAIL, AGENT_SEND, HUMAN_SEND, ok, refused

REQUEST = "/api/v1/permission/request"
REPLAYED = "Idempotent-Replayed"


async def _task(api: Api) -> tuple[httpx.AsyncClient, httpx.AsyncClient, dict[str, Any]]:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(
        await human.post(
            HUMAN_SEND, json={"to": "builder@ModelRouter", "subject": "a task", "budget": 5}
        )
    )
    return human, builder, task


def _reply(task: dict[str, Any], body: str = "done") -> dict[str, Any]:
    return {"to": "jianf@", "reply_to": task["mail_id"], "body": body}


async def _sent_count(agent: httpx.AsyncClient) -> int:
    total: int = ok(await agent.get(f"{AGENT_MAIL}/sent"))["total"]
    return total


async def test_the_same_key_answers_the_first_result_and_stores_nothing_new(api: Api) -> None:
    human, builder, task = await _task(api)
    headers = {"Idempotency-Key": "reply-1"}
    first = await builder.post(AGENT_SEND, json=_reply(task), headers=headers)
    second = await builder.post(AGENT_SEND, json=_reply(task), headers=headers)
    assert first.status_code == second.status_code == 200
    assert second.json() == first.json()
    assert REPLAYED not in first.headers and second.headers[REPLAYED] == "true"
    assert await _sent_count(builder) == 1
    assert first.json()["budget_used"] == 1  # one round, not two
    session = ok(await human.get(f"/api/v1/me/sessions/{task['session_id']}"))
    assert session["session"]["budget_used"] == 1
    assert len(session["mails"]) == 2  # the task and one reply


async def test_a_key_reused_with_another_request_is_refused(api: Api) -> None:
    _, builder, task = await _task(api)
    headers = {"Idempotency-Key": "reply-1"}
    ok(await builder.post(AGENT_SEND, json=_reply(task), headers=headers))
    message = refused(
        await builder.post(AGENT_SEND, json=_reply(task, "other"), headers=headers),
        422,
        "idempotency_key_reused",
    )
    assert "reply-1" in message
    assert await _sent_count(builder) == 1


async def test_equal_requests_match_whatever_their_json_spelling(api: Api) -> None:
    _, builder, task = await _task(api)
    headers = {"Idempotency-Key": "k", "Content-Type": "application/json"}
    ok(await builder.post(AGENT_SEND, json=_reply(task), headers=headers))
    reply_to = task["mail_id"]
    spelled = f'{{"body": "done", "cc": [], "reply_to": "{reply_to}", "to": "jianf@", "x": 1}}'
    again = await builder.post(AGENT_SEND, content=spelled, headers=headers)
    assert again.status_code == 200 and again.headers[REPLAYED] == "true"


async def test_keys_are_per_caller_and_per_endpoint(api: Api) -> None:
    human, builder, task = await _task(api)
    helper = await api.agent("helper")
    other = ok(
        await human.post(HUMAN_SEND, json={"to": "helper@ModelRouter", "subject": "another"})
    )
    headers = {"Idempotency-Key": "shared"}
    mine = ok(await builder.post(AGENT_SEND, json=_reply(task), headers=headers))
    theirs = ok(await helper.post(AGENT_SEND, json=_reply(other), headers=headers))
    assert mine["mail_id"] != theirs["mail_id"]
    asked = await builder.post(
        REQUEST,
        json={"to": "jianf@", "question": "May I?", "session_id": task["session_id"]},
        headers=headers,
    )
    assert asked.status_code == 200 and REPLAYED not in asked.headers
    assert asked.json()["mail_id"] != mine["mail_id"]


async def test_a_refused_write_keeps_no_key(api: Api) -> None:
    _, builder, task = await _task(api)
    headers = {"Idempotency-Key": "try"}
    refused(
        await builder.post(AGENT_SEND, json={"to": "nobody@", "body": "x"}, headers=headers),
        422,
        "unknown_recipient",
    )
    # Not `idempotency_key_reused`: the failed write left no record behind.
    sent = await builder.post(AGENT_SEND, json=_reply(task), headers=headers)
    assert sent.status_code == 200 and REPLAYED not in sent.headers


async def test_a_key_older_than_a_day_is_forgotten(api: Api) -> None:
    _, builder, task = await _task(api)
    headers = {"Idempotency-Key": "old"}
    first = ok(await builder.post(AGENT_SEND, json=_reply(task), headers=headers))

    def age(session: Session) -> None:
        session.execute(update(IdempotencyRecord).values(created_at=utcnow() - timedelta(hours=25)))

    store = api.gateway.store
    assert store is not None
    await store.write(age)
    again = await builder.post(AGENT_SEND, json=_reply(task), headers=headers)
    assert again.status_code == 200 and REPLAYED not in again.headers
    assert again.json()["mail_id"] != first["mail_id"]
    assert await _sent_count(builder) == 2


async def test_key_limits(api: Api) -> None:
    _, builder, task = await _task(api)
    for bad in ("x" * 256, "", b"caf\xe9"):  # HTTP itself trims spaces (RFC 9110 §5.5)
        response = await builder.post(
            AGENT_SEND, json=_reply(task), headers={"Idempotency-Key": bad}
        )
        assert response.status_code == 422, (bad, response.text)
        assert "Idempotency-Key" in response.text
    longest = await builder.post(
        AGENT_SEND, json=_reply(task), headers={"Idempotency-Key": "~" * 255}
    )
    assert longest.status_code == 200
    assert await _sent_count(builder) == 1


async def test_concurrent_requests_with_one_key_write_once(api: Api) -> None:
    _, builder, task = await _task(api)
    headers = {"Idempotency-Key": "race"}
    answers = await asyncio.gather(
        *(builder.post(AGENT_SEND, json=_reply(task), headers=headers) for _ in range(12))
    )
    assert {response.status_code for response in answers} == {200}
    assert len({response.json()["mail_id"] for response in answers}) == 1
    assert sum(REPLAYED not in response.headers for response in answers) == 1
    assert await _sent_count(builder) == 1


async def test_a_permission_request_is_made_once(api: Api) -> None:
    human, builder, task = await _task(api)
    body = {
        "to": "jianf@",
        "question": "May I run touch done.txt?",
        "session_id": task["session_id"],
        "action": "touch done.txt",
        "expires_in": "1h",
    }
    headers = {"Idempotency-Key": "perm-1"}
    answers = await asyncio.gather(
        *(builder.post(REQUEST, json=body, headers=headers) for _ in range(6))
    )
    assert len({ok(response)["mail_id"] for response in answers}) == 1
    listed = ok(await human.get("/api/v1/me/permissions", params={"state": "open"}))
    assert listed["total"] == 1
    refused(
        await builder.post(REQUEST, json={**body, "action": "rm -rf /"}, headers=headers),
        422,
        "idempotency_key_reused",
    )
