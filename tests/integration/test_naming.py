"""Conversation aliases: from the subject, from the platform, proposed by agents."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.sse import open_stream


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


async def _task(human: httpx.AsyncClient, subject: str, to: str = "builder@ModelRouter.new") -> Any:
    return ok(await human.post("/api/v1/me/mail/send", json={"to": to, "subject": subject}))


async def test_an_unnamed_conversation_takes_its_alias_from_the_subject(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    assert (await _task(human, "排查登录问题"))["session_alias"] == "pai-cha-deng-lu-wen-ti"
    assert (await _task(human, "Fix the login bug!"))["session_alias"] == "fix-the-login-bug"
    assert (await _task(human, "Fix the login bug"))["session_alias"] == "fix-the-login-bug-2"
    assert (await _task(human, "new"))["session_alias"] == "new-conversation"
    assert (await _task(human, "!!!"))["session_alias"] is None
    long = await _task(human, "word " * 40)
    assert len(long["session_alias"]) <= 64 and not long["session_alias"].endswith("-")
    # The alias addresses the conversation.
    again = ok(
        await human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter.fix-the-login-bug-2", "subject": "more"},
        )
    )
    inbox = ok(await builder.get("/api/v1/mail/inbox"))["mails"]
    assert [m["session_alias"] for m in inbox][:1] == ["fix-the-login-bug-2"]
    assert again["session_alias"] == "fix-the-login-bug-2"


async def test_a_platform_name_replaces_a_subject_alias_but_not_a_human_rename(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await _task(human, "Login problem")
    sync = f"/api/v1/sessions/{task['session_id']}/sync"
    synced = ok(await builder.post(sync, json={"session_alias": "fix-cookie", "title": "Cookie"}))
    assert (synced["session_alias"], synced["subject"]) == ("fix-cookie", "Cookie")
    ok(
        await human.patch(
            f"/api/v1/me/sessions/{task['session_id']}", json={"session_alias": "mine"}
        )
    )
    after = ok(await builder.post(sync, json={"session_alias": "platform-again"}))
    assert after["session_alias"] == "mine"


async def test_agents_propose_aliases_and_humans_decide(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await _task(human, "Login problem")
    conv = task["session_id"]
    base = f"/api/v1/me/sessions/{conv}/proposals"

    # By field, and by the wire marker, which is stripped from the stored body.
    async with open_stream(human) as stream:
        proposed = await builder.post(
            "/api/v1/mail/send",
            json={
                "to": "jianf@",
                "reply_to": task["mail_id"],
                "subject": "found it",
                "body": "It is the cookie.",
                "propose_alias": "fix-session-cookie",
                "propose_reason": "it is about the cookie",
            },
        )
        ok(proposed)
        announced = (await stream.next_of("session_update")).json["alias_proposal"]
        assert (announced["alias"], announced["reason"]) == (
            "fix-session-cookie",
            "it is about the cookie",
        )
    marked = ok(
        await builder.post(
            "/api/v1/mail/send",
            json={
                "to": "jianf@",
                "reply_to": task["mail_id"],
                "subject": "also",
                "body": 'Done.\n<!-- agentmail:propose-alias alias="cookie-expiry" '
                'reason="narrower" -->\nBye.',
            },
        )
    )
    stored = ok(await human.get(f"/api/v1/me/mail/{marked['mail_id']}"))
    assert stored["body"] == "Done.\nBye."

    pending = ok(await human.get(base, params={"state": "pending"}))["proposals"]
    assert [(p["alias"], p["reason"], p["proposed_by"]) for p in pending] == [
        ("fix-session-cookie", "it is about the cookie", "builder"),
        ("cookie-expiry", "narrower", "builder"),
    ]
    # Agents cannot decide; the human rejects one and accepts the other.
    agent_try = await builder.post(
        f"/api/v1/sessions/{conv}/proposals/{pending[0]['proposal_id']}/accept"
    )
    assert agent_try.status_code == 403
    async with open_stream(builder) as stream:
        ok(await human.post(f"{base}/{pending[1]['proposal_id']}/reject"))
        accepted = ok(await human.post(f"{base}/{pending[0]['proposal_id']}/accept"))
        assert accepted["session_alias"] == "fix-session-cookie"
        update = (await stream.next_of("session_update")).json
        assert update["session_alias"] == "fix-session-cookie"
    again = await human.post(f"{base}/{pending[0]['proposal_id']}/accept")
    assert again.status_code == 409

    # A rejected name is not proposed again; the accepted rename wins over syncs.
    ok(
        await builder.post(
            "/api/v1/mail/send",
            json={
                "to": "jianf@",
                "reply_to": task["mail_id"],
                "subject": "again",
                "propose_alias": "cookie-expiry",
            },
        )
    )
    assert ok(await human.get(base, params={"state": "pending"}))["proposals"] == []
    synced = ok(
        await builder.post(f"/api/v1/sessions/{conv}/sync", json={"session_alias": "other"})
    )
    assert synced["session_alias"] == "fix-session-cookie"
    # Outsiders see nothing.
    outsider = await api.human("eve")
    assert (await outsider.get(base)).status_code == 404
