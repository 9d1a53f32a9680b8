"""Deciding a permission request by replying over SMTP (docs/deciding-by-mail.md).

Real clients on both backends: the human submits with smtplib, the agent uses
REST and its SSE stream, as docs/deciding-by-mail.md describes.
"""

from __future__ import annotations

import asyncio
from email import message_from_bytes, policy
from typing import Any

import httpx

from core.rendering.stored import render_stored
from core.store.file_blobs import FileBlobs
from tests.support.gateway import PASSWORD, Api
from tests.support.http import AGENT_MAIL, AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok, refused
from tests.support.smtp import D, message, send
from tests.support.sse import SseEvent, SseStream, open_stream

REQUEST = "/api/v1/permission/request"
DECIDE = "/api/v1/me/permission/decide"


async def _mail(
    api: Api,
    to: str,
    body: str,
    *,
    subject: str = "Re: a request",
    in_reply_to: str | None = None,
    login: str = "jianf",
    secret: str = PASSWORD,
) -> None:
    threading = (
        {} if in_reply_to is None else {"In_Reply_To": in_reply_to, "References": in_reply_to}
    )
    await send(api, login, secret, message(f"{login}@{D}", to, subject, body, **threading))


async def _task_and_request(
    api: Api, agent_stream: SseStream, builder: httpx.AsyncClient, **request: Any
) -> dict[str, Any]:
    """jianf mails builder a new task over SMTP; builder asks jianf for permission.
    Returns the request as jianf sees it over REST."""
    await _mail(api, f"builder+ModelRouter+new@{D}", "Please deploy.", subject="Deploy the fix")
    task = (await agent_stream.next_of("new_mail")).json
    assert task["from"] == f"jianf@.{task['session_alias']}" and task["subject"] == "Deploy the fix"
    request.setdefault("options", ["approve", "reject"])
    asked = ok(
        await builder.post(
            REQUEST,
            json={
                "to": "jianf@",
                "question": "May I deploy to production?",
                "session_id": task["session_id"],
                **request,
            },
        )
    )
    human = await api.login("jianf", PASSWORD)
    return ok(await human.get(f"{HUMAN_MAIL}/{asked['mail_id']}"))


async def _reply(api: Api, request: dict[str, Any], body: str) -> None:
    """jianf answers the request from a mail client: Reply goes to its From, threaded."""
    await _mail(
        api,
        request["from_email"],
        body,
        subject=f"Re: {request['subject']}",
        in_reply_to=request["message_id"],
    )


async def _events_before_marker(
    stream: SseStream, sender: httpx.AsyncClient, path: str, to: str
) -> list[SseEvent]:
    """The events `stream` gets before a marker mail sent now: everything the actions
    before it caused, since each committed its events before it answered (SMTP's 250,
    REST's 200) and a stream delivers in commit order. No quiet window to wait out."""
    marker = ok(await sender.post(path, json={"to": to, "subject": "marker"}))
    before: list[SseEvent] = []
    while True:
        event = await stream.next()
        if event.event == "new_mail" and event.json["mail_id"] == marker["mail_id"]:
            return before
        before.append(event)


async def _no_decision(stream: SseStream, human: httpx.AsyncClient) -> bool:
    """No `permission_decision` reached the agent's stream before a marker from `human`."""
    events = await _events_before_marker(stream, human, HUMAN_SEND, "builder@ModelRouter.new")
    return all(event.event != "permission_decision" for event in events)


async def _human_mails(human: httpx.AsyncClient, session_id: str) -> list[dict[str, Any]]:
    detail = ok(await human.get(f"/api/v1/sessions/{session_id}"))
    mails: list[dict[str, Any]] = detail["mails"]
    return mails


