"""Decisions racing each other: the web button, replies by mail and the expiry sweep.

A full CI run once hit a PostgreSQL deadlock between an SMTP reply deciding an
expired request and the expiry sweep: the reply locked the conversation and then
the request, the sweep the request and then the conversation. Every path now locks
the conversation first (core/approvals/permissions.py), and a write that still
meets a deadlock or serialization failure is run again (core/store/engine.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiosmtplib
import httpx

from core.approvals.permissions import expire_permission_requests
from tests.support.gateway import PASSWORD, Api
from tests.support.http import HUMAN_MAIL, ok
from tests.support.smtp import D, reply_by_mail, session

REQUEST = "/api/v1/permission/request"
DECIDE = "/api/v1/me/permission/decide"
REQUESTS = 50
SWEEPS = 25


async def _requests(api: Api, human: httpx.AsyncClient) -> list[dict[str, Any]]:
    builder = await api.agent("builder")
    task = ok(
        await human.post(
            "/api/v1/me/mail/send",
            json={
                "to": "builder@ModelRouter",
                "subject": "a race",
                "session_alias": "race",
                "budget": "unlimited",
            },
        )
    )
    asked = []
    for number in range(REQUESTS):
        body: dict[str, Any] = {
            "to": "jianf@",
            "question": f"May I take step {number}?",
            "options": ["approve", "reject"],
            "session_id": task["session_id"],
        }
        if number % 2:
            body["expires_in"] = 1  # expires while the decisions race
        asked.append(ok(await builder.post(REQUEST, json=body)))
    return [ok(await human.get(f"{HUMAN_MAIL}/{a['mail_id']}")) for a in asked]


async def _decide_by_button(human: httpx.AsyncClient, request: dict[str, Any]) -> int:
    response = await human.post(DECIDE, json={"mail_id": request["mail_id"], "decision": "approve"})
    return response.status_code


async def _decide_by_reply(api: Api, request: dict[str, Any]) -> int | str:
    reply = reply_by_mail(f"jianf@{D}", request, "1\n")
    # aiosmtplib, not smtplib in threads: the gateway runs in this process and checks
    # passwords in the default executor, which 25 blocked client threads would starve.
    client = await session(api, "jianf", PASSWORD)
    try:
        await client.send_message(reply)
    except aiosmtplib.SMTPResponseException as error:  # a 4xx here is the bug replayed
        return error.code
    finally:
        await client.quit()
    return 250


async def _sweep(api: Api) -> int:
    expired = 0
    for _ in range(SWEEPS):
        expired += await expire_permission_requests(api.gateway.store)
        await asyncio.sleep(0.05)
    return expired


async def test_fifty_decisions_replies_and_sweeps_race_without_an_error(api: Api) -> None:
    human = await api.human("jianf")
    requests = await _requests(api, human)
    by_button = requests[0::2][: REQUESTS // 4] + requests[1::2][: REQUESTS // 4]
    by_reply = [r for r in requests if r not in by_button]

    outcomes = await asyncio.gather(
        *(_decide_by_button(human, r) for r in by_button),
        *(_decide_by_reply(api, r) for r in by_reply),
        _sweep(api),
        _sweep(api),
        return_exceptions=True,
    )

    failures = [o for o in outcomes if isinstance(o, BaseException)]
    assert failures == []
    buttons = outcomes[: len(by_button)]
    replies = outcomes[len(by_button) : len(by_button) + len(by_reply)]
    # 409: that request had expired first, which is a fine answer; nothing else is.
    assert set(buttons) <= {200, 409}, buttons
    assert set(replies) == {250}, replies
    await expire_permission_requests(api.gateway.store)
    states = {
        ok(await human.get(f"{HUMAN_MAIL}/{r['mail_id']}"))["permission_state"] for r in requests
    }
    assert states <= {"decided", "expired"}
