"""The reference design's §7 loop, end to end over HTTP with real SSE connections."""

from __future__ import annotations

from tests.support.gateway import Api
from tests.support.sse import open_stream


async def test_task_permission_decision_and_reply(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])

    async with open_stream(builder) as agent_stream, open_stream(human) as human_stream:
        # 1. The human mails a task to builder@ModelRouter, naming the conversation.
        sent = await human.post(
            "/api/v1/me/mail/send",
            json={
                "to": "builder@ModelRouter",
                "subject": "Add a health check to ModelRouter",
                "body": "## Need\n\nAdd `/health` to the HTTP service.",
                "session_alias": "add-health-check",
            },
        )
        assert sent.status_code == 200, sent.text
        task = sent.json()
        assert task["session_alias"] == "add-health-check"

        # 2. The agent's stream is pushed the mail.
        pushed = (await agent_stream.next_of("new_mail")).json
        assert pushed["mail_id"] == task["mail_id"]
        assert pushed["session_alias"] == "add-health-check"
        assert pushed["from"] == "jianf@.add-health-check"
        assert pushed["to"] == "builder@ModelRouter.add-health-check"

        # The agent reads it (read_inbox marks what it lists as read).
        inbox = await builder.get(
            "/api/v1/mail/inbox",
            params={"status": "unread", "mark_read": "true", "include_body": "true"},
        )
        assert inbox.status_code == 200
        [mail] = inbox.json()["mails"]
        assert mail["body"].startswith("## Need")
        again = await builder.get("/api/v1/mail/inbox", params={"status": "unread"})
        assert again.json() == {"mails": [], "total": 0}

        # 4. The agent asks permission, with two options.
        asked = await builder.post(
            "/api/v1/permission/request",
            json={
                "to": "jianf@",
                "question": "May I merge PR #42?",
                "options": ["Merge it", "Reject, needs changes"],
                "context": "3 files changed; CI is green.",
                "session_id": task["session_id"],
                "reply_to": task["mail_id"],
            },
        )
        assert asked.status_code == 200, asked.text
        request = asked.json()
        assert request["session_id"] == task["session_id"]

        pushed = (await human_stream.next_of("new_mail")).json
        assert pushed["mail_id"] == request["mail_id"]
        assert pushed["mail_type"] == "permission_request"
        update = (await human_stream.next_of("session_update")).json
        assert update["status"] == "waiting"
        shown = (await human.get(f"/api/v1/me/mail/{request['mail_id']}")).json()
        assert shown["options"] == ["Merge it", "Reject, needs changes"]
        assert shown["permission_state"] == "open"

        # 5. The human decides, with a note.
        decided = await human.post(
            "/api/v1/me/permission/decide",
            json={
                "mail_id": request["mail_id"],
                "decision": "Merge it",
                "note": "Fine, but add a test.",
            },
        )
        assert decided.status_code == 200, decided.text
        assert decided.json()["status"] == "decided"

        # 6. The agent is pushed the decision and the note, then replies.
        decision = (await agent_stream.next_of("permission_decision")).json
        assert decision == {
            "mail_id": request["mail_id"],
            "session_id": task["session_id"],
            "state": "decided",
            "decision": "Merge it",
            "note": "Fine, but add a test.",
            "decided_by": "jianf",
            "decided_at": decision["decided_at"],
            "action_sha256": None,
        }
        replied = await builder.post(
            "/api/v1/mail/send",
            json={
                "to": "jianf@",
                "subject": "Re: Add a health check to ModelRouter",
                "body": "PR merged; `/health` is live.",
                "reply_to": task["mail_id"],
            },
        )
        assert replied.status_code == 200, replied.text
        assert replied.json()["session_id"] == task["session_id"]
        pushed = (await human_stream.next_of("new_mail")).json
        assert pushed["mail_id"] == replied.json()["mail_id"]

    # The human's inbox shows the reply, in the same conversation.
    inbox = (await human.get("/api/v1/me/mail/inbox", params={"include_body": "true"})).json()
    reply = next(m for m in inbox["mails"] if m["mail_id"] == replied.json()["mail_id"])
    assert reply["session_id"] == task["session_id"]
    assert reply["session_alias"] == "add-health-check"
    assert reply["from"] == "builder@ModelRouter.add-health-check"
    assert reply["body"] == "PR merged; `/health` is live."
    assert reply["parent_mail_id"] == task["mail_id"]

    detail = (await human.get(f"/api/v1/me/sessions/{task['session_id']}")).json()
    assert detail["session"]["status"] == "active"
    assert [m["mail_type"] for m in detail["mails"]] == [
        "normal",
        "permission_request",
        "normal",
    ]
    assert detail["mails"][1]["decision"] == "Merge it"
    assert detail["mails"][1]["decision_note"] == "Fine, but add a test."
