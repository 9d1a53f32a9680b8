"""An agent's page (on SQLite and PostgreSQL): its conversations a page at a time
(`GET /me/sessions?participant=`) and its activity (`GET /me/agents/{name}/activity`):
turns, decisions and failures, newest first, only from the caller's conversations
(an admin sees all)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok

ACTIVITY = "/api/v1/me/agents/builder/activity"


async def _task(alice: httpx.AsyncClient, subject: str) -> str:
    sent = ok(
        await alice.post(
            HUMAN_SEND, json={"to": "builder@ModelRouter.new", "subject": subject, "body": "go"}
        )
    )
    return str(sent["session_id"])


async def _page(client: httpx.AsyncClient, **params: Any) -> tuple[list[str], int]:
    page = ok(await client.get(ACTIVITY, params=params))
    return [item["subject"] for item in page["items"]], page["total"]


async def test_conversations_and_activity_of_an_agent_by_page(api: Api) -> None:
    alice = await api.human("alice")
    carol = await api.human("carol")
    admin = await api.admin()
    builder = await api.agent("builder")
    sessions = [await _task(alice, f"task {n}") for n in range(3)]
    await _task(carol, "carol's own")
    for n, session_id in enumerate(sessions):
        body = {"to": "alice@", "subject": f"done {n}", "body": "**done**\n\nall of it",
                "session_id": session_id}  # fmt: skip
        ok(await builder.post(AGENT_SEND, json=body))
    asked = ok(
        await builder.post(
            "/api/v1/permission/request",
            json={
                "to": "alice@",
                "question": "May I deploy?",
                "options": ["yes", "no"],
                "session_id": sessions[0],
            },
        )
    )
    decide = {"mail_id": asked["mail_id"], "decision": "yes", "note": "go ahead"}
    ok(await alice.post("/api/v1/me/permission/decide", json=decide))
    failed = {"to": "alice@", "subject": "turn failed", "body": "timed out",
              "mail_type": "turn_failed", "session_id": sessions[1]}  # fmt: skip
    ok(await builder.post(AGENT_SEND, json=failed))

    # Conversations with the agent, a page at a time (carol's is not alice's).
    listed = ok(
        await alice.get("/api/v1/me/sessions", params={"participant": "Builder", "limit": 2})
    )
    assert listed["total"] == 3 and len(listed["sessions"]) == 2
    rest = ok(
        await alice.get(
            "/api/v1/me/sessions", params={"participant": "builder", "limit": 2, "offset": 2}
        )
    )
    assert len(rest["sessions"]) == 1
    seen = {s["session_id"] for s in listed["sessions"] + rest["sessions"]}
    assert seen == set(sessions)

    # Turns: every mail it sent in alice's conversations but failure reports, newest first.
    assert await _page(alice, limit=2) == (["May I deploy?", "done 2"], 4)
    assert await _page(alice, limit=2, offset=3) == (["done 0"], 4)
    [request] = ok(await alice.get(ACTIVITY, params={"kind": "decisions"}))["items"]
    assert request["decision"] == "yes" and request["decided_by"] == "alice"
    assert request["permission_state"] == "decided"
    [failure] = ok(await alice.get(ACTIVITY, params={"kind": "failures"}))["items"]
    assert failure["subject"] == "turn failed" and failure["excerpt"] == "timed out"
    done = ok(await alice.get(ACTIVITY, params={"limit": 5}))["items"]
    assert done[-1]["excerpt"] == "**done** all of it"

    # Carol sees only what the agent did in her conversation (nothing); an admin, all.
    assert await _page(carol) == ([], 0)
    assert (await _page(admin))[1] == 4


async def test_activity_is_refused_to_agents_and_unknown_agents_are_not_found(api: Api) -> None:
    alice = await api.human("alice")
    builder = await api.agent("builder")
    assert (await builder.get(ACTIVITY)).status_code == 403
    missing = await alice.get("/api/v1/me/agents/nobody/activity")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    bad = await alice.get(ACTIVITY, params={"kind": "everything", "limit": 1000})
    assert bad.status_code == 422