async def test_a_reply_with_the_number_decides_as_the_button_does(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream, open_stream(human) as human_stream:
        request = await _task_and_request(api, agent_stream, builder)
        assert request["message_id"] and request["permission_state"] == "open"
        session = ok(await human.get(f"/api/v1/sessions/{request['session_id']}"))["session"]
        assert session["status"] == "waiting"

        await _reply(api, request, "1\n")

        expected = {
            "mail_id": request["mail_id"],
            "session_id": request["session_id"],
            "state": "decided",
            "decision": "approve",
            "note": None,
            "decided_by": "jianf",
        }
        for stream in (agent_stream, human_stream):
            event = (await stream.next_of("permission_decision")).json
            assert {key: event[key] for key in expected} == expected
    shown = ok(await builder.get(f"{AGENT_MAIL}/{request['mail_id']}"))
    assert (shown["permission_state"], shown["decision"], shown["decided_by"]) == (
        "decided",
        "approve",
        "jianf",
    )
    session = ok(await human.get(f"/api/v1/sessions/{request['session_id']}"))["session"]
    assert session["status"] == "active"
    reply = (await _human_mails(human, request["session_id"]))[-1]
    assert (reply["parent_mail_id"], reply["from"].split("@")[0], reply["body"].strip()) == (
        request["mail_id"],
        "jianf",
        "1",
    )
    # The decision is final: the button now says so.
    refused(
        await human.post(DECIDE, json={"mail_id": request["mail_id"], "decision": "reject"}),
        409,
        "already_decided",
    )


async def test_the_text_of_an_option_in_any_case_decides_with_a_note(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(
            api, agent_stream, builder, options=["Deploy now", "Wait until Monday"]
        )
        await _reply(api, request, "wait UNTIL monday\n\nNot on a Friday.\nAsk me again then.\n")
        event = (await agent_stream.next_of("permission_decision")).json
    assert (event["decision"], event["note"]) == (
        "Wait until Monday",
        "Not on a Friday.\nAsk me again then.",
    )
    shown = ok(await human.get(f"{HUMAN_MAIL}/{request['mail_id']}"))
    assert shown["decision_note"] == "Not on a Friday.\nAsk me again then."


async def test_a_reply_quoting_the_request_reads_only_the_new_text(api: Api) -> None:
    """The quoted request lists `1. approve`; the answer above it is `2`. The quoted
    history is long, as it is in a real thread."""
    await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(api, agent_stream, builder)
        quoted = "\n".join(
            f"> {line}" for line in [request["body"], "", "---", "Options:", "  1. approve"]
        )
        history = "\n".join(f"> earlier line {i}: 1. approve" for i in range(200))
        body = f"2\n\nOn Mon, 30 Nov 2026 at 10:00, builder wrote:\n{quoted}\n{history}\n"
        assert len(body) > 4096  # long enough to be read in a worker thread
        await _reply(api, request, body)
        event = (await agent_stream.next_of("permission_decision")).json
    assert (event["decision"], event["note"]) == ("reject", None)


async def test_a_late_reply_gets_a_postmaster_notice_and_decides_nothing(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(api, agent_stream, builder)
        decided = ok(
            await human.post(
                DECIDE,
                json={"mail_id": request["mail_id"], "decision": "approve", "note": "go"},
            )
        )
        assert decided["decision"] == "approve"
        first = (await agent_stream.next_of("permission_decision")).json
        async with open_stream(human) as human_stream:
            await _reply(api, request, "reject\nI changed my mind.")
            # The reply reaches the agent as an ordinary mail, and no second decision.
            reply_event = (await agent_stream.next_of("new_mail")).json
            assert reply_event["from"].startswith("jianf@")
            assert await _no_decision(agent_stream, human)
            # The human's only event from the reply: the notice (no second decision).
            first_event = await human_stream.next()
            assert first_event.event == "new_mail"
            marker_to = "jianf@.new"
            assert await _events_before_marker(human_stream, builder, AGENT_SEND, marker_to) == []
    notice_event = first_event.json
    assert (notice_event["from"], notice_event["from_email"]) == ("postmaster@", f"postmaster@{D}")
    assert notice_event["mail_type"] == "notice"

    shown = ok(await human.get(f"{HUMAN_MAIL}/{request['mail_id']}"))
    assert (shown["decision"], shown["decision_note"]) == ("approve", "go")
    inbox = ok(await human.get(f"{HUMAN_MAIL}/inbox", params={"include_body": "true"}))["mails"]
    notices = [m for m in inbox if m["from_email"] == f"postmaster@{D}"]
    assert len(notices) == 1
    notice = notices[0]
    assert notice["mail_id"] == notice_event["mail_id"]
    assert notice["session_id"] == request["session_id"]
    assert notice["subject"] == f"Already decided: {request['subject']}"
    for fact in ("Decision: approve", "Decided by: jianf", f"Decided at: {first['decided_at']}"):
        assert fact in notice["body"], notice["body"]
    # The notice answers the human's reply; the agent never sees it.
    mails = await _human_mails(human, request["session_id"])
    reply = next(m for m in mails if m["body"].startswith("reject"))
    assert notice["parent_mail_id"] == reply["mail_id"]
    agent_inbox = ok(await builder.get(f"{AGENT_MAIL}/inbox", params={"status": "all"}))["mails"]
    assert all(m["from_email"] != f"postmaster@{D}" for m in agent_inbox)
    people = ok(await builder.get(f"/api/v1/sessions/{request['session_id']}/participants"))
    assert "postmaster" not in [p["name"] for p in people["participants"]]
    # What IMAP serves: signed by the bare postmaster address, threaded under the reply.
    gateway = api.gateway
    assert gateway.store is not None
    blobs = FileBlobs(gateway.settings.attachments_dir)
    raw = await render_stored(gateway.store, blobs, gateway.settings.domain, notice["mail_id"])
    rendered = message_from_bytes(raw, policy=policy.default)
    assert rendered["From"] == f"postmaster <postmaster@{D}>"
    assert rendered["In-Reply-To"] == reply["message_id"]
    assert rendered["Auto-Submitted"] == "auto-generated"


async def test_a_reply_to_an_expired_request_gets_a_notice(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(api, agent_stream, builder, expires_in=1)
        await asyncio.sleep(1.2)
        await _reply(api, request, "1")
        await agent_stream.next_of("new_mail")  # the reply itself
        # The sweep may report `expired`; a `decided` must never come.
        events = await _events_before_marker(
            agent_stream, human, HUMAN_SEND, "builder@ModelRouter.new"
        )
        decisions = [e.json["state"] for e in events if e.event == "permission_decision"]
        assert set(decisions) <= {"expired"}
    shown = ok(await human.get(f"{HUMAN_MAIL}/{request['mail_id']}"))
    assert shown["permission_state"] in ("open", "expired") and shown["decision"] is None
    inbox = ok(await human.get(f"{HUMAN_MAIL}/inbox", params={"include_body": "true"}))["mails"]
    notice = next(m for m in inbox if m["from_email"] == f"postmaster@{D}")
    assert notice["subject"] == f"Expired: {request['subject']}"
    assert f"expired at {shown['expires_at'].replace('+00:00', 'Z')}" in notice["body"]


async def test_a_first_line_that_is_no_option_is_an_ordinary_reply(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(api, agent_stream, builder)
        await _reply(api, request, "What would the rollback plan be?\n1")
        reply = (await agent_stream.next_of("new_mail")).json
        assert reply["subject"] == f"Re: {request['subject']}"
        assert await _no_decision(agent_stream, human)
    shown = ok(await human.get(f"{HUMAN_MAIL}/{request['mail_id']}"))
    assert shown["permission_state"] == "open"
    session = ok(await human.get(f"/api/v1/sessions/{request['session_id']}"))
    assert session["session"]["status"] == "waiting"
    assert [m["body"].splitlines()[0] for m in session["mails"]][-1] == (
        "What would the rollback plan be?"
    )
    inbox = ok(await human.get(f"{HUMAN_MAIL}/inbox"))["mails"]
    assert all(m["from_email"] != f"postmaster@{D}" for m in inbox)


async def test_only_the_requests_human_decides_by_mail(api: Api) -> None:
    """The agent replying `1` to its own request over SMTP only sends a mail."""
    human = await api.human("jianf")
    key = await api.agent_key()
    builder = api.client(key)
    ok(
        await builder.post(
            "/api/v1/agent/register",
            json={
                "name": "builder",
                "workspaces": [{"name": "ModelRouter", "path": "/srv/mr"}],
                "platform": "t",
            },
        )
    )
    async with open_stream(builder) as agent_stream:
        request = await _task_and_request(api, agent_stream, builder)
        await _mail(
            api,
            f"jianf@{D}",
            "1",
            in_reply_to=request["message_id"],
            login="builder",
            secret=key,
        )
        assert await _no_decision(agent_stream, human)
    shown = ok(await builder.get(f"{AGENT_MAIL}/{request['mail_id']}"))
    assert shown["permission_state"] == "open"


async def test_postmaster_is_a_reserved_name(api: Api) -> None:
    admin = await api.admin()
    message = refused(
        await admin.post("/api/v1/admin/users", json={"name": "Postmaster", "password": PASSWORD}),
        409,
        "name_taken",
    )
    assert "reserved" in message
    agent = api.client(await api.agent_key())
    refused(
        await agent.post(
            "/api/v1/agent/register",
            json={"name": "postmaster", "workspaces": [{"name": "w", "path": "/w"}]},
        ),
        409,
        "name_taken",
    )
