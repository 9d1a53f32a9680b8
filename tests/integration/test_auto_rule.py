"""Security issue, hole 12: `auto: true` lets no agent skip its budget or the hop limit.

The probe's input: an agent key setting `auto` on an ordinary mail. `auto` is
allowed only on a question, a permission request, or one final summary per
incoming mail, each answering (`reply_to`) a mail addressed to that agent; anything
else is `422 auto_not_allowed` and stores nothing. Both backends.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused

PERMISSION = "/api/v1/permission/request"


async def sent_total(client: httpx.AsyncClient, mails: str = "/api/v1/mail") -> int:
    total: int = ok(await client.get(f"{mails}/sent"))["total"]
    return total


async def budget_used(human: httpx.AsyncClient, session_id: str) -> int:
    session = ok(await human.get(f"/api/v1/me/sessions/{session_id}"))["session"]
    used: int = session["budget_used"]
    return used


async def test_auto_on_an_ordinary_mail_is_refused(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "subject": "task"}))
    sid = task["session_id"]

    refusals: list[dict[str, Any]] = [
        # The probe: any mail, any recipient, auto set.
        {"to": "jianf@", "subject": "free round", "auto": True},
        {"to": "jianf@", "reply_to": task["mail_id"], "auto": True},  # normal, even as a reply
        {"to": "jianf@", "mail_type": "question", "auto": True},  # answers nothing
        {"to": f"jianf@.{task['session_alias']}", "mail_type": "final_summary", "auto": True},
    ]
    for body in refusals:
        message = refused(await builder.post(AGENT_SEND, json=body), 422, "auto_not_allowed")
        assert "auto" in message
    ask = {"to": "jianf@", "question": "May I?", "session_id": sid, "auto": True}
    refused(await builder.post(PERMISSION, json=ask), 422, "auto_not_allowed")

    # Answering a mail addressed to someone else: its own mail, or one it was cc'd on.
    own = ok(await builder.post(AGENT_SEND, json={"to": "jianf@", "reply_to": task["mail_id"]}))
    cc = ok(
        await jianf.post(
            HUMAN_SEND, json={"to": "jianf@", "cc": ["builder@"], "subject": "fyi", "body": "x"}
        )
    )
    # Answering the task, but into another conversation: no round spent anywhere.
    other = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "session_alias": "other"}))
    for to in ("jianf@.new", "jianf@.other"):
        body = {"to": to, "reply_to": task["mail_id"], "mail_type": "question", "auto": True}
        message = refused(await builder.post(AGENT_SEND, json=body), 422, "auto_not_allowed")
        assert "conversation of the mail it answers" in message
    assert (await budget_used(jianf, other["session_id"])) == 0
    for parent in (own["mail_id"], cc["mail_id"]):
        body = {"to": "jianf@", "reply_to": parent, "mail_type": "question", "auto": True}
        message = refused(await builder.post(AGENT_SEND, json=body), 422, "auto_not_allowed")
        assert "addressed to" in message
    assert (await sent_total(builder), await budget_used(jianf, sid)) == (1, 1)

    # Humans: auto is not theirs, nor are the agents' mail types.
    body = {"to": "builder@", "reply_to": own["mail_id"], "auto": True}
    refused(await jianf.post(HUMAN_SEND, json=body), 422, "auto_not_allowed")
    body = {"to": "builder@", "mail_type": "question"}
    assert "agents" in refused(await jianf.post(HUMAN_SEND, json=body), 422, "invalid_request")
    # Only the documented types, validated.
    body = {"to": "jianf@", "mail_type": "permission_request"}
    assert "mail_type" in refused(await builder.post(AGENT_SEND, json=body), 422, "invalid_request")
    assert await sent_total(jianf, "/api/v1/me/mail") == 3


async def test_auto_questions_requests_and_one_final_summary_per_mail(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    await _auto_mails_between_agents_stop_at_the_hop_limit(api, jianf)
    task = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "subject": "task", "budget": 1}))
    sid, answers = task["session_id"], task["mail_id"]

    question = {"to": "jianf@", "reply_to": answers, "mail_type": "question", "auto": True}
    for _ in range(2):
        asked = ok(await builder.post(AGENT_SEND, json=question))
        assert (asked["session_id"], asked["budget_used"]) == (sid, 0)
    ask = {"to": "jianf@", "question": "May I?", "reply_to": answers, "auto": True}
    assert ok(await builder.post(PERMISSION, json=ask))["budget_used"] == 0
    summary = {"to": "jianf@", "reply_to": answers, "mail_type": "final_summary", "auto": True}
    done = ok(await builder.post(AGENT_SEND, json=summary))
    assert done["budget_used"] == 0
    message = refused(await builder.post(AGENT_SEND, json=summary), 422, "auto_not_allowed")
    assert "already" in message
    # Without auto it is a round like any other: the budget of 1 allows one.
    plain = {**summary, "auto": False}
    assert ok(await builder.post(AGENT_SEND, json=plain))["budget_used"] == 1
    refused(await builder.post(AGENT_SEND, json=plain), 429, "budget_exhausted")

    mails = ok(await jianf.get(f"/api/v1/me/sessions/{sid}"))["mails"]
    kinds = [(m["mail_type"], m["auto"]) for m in mails]
    assert kinds == [
        ("normal", False),
        ("question", True),
        ("question", True),
        ("permission_request", True),
        ("final_summary", True),
        ("final_summary", False),
    ]
    # A new mail to the agent may get its own auto summary.
    again = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "reply_to": done["mail_id"]}))
    ok(await builder.post(AGENT_SEND, json={**summary, "reply_to": again["mail_id"]}))


async def _auto_mails_between_agents_stop_at_the_hop_limit(
    api: Api, jianf: httpx.AsyncClient
) -> None:
    ping = await api.agent("ping", [("a", "/a")])
    pong = await api.agent("pong", [("b", "/b")])
    start = ok(await jianf.post(HUMAN_SEND, json={"to": "ping@a", "subject": "go"}))
    parent = start["mail_id"]
    limit = api.gateway.settings.hop_limit
    agents = [(ping, "pong@b"), (pong, "ping@a")]
    # Two bridges passing each other's summaries on: each one answers a mail to it.
    for hop in range(limit):
        client, to = agents[hop % 2]
        body = {"to": to, "reply_to": parent, "mail_type": "final_summary", "auto": True}
        parent = ok(await client.post(AGENT_SEND, json=body))["mail_id"]
    client, to = agents[limit % 2]
    body = {"to": to, "reply_to": parent, "mail_type": "final_summary", "auto": True}
    message = refused(await client.post(AGENT_SEND, json=body), 422, "hop_limit_reached")
    assert f"hop limit {limit}" in message


async def test_turn_failed_is_the_one_final_answer_and_can_be_searched(api: Api) -> None:
    """A bridge's `turn_failed` (a turn interrupted, failed, timed out) is a mail's one
    auto final answer, as a summary is: after it, no auto summary; after a summary, no
    auto `turn_failed`. Humans find such mails with `type:failed`, no text parsed."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    first = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "subject": "one"}))
    failed = {"to": "jianf@", "reply_to": first["mail_id"], "mail_type": "turn_failed"}
    sent = ok(await builder.post(AGENT_SEND, json={**failed, "auto": True, "body": "cut"}))
    assert sent["budget_used"] == 0
    summary = {**failed, "mail_type": "final_summary", "auto": True}
    refused(await builder.post(AGENT_SEND, json=summary), 422, "auto_not_allowed")
    second = ok(await jianf.post(HUMAN_SEND, json={"to": "builder@", "subject": "two"}))
    ok(await builder.post(AGENT_SEND, json={**summary, "reply_to": second["mail_id"]}))
    late = {**failed, "reply_to": second["mail_id"], "auto": True}
    refused(await builder.post(AGENT_SEND, json=late), 422, "auto_not_allowed")
    body = {"to": "builder@", "mail_type": "turn_failed"}
    assert "agents" in refused(await jianf.post(HUMAN_SEND, json=body), 422, "invalid_request")

    mail = ok(await jianf.get(f"/api/v1/me/mail/{sent['mail_id']}"))
    assert (mail["mail_type"], mail["auto"]) == ("turn_failed", True)
    found = ok(await jianf.get("/api/v1/me/search", params={"q": "type:failed"}))
    assert [m["mail_id"] for m in found["mails"]] == [sent["mail_id"]]
