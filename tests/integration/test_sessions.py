"""Conversations ("sessions") over HTTP: each endpoint's mapping (status codes, the
error's shape, both prefixes), and a change reaching the streams.

The rules (who sees what, renames, closing and reopening, platform sync, proposals)
are tested in process on both databases, tests/domain/test_sessions.py.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused
from tests.support.sse import open_stream


async def send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    return ok(await client.post(url, json={"to": to, **body}))


async def test_list_and_detail_endpoints(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    one = await send(jianf, HUMAN_SEND, "builder@", subject="first task", session_alias="one")
    session_id = one["session_id"]

    for path in ("/api/v1/sessions", "/api/v1/me/sessions"):
        listed = ok(await jianf.get(path, params={"status": "active", "limit": 1}))
        assert ([s["session_id"] for s in listed["sessions"]], listed["total"]) == ([session_id], 1)
        assert listed["sessions"][0]["session_alias"] == "one"
        detail = ok(await jianf.get(f"{path}/{session_id}"))
        assert detail["session"]["session_id"] == session_id
        assert [m["mail_id"] for m in detail["mails"]] == [one["mail_id"]]
        refused(await alice.get(f"{path}/{session_id}"), 404, "not_found")
    assert ok(await builder.get("/api/v1/sessions"))["total"] == 1
    refused(
        await builder.get("/api/v1/sessions", params={"status": "done"}), 422, "invalid_request"
    )
    refused(await builder.get("/api/v1/me/sessions"), 403, "forbidden")


async def test_change_endpoint(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    first = await send(jianf, HUMAN_SEND, "builder@", session_alias="first")
    url = f"/api/v1/sessions/{first['session_id']}"

    async with open_stream(builder) as agent_stream:
        view = ok(await jianf.patch(url, json={"session_alias": "Renamed"}))
        assert view["session_alias"] == "renamed"
        event = (await agent_stream.next_of("session_update")).json
        assert (event["session_id"], event["session_alias"]) == (first["session_id"], "renamed")
    view = ok(
        await jianf.patch(
            f"/api/v1/me/sessions/{first['session_id']}",
            json={"session_alias": "via-me", "subject": "New title", "status": "completed"},
        )
    )
    assert (view["session_alias"], view["subject"], view["status"]) == (
        "via-me",
        "New title",
        "completed",
    )
    refused(await jianf.patch(url, json={"session_alias": "a.b"}), 422, "invalid_address")
    refused(await jianf.patch(url, json={"status": "waiting"}), 422, "invalid_request")
    refused(await builder.patch(url, json={"session_alias": "mine"}), 403, "forbidden")
    refused(
        await builder.patch(f"/api/v1/me/sessions/{first['session_id']}", json={}),
        403,
        "forbidden",
    )
    refused(await alice.patch(url, json={"session_alias": "stolen"}), 404, "not_found")


async def test_sync_and_proposal_endpoints(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    outsider = await api.agent("outsider", [("x", "/x")])
    task = await send(jianf, HUMAN_SEND, "builder@", subject="untitled")
    url = f"/api/v1/sessions/{task['session_id']}"

    view = ok(await builder.post(f"{url}/sync", json={"session_alias": "Login", "title": "T"}))
    assert (view["session_alias"], view["subject"]) == ("login", "T")
    refused(await outsider.post(f"{url}/sync", json={"session_alias": "x"}), 404, "not_found")
    refused(
        await builder.post(f"{url}/sync", json={"session_alias": "new"}), 422, "invalid_address"
    )

    proposed = {"reply_to": task["mail_id"], "propose_alias": "fix-login"}
    await send(builder, AGENT_SEND, "jianf@", **proposed)
    [proposal] = ok(await jianf.get(f"{url}/proposals", params={"state": "pending"}))["proposals"]
    accept = f"{url}/proposals/{proposal['proposal_id']}/accept"
    refused(await builder.post(accept), 403, "forbidden")
    assert (
        ok(
            await jianf.post(
                f"/api/v1/me/sessions/{task['session_id']}/proposals/{proposal['proposal_id']}/accept"
            )
        )["session_alias"]
        == "fix-login"
    )


async def test_raised_budget_tells_the_agent_who_and_why(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = await send(jianf, HUMAN_SEND, "builder@", session_alias="raise", budget=1)
    url = f"/api/v1/me/sessions/{first['session_id']}"
    await send(builder, AGENT_SEND, "jianf@", reply_to=first["mail_id"])
    refused(
        await builder.post(
            AGENT_SEND,
            json={"to": "jianf@", "subject": "more", "body": "", "reply_to": first["mail_id"]},
        ),
        429,
        "budget_exhausted",
    )

    async with open_stream(builder) as agent_stream:
        ok(await jianf.patch(url, json={"budget_limit": 3, "reason": "  one more pass  "}))
        event = (await agent_stream.next_of("session_update")).json
    assert (event["budget_limit"], event["changed_by"], event["reason"]) == (
        3,
        "jianf",
        "one more pass",
    )
    await send(builder, AGENT_SEND, "jianf@", reply_to=first["mail_id"])
    refused(await jianf.patch(url, json={"reason": "x" * 501}), 422, "invalid_request")
