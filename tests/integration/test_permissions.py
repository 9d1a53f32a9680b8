"""Permission requests: options, deciding once, who decides, conversation status, events."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx
import pytest

from core.mail.send import Permission, SendRequest, send_mail
from core.principal import Principal
from tests.support.gateway import Api
from tests.support.http import ok, refused
from tests.support.sse import open_stream

REQUEST = "/api/v1/permission/request"
DECIDE = "/api/v1/me/permission/decide"


async def task_for(human: httpx.AsyncClient, alias: str) -> dict[str, Any]:
    return ok(
        await human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "a task", "session_alias": alias},
        )
    )


async def ask(agent: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    body.setdefault("to", "jianf@")
    body.setdefault("question", "May I merge PR #42?")
    return ok(await agent.post(REQUEST, json=body))


async def status_of(client: httpx.AsyncClient, session_id: str) -> str:
    status: str = ok(await client.get(f"/api/v1/sessions/{session_id}"))["session"]["status"]
    return status


async def test_the_decision_is_one_of_the_options_and_is_made_once(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await task_for(human, "merge")
    asked = await ask(
        builder, options=["Merge it", "Reject, needs changes"], session_id=task["session_id"]
    )
    assert asked["session_id"] == task["session_id"]
    mail_id = asked["mail_id"]

    message = refused(
        await human.post(DECIDE, json={"mail_id": mail_id, "decision": "maybe"}),
        422,
        "invalid_decision",
    )
    assert "maybe" in message
    assert "Merge it" in message and "Reject, needs changes" in message
    refused(
        await human.post(DECIDE, json={"mail_id": mail_id, "decision": ""}), 422, "invalid_request"
    )
    refused(await human.post(DECIDE, json={"mail_id": mail_id}), 422, "invalid_request")
    assert ok(await human.get(f"/api/v1/me/mail/{mail_id}"))["permission_state"] == "open"

    # The option's text in any case is accepted, and normalised to the option's text.
    decided = ok(
        await human.post(
            DECIDE, json={"mail_id": mail_id, "decision": "  MERGE it ", "note": "go ahead"}
        )
    )
    assert decided == {
        "status": "decided",
        "mail_id": mail_id,
        "decision": "Merge it",
        "action_sha256": None,
    }
    shown = ok(await human.get(f"/api/v1/me/mail/{mail_id}"))
    assert shown["mail_type"] == "permission_request"
    assert shown["options"] == ["Merge it", "Reject, needs changes"]
    assert (shown["permission_state"], shown["decision"], shown["decision_note"]) == (
        "decided",
        "Merge it",
        "go ahead",
    )
    assert shown["decided_by"] == "jianf"
    assert shown["decided_at"] is not None
    assert ok(await builder.get(f"/api/v1/mail/{mail_id}"))["decision"] == "Merge it"

    # Decided once: a second decision, even the same one, is a conflict and changes nothing.
    for again in ("Reject, needs changes", "Merge it"):
        message = refused(
            await human.post(DECIDE, json={"mail_id": mail_id, "decision": again}),
            409,
            "already_decided",
        )
        assert "Merge it" in message
    shown = ok(await human.get(f"/api/v1/me/mail/{mail_id}"))
    assert (shown["decision"], shown["decision_note"]) == ("Merge it", "go ahead")

    # A normal mail is no permission request.
    refused(
        await human.post(DECIDE, json={"mail_id": task["mail_id"], "decision": "approve"}),
        404,
        "not_found",
    )


async def test_only_the_addressed_human_decides(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])
    task = await task_for(jianf, "guarded")

    # The REST request has no cc; a cc'd request comes in through the one write path
    # (as SMTP will do), so it is made here with the core service itself.
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
    mail_id = asked.mail_id
    seen_by_alice = ok(await alice.get(f"/api/v1/me/mail/{mail_id}"))
    assert (seen_by_alice["delivery"], seen_by_alice["permission_state"]) == ("cc", "open")

    body = {"mail_id": mail_id, "decision": "approve"}
    refused(await alice.post(DECIDE, json=body), 403, "forbidden")
    refused(await bob.post(DECIDE, json=body), 404, "not_found")
    refused(await builder.post(DECIDE, json=body), 403, "forbidden")
    refused(await reviewer.post(DECIDE, json=body), 403, "forbidden")
    refused(
        await bob.post(DECIDE, json={"mail_id": "no-such-mail", "decision": "approve"}),
        404,
        "not_found",
    )
    assert ok(await jianf.get(f"/api/v1/me/mail/{mail_id}"))["permission_state"] == "open"

    async with open_stream(alice) as alice_stream:
        assert ok(await jianf.post(DECIDE, json=body))["decision"] == "approve"
        # The cc'd human is told of the decision too.
        event = (await alice_stream.next_of("permission_decision")).json
        assert (event["mail_id"], event["decision"], event["decided_by"]) == (
            mail_id,
            "approve",
            "jianf",
        )
    refused(await alice.post(DECIDE, json=body), 403, "forbidden")


async def test_request_validation(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])

    # A permission request goes to a human.
    message = refused(
        await builder.post(REQUEST, json={"to": "reviewer@repo", "question": "May I?"}),
        422,
        "invalid_request",
    )
    assert "human" in message
    assert (await reviewer.get("/api/v1/mail/inbox")).json()["total"] == 0

    for options in (["ok", "ok"], ["Ship", "ship "], [], ["fine", ""], ["two\nlines"]):
        refused(
            await builder.post(REQUEST, json={"to": "jianf@", "question": "?", "options": options}),
            422,
            "invalid_request",
        )
    refused(await builder.post(REQUEST, json={"to": "jianf@"}), 422, "invalid_request")
    refused(
        await builder.post(REQUEST, json={"to": "jianf@", "question": "?", "options": "approve"}),
        422,
        "invalid_request",
    )
    # Humans do not request permission.
    refused(await human.post(REQUEST, json={"to": "jianf@", "question": "?"}), 403, "forbidden")
    assert (await human.get("/api/v1/me/mail/inbox")).json()["total"] == 0

    # Options default to approve / reject; the decision is checked against them.
    asked = await ask(builder)
    shown = ok(await human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert shown["options"] == ["approve", "reject"]
    assert shown["to"] == "jianf@.may-i-merge-pr-42"
    assert shown["subject"] == "May I merge PR #42?"
    message = refused(
        await human.post(DECIDE, json={"mail_id": asked["mail_id"], "decision": "yes"}),
        422,
        "invalid_decision",
    )
    assert "approve" in message and "reject" in message
    decided = ok(await human.post(DECIDE, json={"mail_id": asked["mail_id"], "decision": "Reject"}))
    assert decided["decision"] == "reject"


async def test_conversation_waits_while_a_request_is_open(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await task_for(human, "two-questions")
    session_id = task["session_id"]
    assert await status_of(human, session_id) == "active"

    async with open_stream(human) as stream:
        first = await ask(builder, question="First?", session_id=session_id)
        update = (await stream.next_of("session_update")).json
        assert (update["session_id"], update["status"]) == (session_id, "waiting")
        assert await status_of(human, session_id) == "waiting"
        assert await status_of(builder, session_id) == "waiting"

        second = await ask(builder, question="Second?", reply_to=first["mail_id"])
        assert second["session_id"] == session_id
        waiting = ok(await human.get("/api/v1/sessions", params={"status": "waiting"}))
        assert [s["session_id"] for s in waiting["sessions"]] == [session_id]

        ok(await human.post(DECIDE, json={"mail_id": first["mail_id"], "decision": "approve"}))
        assert await status_of(human, session_id) == "waiting"  # the second is still open

        ok(await human.post(DECIDE, json={"mail_id": second["mail_id"], "decision": "reject"}))
        assert await status_of(human, session_id) == "active"
        update = (await stream.next_of("session_update")).json
        assert (update["session_id"], update["status"]) == (session_id, "active")
        assert await stream.nothing_within(0.2)
    active = ok(await human.get("/api/v1/sessions", params={"status": "active"}))
    assert [s["session_id"] for s in active["sessions"]] == [session_id]


async def test_the_decision_reaches_both_streams_with_the_action_hash(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await task_for(human, "deploy")
    action = "git push origin main --force-with-lease"
    digest = hashlib.sha256(action.encode("utf-8")).hexdigest()

    async with open_stream(builder) as agent_stream, open_stream(human) as human_stream:
        asked = await ask(
            builder,
            question="May I push?",
            options=["Push", "Hold"],
            session_id=task["session_id"],
            action=action,
        )
        pushed = (await human_stream.next_of("new_mail")).json
        assert (pushed["mail_id"], pushed["mail_type"]) == (asked["mail_id"], "permission_request")
        for client, prefix in ((human, "/api/v1/me/mail"), (builder, "/api/v1/mail")):
            shown = ok(await client.get(f"{prefix}/{asked['mail_id']}"))
            assert (shown["action"], shown["action_sha256"]) == (action, digest)

        decided = ok(
            await human.post(
                DECIDE, json={"mail_id": asked["mail_id"], "decision": "push", "note": "once"}
            )
        )
        assert decided["action_sha256"] == digest
        expected = {
            "mail_id": asked["mail_id"],
            "session_id": task["session_id"],
            "state": "decided",
            "decision": "Push",
            "note": "once",
            "decided_by": "jianf",
            "action_sha256": digest,
        }
        for stream in (agent_stream, human_stream):
            event = (await stream.next_of("permission_decision")).json
            assert {k: event[k] for k in expected} == expected


async def test_an_expired_request_is_closed_and_reported(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    task = await task_for(human, "short-fuse")
    async with open_stream(builder) as agent_stream:
        asked = await ask(builder, session_id=task["session_id"], expires_in=1)
        assert await status_of(human, task["session_id"]) == "waiting"
        shown = ok(await human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
        assert shown["expires_at"] is not None

        await asyncio.sleep(1.1)
        message = refused(
            await human.post(DECIDE, json={"mail_id": asked["mail_id"], "decision": "approve"}),
            409,
            "already_decided",
        )
        assert "expired" in message

        # The contract: the request is `expired`, the agent is told so on its stream
        # (`permission_decision` with `state: expired`), and the conversation no longer
        # waits on it.
        try:
            event = (await agent_stream.next_of("permission_decision", timeout=2)).json
        except TimeoutError:
            pytest.fail("no permission_decision (state: expired) reached the agent's stream")
        assert (event["mail_id"], event["state"], event["decision"]) == (
            asked["mail_id"],
            "expired",
            None,
        )
    shown = ok(await human.get(f"/api/v1/me/mail/{asked['mail_id']}"))
    assert shown["permission_state"] == "expired"
    assert await status_of(human, task["session_id"]) == "active"


async def test_open_requests_oldest_first_for_the_approvals_queue(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    asked = [(await ask(builder, question=f"May I {n}?"))["mail_id"] for n in range(4)]
    ok(await human.post(DECIDE, json={"mail_id": asked[1], "decision": "approve"}))
    listed = "/api/v1/me/permissions"
    oldest = ok(await human.get(listed, params={"state": "open", "order": "oldest"}))
    assert [m["mail_id"] for m in oldest["mails"]] == [asked[0], asked[2], asked[3]]
    assert oldest["total"] == 3
    page = ok(
        await human.get(
            listed, params={"state": "open", "order": "oldest", "limit": 1, "offset": 1}
        )
    )
    assert [m["mail_id"] for m in page["mails"]] == [asked[2]]
    # The default stays newest first.
    newest = ok(await human.get(listed, params={"state": "open"}))
    assert [m["mail_id"] for m in newest["mails"]] == [asked[3], asked[2], asked[0]]
    response = await human.get(listed, params={"order": "sideways"})
    assert response.status_code == 422
