"""Permission requests: options, deciding once, who decides, conversation status, events.

tests/integration/test_permissions.py keeps the HTTP mapping of the three endpoints.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from core.approvals.permissions import expire_permission_requests
from core.mail.send import Permission, SendRequest
from tests.domain.world import Actor, World, refused


async def task_for(human: Actor, alias: str) -> dict[str, Any]:
    return await human.send(to="builder@ModelRouter", subject="a task", session_alias=alias)


async def ask(agent: Actor, **body: Any) -> dict[str, Any]:
    body.setdefault("to", "jianf@")
    body.setdefault("question", "May I merge PR #42?")
    return await agent.ask(**body)


async def status_of(actor: Actor, session_id: str) -> str:
    status: str = (await actor.session(session_id))["session"]["status"]
    return status


async def test_the_decision_is_one_of_the_options_and_is_made_once(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    task = await task_for(human, "merge")
    asked = await ask(
        builder, options=["Merge it", "Reject, needs changes"], session_id=task["session_id"]
    )
    assert asked["session_id"] == task["session_id"]
    mail_id = asked["mail_id"]

    message = await refused(human.decide(mail_id, "maybe"), "invalid_decision")
    assert "maybe" in message
    assert "Merge it" in message and "Reject, needs changes" in message
    assert (await human.mail(mail_id))["permission_state"] == "open"

    # The option's text in any case is accepted, and normalised to the option's text.
    decided = await human.decide(mail_id, "  MERGE it ", note="go ahead")
    assert decided == {"mail_id": mail_id, "decision": "Merge it", "action_sha256": None}
    shown = await human.mail(mail_id)
    assert shown["mail_type"] == "permission_request"
    assert shown["options"] == ["Merge it", "Reject, needs changes"]
    assert (shown["permission_state"], shown["decision"], shown["decision_note"]) == (
        "decided",
        "Merge it",
        "go ahead",
    )
    assert shown["decided_by"] == "jianf"
    assert shown["decided_at"] is not None
    assert (await builder.mail(mail_id))["decision"] == "Merge it"

    # Decided once: a second decision, even the same one, is a conflict and changes nothing.
    for again in ("Reject, needs changes", "Merge it"):
        message = await refused(human.decide(mail_id, again), "already_decided")
        assert "Merge it" in message
    shown = await human.mail(mail_id)
    assert (shown["decision"], shown["decision_note"]) == ("Merge it", "go ahead")

    # A normal mail is no permission request.
    await refused(human.decide(task["mail_id"], "approve"), "not_found")


async def test_only_the_addressed_human_decides(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    bob = await world.human("bob")
    builder = await world.agent("builder")
    task = await task_for(jianf, "guarded")

    # The REST request has no cc; a cc'd request comes in through the one write path
    # (as SMTP does), so it is made with the core service itself.
    asked = await builder.send_core(
        SendRequest(to="jianf@", cc=["alice@"], subject="May I deploy?", body="May I deploy?"),
        mail_type="permission_request",
        permission=Permission(["approve", "reject"]),
        conversation_id=task["session_id"],
    )
    mail_id = asked.mail_id
    seen_by_alice = await alice.mail(mail_id)
    assert (seen_by_alice["delivery"], seen_by_alice["permission_state"]) == ("cc", "open")

    await refused(alice.decide(mail_id, "approve"), "forbidden")
    await refused(bob.decide(mail_id, "approve"), "not_found")
    # (Agents never reach the decision: the route takes humans only, 403 over HTTP.)
    await refused(bob.decide("no-such-mail", "approve"), "not_found")
    assert (await jianf.mail(mail_id))["permission_state"] == "open"

    await alice.listen()
    assert (await jianf.decide(mail_id, "approve"))["decision"] == "approve"
    # The cc'd human is told of the decision too.
    [event] = await alice.events("permission_decision")
    assert (event["mail_id"], event["decision"], event["decided_by"]) == (
        mail_id,
        "approve",
        "jianf",
    )
    await refused(alice.decide(mail_id, "approve"), "forbidden")


async def test_request_validation(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    reviewer = await world.agent("reviewer", [("repo", "/srv/repo")])

    # A permission request goes to a human.
    message = await refused(builder.ask(to="reviewer@repo", question="May I?"), "invalid_request")
    assert "human" in message
    assert await reviewer.inbox() == []

    for options in (["ok", "ok"], ["Ship", "ship "], [], ["fine", ""], ["two\nlines"]):
        await refused(builder.ask(to="jianf@", question="?", options=options), "invalid_request")
    await refused(builder.ask(to="jianf@"), "invalid_request")
    await refused(builder.ask(to="jianf@", question="?", options="approve"), "invalid_request")
    assert await human.inbox() == []

    # Options default to approve / reject; the decision is checked against them.
    asked = await ask(builder)
    shown = await human.mail(asked["mail_id"])
    assert shown["options"] == ["approve", "reject"]
    assert shown["to"] == "jianf@.may-i-merge-pr-42"
    assert shown["subject"] == "May I merge PR #42?"
    message = await refused(human.decide(asked["mail_id"], "yes"), "invalid_decision")
    assert "approve" in message and "reject" in message
    assert (await human.decide(asked["mail_id"], "Reject"))["decision"] == "reject"


async def test_conversation_waits_while_a_request_is_open(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    task = await task_for(human, "two-questions")
    session_id = task["session_id"]
    assert await status_of(human, session_id) == "active"

    await human.listen()
    first = await ask(builder, question="First?", session_id=session_id)
    [update] = await human.events("session_update")
    assert (update["session_id"], update["status"]) == (session_id, "waiting")
    assert await status_of(human, session_id) == "waiting"
    assert await status_of(builder, session_id) == "waiting"

    second = await ask(builder, question="Second?", reply_to=first["mail_id"])
    assert second["session_id"] == session_id
    waiting = await human.sessions(status="waiting")
    assert [s["session_id"] for s in waiting] == [session_id]

    await human.decide(first["mail_id"], "approve")
    assert await status_of(human, session_id) == "waiting"  # the second is still open
    # Still waiting: no update at all (the second request and the first decision).
    assert await human.events("session_update") == []

    await human.decide(second["mail_id"], "reject")
    assert await status_of(human, session_id) == "active"
    # One update, and nothing after it.
    [update] = await human.events("session_update")
    assert (update["session_id"], update["status"]) == (session_id, "active")
    active = await human.sessions(status="active")
    assert [s["session_id"] for s in active] == [session_id]


async def test_the_decision_reaches_both_sides_with_the_action_hash(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    task = await task_for(human, "deploy")
    action = "git push origin main --force-with-lease"
    digest = hashlib.sha256(action.encode("utf-8")).hexdigest()

    await builder.listen()
    await human.listen()
    asked = await ask(
        builder,
        question="May I push?",
        options=["Push", "Hold"],
        session_id=task["session_id"],
        action=action,
    )
    [pushed] = await human.events("new_mail")
    assert (pushed["mail_id"], pushed["mail_type"]) == (asked["mail_id"], "permission_request")
    for actor in (human, builder):
        shown = await actor.mail(asked["mail_id"])
        assert (shown["action"], shown["action_sha256"]) == (action, digest)

    decided = await human.decide(asked["mail_id"], "push", note="once")
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
    for actor in (builder, human):
        [event] = await actor.events("permission_decision")
        assert {k: event[k] for k in expected} == expected


async def test_an_expired_request_is_closed_and_reported(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    task = await task_for(human, "short-fuse")
    await builder.listen()
    asked = await ask(builder, session_id=task["session_id"], expires_in=1)
    assert await status_of(human, task["session_id"]) == "waiting"
    shown = await human.mail(asked["mail_id"])
    assert shown["expires_at"] is not None

    await asyncio.sleep(1.1)  # past expires_at: the clock is the rule's input
    message = await refused(human.decide(asked["mail_id"], "approve"), "already_decided")
    assert "expired" in message

    # The contract: the sweep (the gateway runs it every few seconds) makes the request
    # `expired`, the agent is told so (`permission_decision` with `state: expired`),
    # and the conversation no longer waits on it.
    assert await builder.events("permission_decision") == []
    assert await expire_permission_requests(world.store) == 1
    [event] = await builder.events("permission_decision")
    assert (event["mail_id"], event["state"], event["decision"]) == (
        asked["mail_id"],
        "expired",
        None,
    )
    shown = await human.mail(asked["mail_id"])
    assert shown["permission_state"] == "expired"
    assert await status_of(human, task["session_id"]) == "active"
    assert await expire_permission_requests(world.store) == 0  # once


async def test_open_requests_oldest_first_for_the_approvals_queue(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")
    asked = [(await ask(builder, question=f"May I {n}?"))["mail_id"] for n in range(4)]
    await human.decide(asked[1], "approve")
    oldest = await human.requests(state="open", order="oldest")
    assert [m["mail_id"] for m in oldest["mails"]] == [asked[0], asked[2], asked[3]]
    assert oldest["total"] == 3
    page = await human.requests(state="open", order="oldest", limit=1, offset=1)
    assert [m["mail_id"] for m in page["mails"]] == [asked[2]]
    # The default stays newest first.
    newest = await human.requests(state="open")
    assert [m["mail_id"] for m in newest["mails"]] == [asked[3], asked[2], asked[0]]
