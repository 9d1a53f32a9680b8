"""The limits that keep agents from running away: budgets, new-conversation rate, hops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway import Api, running_gateway


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


async def test_a_human_raises_or_resets_an_exhausted_budget(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(
        await human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "task", "budget": 1},
        )
    )
    reply = {"to": "jianf@", "subject": "re", "reply_to": task["mail_id"]}
    assert ok(await builder.post("/api/v1/mail/send", json=reply))["budget_remaining"] == 0
    message = refused(await builder.post("/api/v1/mail/send", json=reply), 429, "budget_exhausted")
    assert "1/1" in message and "human" in message

    # The agent cannot change it; the human can, at any time.
    session = f"/api/v1/sessions/{task['session_id']}"
    refused(await builder.patch(session, json={"budget_limit": 5}), 403, "forbidden")
    raised = ok(
        await human.patch(f"/api/v1/me/sessions/{task['session_id']}", json={"budget_limit": 3})
    )
    assert (raised["budget_limit"], raised["budget_used"], raised["budget_remaining"]) == (3, 1, 2)
    assert ok(await builder.post("/api/v1/mail/send", json=reply))["budget_remaining"] == 1

    reset = ok(await human.patch(session, json={"reset_budget_used": True}))
    assert (reset["budget_used"], reset["budget_remaining"]) == (0, 3)
    unlimited = ok(await human.patch(session, json={"budget_limit": "unlimited"}))
    assert unlimited["budget_remaining"] == "unlimited"
    message = refused(await human.patch(session, json={"budget_limit": 0}), 422, "invalid_request")
    # One clear sentence, not pydantic's dump of both union branches.
    assert message == 'budget_limit: budget must be a number from 1 to 1,000,000 or "unlimited"'
    for budget in (0, -1, True, "lots", 10**7):
        sent = await human.post(
            "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "budget": budget}
        )
        assert "budget must be a number" in refused(sent, 422, "invalid_request"), budget
    # Heartbeats report the remaining budget of waiting conversations.
    beat = ok(await builder.post("/api/v1/agent/heartbeat"))
    assert beat["pending_mails"] == 1
    assert beat["sessions"][0]["budget_remaining"] == "unlimited"


async def test_agents_may_open_only_so_many_conversations_an_hour(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(
        database_url, tmp_path / "d", new_conversations_per_hour=3
    ) as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            builder = await api.agent("builder")
            for n in range(3):
                new = {"to": "jianf@.new", "subject": f"thread {n}"}
                ok(await builder.post("/api/v1/mail/send", json=new))
            response = await builder.post(
                "/api/v1/mail/send", json={"to": "jianf@.new", "subject": "one too many"}
            )
            message = refused(response, 429, "rate_limited")
            assert "limit 3" in message
            retry_after = int(response.headers["Retry-After"])
            assert 3500 <= retry_after <= 3601
            # Mail into existing conversations is not limited ...
            listing = ok(await builder.get("/api/v1/sessions"))
            alias = listing["sessions"][0]["session_alias"]
            ok(
                await builder.post(
                    "/api/v1/mail/send", json={"to": f"jianf@.{alias}", "subject": "more"}
                )
            )
            # ... and humans are never limited.
            for n in range(5):
                new = {"to": "builder@ModelRouter.new", "subject": f"human {n}"}
                ok(await human.post("/api/v1/me/mail/send", json=new))
        finally:
            await api.close()


async def test_a_loop_between_agents_stops_at_the_hop_limit(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(database_url, tmp_path / "d", hop_limit=3) as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            ping = await api.agent("ping", [("a", "/a")])
            pong = await api.agent("pong", [("b", "/b")])
            start = ok(
                await human.post("/api/v1/me/mail/send", json={"to": "ping@a", "subject": "go"})
            )
            parent = start["mail_id"]
            agents = [(ping, "pong@b"), (pong, "ping@a")]
            for hop in range(3):
                client, to = agents[hop % 2]
                sent = await client.post(
                    "/api/v1/mail/send",
                    json={"to": to, "subject": f"hop {hop}", "reply_to": parent},
                )
                parent = ok(sent)["mail_id"]
            client, to = agents[1]
            message = refused(
                await client.post(
                    "/api/v1/mail/send", json={"to": to, "subject": "hop 3", "reply_to": parent}
                ),
                422,
                "hop_limit_reached",
            )
            assert "hop limit 3" in message and "human" in message
            # Addressing the conversation by its alias, without reply_to, is the same
            # chain: the hop limit stops it too.
            alias = start["session_alias"]
            for client, to in agents:
                by_alias = {"to": f"{to}.{alias}", "subject": "around the limit"}
                refused(
                    await client.post("/api/v1/mail/send", json=by_alias), 422, "hop_limit_reached"
                )
            # Telling a human is always possible, and a human's mail resets the chain.
            to_human = {"to": "jianf@", "subject": "help", "reply_to": parent}
            told = ok(await pong.post("/api/v1/mail/send", json=to_human))
            human_reply = ok(
                await human.post(
                    "/api/v1/me/mail/send",
                    json={"to": "pong@b", "subject": "go on", "reply_to": told["mail_id"]},
                )
            )
            again = {"to": "ping@a", "subject": "fresh", "reply_to": human_reply["mail_id"]}
            ok(await pong.post("/api/v1/mail/send", json=again))
        finally:
            await api.close()


async def test_open_permission_requests_are_one_call(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    asked = [
        ok(
            await builder.post(
                "/api/v1/permission/request", json={"to": "jianf@", "question": f"May I {n}?"}
            )
        )
        for n in range(3)
    ]
    ok(
        await human.post(
            "/api/v1/me/permission/decide",
            json={"mail_id": asked[0]["mail_id"], "decision": "approve"},
        )
    )
    open_ = ok(await human.get("/api/v1/me/permissions", params={"state": "open"}))
    assert open_["total"] == 2
    assert [m["mail_id"] for m in open_["mails"]] == [asked[2]["mail_id"], asked[1]["mail_id"]]
    assert all(m["permission_state"] == "open" for m in open_["mails"])
    decided = ok(await human.get("/api/v1/me/permissions", params={"state": "decided"}))
    assert [m["decision"] for m in decided["mails"]] == ["approve"]
    assert ok(await human.get("/api/v1/me/permissions"))["total"] == 3
    refused(await builder.get("/api/v1/me/permissions"), 403, "forbidden")
