"""Agents mailing outside under a leash, on both backends: allowlisted recipients are
queued at once; the others are held behind a permission request to the humans of the
conversation showing the whole mail, queued once when approved (the decision's
transaction), never when rejected or expired; a mail to listed and unlisted recipients
sends the listed ones at once and holds the rest."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select, update

from core.approvals.permissions import expire_permission_requests
from core.outbound.allowed import set_agent_outbound
from core.outbound.allowlist import agent_allowlist, set_agent_allowlist
from core.settings import Limits
from core.store.engine import Store
from core.store.models import HeldOutbound, Mail, OutboundJob, utcnow
from tests.domain.world import Actor, D, World, refused

ALICE = "mailto:alice@outside.test"


async def _jobs(store: Store) -> list[tuple[str, str, str]]:
    rows = await store.read(
        lambda s: s.execute(
            select(OutboundJob.mail_id, OutboundJob.recipient, OutboundJob.state).order_by(
                OutboundJob.id
            )
        ).all()
    )
    return [tuple(row) for row in rows]  # type: ignore[misc]


async def _holds(store: Store) -> list[str]:
    return list(await store.read(lambda s: s.scalars(select(HeldOutbound.state)).all()))


async def _leashed(world: World) -> tuple[Actor, Actor, str]:
    """jianf mails a task to builder (outbound on, allowlist `example.com`); its session."""
    world.limits = replace(Limits(), outbound=True)
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    await set_agent_outbound(world.store, "builder", True)
    assert await set_agent_allowlist(world.store, "builder", ["Example.COM"], D) == ["example.com"]
    task = await jianf.send(to="builder@ModelRouter", subject="task", body="mail alice")
    return jianf, builder, task["session_id"]


async def test_a_listed_recipient_is_queued_and_an_unlisted_one_asked_about(world: World) -> None:
    jianf, builder, session_id = await _leashed(world)
    sent = await builder.send(
        to="mailto:bob@example.com",
        cc=[ALICE, "jianf@"],
        subject="Quote",
        body="the **quote**",
        session_id=session_id,
    )
    assert sent["held"]["recipients"] == [ALICE]
    assert await _jobs(world.store) == [(sent["mail_id"], "bob@example.com", "queued")]
    request = await jianf.mail(sent["held"]["request_id"])
    assert request["mail_type"] == "permission_request" and request["from"].startswith(
        "builder@ModelRouter"
    )
    assert request["subject"] == "Send this mail to alice@outside.test?"
    assert request["options"] == ["approve", "reject"] and request["permission_state"] == "open"
    for shown in (
        "To: mailto:bob@example.com",
        "Cc: mailto:alice@outside.test",
        "Subject: Quote",
        "the **quote**",
    ):
        assert shown in request["body"]
    assert request["parent_mail_id"] == sent["mail_id"]
    assert (await jianf.session(session_id))["session"]["budget_used"] == 1  # the request: free

    await jianf.decide(request["mail_id"], "approve")
    assert await _jobs(world.store) == [
        (sent["mail_id"], "bob@example.com", "queued"),
        (sent["mail_id"], "alice@outside.test", "queued"),
    ]
    await refused(jianf.decide(request["mail_id"], "approve"), "already_decided")
    assert len(await _jobs(world.store)) == 2 and await _holds(world.store) == ["released"]
    decisions = await builder.events("permission_decision")
    assert decisions and decisions[-1]["decision"] == "approve"


async def test_rejected_or_expired_never_leaves(world: World) -> None:
    jianf, builder, session_id = await _leashed(world)
    first = await builder.send(to=ALICE, subject="one", session_id=session_id)
    second = await builder.send(to=ALICE, subject="two", session_id=session_id)
    await jianf.decide(first["held"]["request_id"], "reject")
    past = utcnow() - timedelta(seconds=1)
    await world.store.write(
        lambda s: s.execute(
            update(Mail).where(Mail.id == second["held"]["request_id"]).values(expires_at=past)
        )
    )
    assert await expire_permission_requests(world.store) == 1
    assert await _jobs(world.store) == [] and await _holds(world.store) == ["refused", "refused"]


async def test_approval_after_outbound_withdrawn_sends_nothing(world: World) -> None:
    jianf, builder, session_id = await _leashed(world)
    sent = await builder.send(to=ALICE, subject="late", session_id=session_id)
    await set_agent_outbound(world.store, "builder", False)
    await jianf.decide(sent["held"]["request_id"], "approve")
    assert await _jobs(world.store) == [] and await _holds(world.store) == ["refused"]


async def test_no_human_in_the_conversation_asks_the_admins(world: World) -> None:
    world.limits = replace(Limits(), outbound=True)
    root = await world.human("root", is_admin=True)
    builder = await world.agent("builder")
    await set_agent_outbound(world.store, "builder", True)
    sent = await builder.send(to=ALICE, subject="first contact")
    request = await root.mail(sent["held"]["request_id"])
    assert request["to"].startswith("root@.") and request["cc"] == []
    await root.decide(request["mail_id"], "approve")
    assert await _jobs(world.store) == [(sent["mail_id"], "alice@outside.test", "queued")]


async def test_allowlist_entries_are_checked(world: World) -> None:
    await world.agent("builder")
    for bad, why in (
        ("bücher.example", "A-label"),
        ("*example.com", "wildcard"),
        ("example", "fully qualified"),
        (f"x@{D}", "own domain"),
        ("a b@example.com", "white space"),
    ):
        assert why in await refused(
            set_agent_allowlist(world.store, "builder", [bad], D), "invalid_address"
        )
    assert "200" in await refused(
        set_agent_allowlist(world.store, "builder", [f"d{i}.example" for i in range(201)], D),
        "invalid_request",
    )
    entries = ["mailto:Bob@Example.com", "*.Example.org", "example.net", "example.net"]
    assert await set_agent_allowlist(world.store, "builder", entries, D) == [
        "*.example.org",
        "Bob@example.com",
        "example.net",
    ]
    assert await agent_allowlist(world.store, "builder") == [
        "*.example.org",
        "Bob@example.com",
        "example.net",
    ]
    await refused(agent_allowlist(world.store, "nobody"), "not_found")
