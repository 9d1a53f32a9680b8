"""Permission requests over HTTP: the mapping of the three endpoints, and the gateway's
expiry sweep reaching an agent's stream.

The rules (options, deciding once, who decides, the conversation's status, events,
the approvals queue) are tested in process on both databases,
tests/domain/test_permissions.py.
"""

from __future__ import annotations

from typing import Any

import httpx

from core.mail.send import Permission, SendRequest, send_mail
from core.principal import Principal
from tests.support.gateway import Api
from tests.support.http import ok, refused
from tests.support.sessions import MARGIN
from tests.support.sse import open_stream

REQUEST = "/api/v1/permission/request"
DECIDE = "/api/v1/me/permission/decide"
LISTED = "/api/v1/me/permissions"


async def task_for(human: httpx.AsyncClient, alias: str) -> dict[str, Any]:
    return ok(
        await human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "a task", "session_alias": alias},
        )
    )


async def test_request_endpoint(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    asked = ok(await builder.post(REQUEST, json={"to": "jianf@", "question": "May I merge?"}))
    assert set(asked) >= {"mail_id", "session_id", "session_alias"}
    refused(
        await builder.post(REQUEST, json={"to": "jianf@", "question": "?", "options": ["a", "A"]}),
        422,
        "invalid_request",
    )
    refused(await builder.post(REQUEST, json={"to": "jianf@"}), 422, "invalid_request")
    # Humans do not request permission.
    refused(await human.post(REQUEST, json={"to": "jianf@", "question": "?"}), 403, "forbidden")
    assert ok(await human.get("/api/v1/me/mail/inbox"))["total"] == 1


async def test_decide_endpoint(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])
    task = await task_for(jianf, "guarded")
    store = api.gateway.store
    assert store is not None
    asked = await send_mail(
        store,
        api.gateway.settings.domain,
        Principal("agent", "builder"),
        SendRequest(to="jianf@", cc=["alice@"], subject="May I deploy?", body="May I deploy?"),
        mail_type="permission_request",
        permission=Permission(["approve", "reject"]),
        conversation_id=task["session_id"],
    )
    body = {"mail_id": asked.mail_id, "decision": "approve"}

    message = refused(
        await jianf.post(DECIDE, json={**body, "decision": "maybe"}), 422, "invalid_decision"
    )
    assert "approve" in message and "reject" in message
    refused(await jianf.post(DECIDE, json={**body, "decision": ""}), 422, "invalid_request")
    refused(await jianf.post(DECIDE, json={"mail_id": asked.mail_id}), 422, "invalid_request")
    refused(await alice.post(DECIDE, json=body), 403, "forbidden")  # cc'd, not addressed
    # Agents never decide: the route takes humans only.
    refused(await builder.post(DECIDE, json=body), 403, "forbidden")
    refused(await reviewer.post(DECIDE, json=body), 403, "forbidden")
    refused(
        await jianf.post(DECIDE, json={"mail_id": "no-such-mail", "decision": "approve"}),
        404,
        "not_found",
    )
    decided = ok(await jianf.post(DECIDE, json={**body, "decision": " APPROVE", "note": "go"}))
    assert decided == {
        "status": "decided",
        "mail_id": asked.mail_id,
        "decision": "approve",
        "action_sha256": None,
    }
    message = refused(await jianf.post(DECIDE, json=body), 409, "already_decided")
    assert "approve" in message


async def test_list_endpoint(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    asked = [
        ok(await builder.post(REQUEST, json={"to": "jianf@", "question": f"May I {n}?"}))
        for n in range(3)
    ]
    oldest = ok(await human.get(LISTED, params={"state": "open", "order": "oldest", "limit": 2}))
    assert [m["mail_id"] for m in oldest["mails"]] == [asked[0]["mail_id"], asked[1]["mail_id"]]
    assert oldest["total"] == 3
    assert (await human.get(LISTED, params={"order": "sideways"})).status_code == 422


async def test_the_gateway_expires_requests_and_tells_the_agent(api: Api) -> None:
    """The gateway runs the expiry sweep by itself (every second): the agent's stream
    gets `expired` with no decision made. The wait's bound only stops a hung test."""
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await task_for(human, "short-fuse")
    async with open_stream(builder) as agent_stream:
        asked = ok(
            await builder.post(
                REQUEST,
                json={
                    "to": "jianf@",
                    "question": "May I?",
                    "session_id": task["session_id"],
                    "expires_in": 1,
                },
            )
        )
        event = (await agent_stream.next_of("permission_decision", timeout=MARGIN)).json
    assert (event["mail_id"], event["state"], event["decision"]) == (
        asked["mail_id"],
        "expired",
        None,
    )
    shown = ok(await human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert shown["permission_state"] == "expired"
