"""Mailboxes over REST: inbox filters and paging, read/archive state, sent, budgets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway import Api, running_gateway
from tests.support.http import AGENT_MAIL, AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok, refused


async def send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(url, json={"to": to, **body}))


async def listing(client: httpx.AsyncClient, url: str, **params: Any) -> dict[str, Any]:
    params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()}
    return ok(await client.get(url, params=params))


def subjects(page: dict[str, Any]) -> list[str]:
    return [m["subject"] for m in page["mails"]]


async def test_inbox_filters_paging_and_state_changes(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    sent = [await send(human, HUMAN_SEND, "builder@ModelRouter", subject=f"m{n}") for n in range(5)]
    ids = [s["mail_id"] for s in sent]
    inbox = f"{AGENT_MAIL}/inbox"

    page = await listing(builder, inbox)
    assert page["total"] == 5
    assert subjects(page) == ["m4", "m3", "m2", "m1", "m0"]  # newest first by default
    assert {(m["status"], m["delivery"]) for m in page["mails"]} == {("unread", "to")}
    assert subjects(await listing(builder, inbox, order="oldest")) == ["m0", "m1", "m2", "m3", "m4"]
    page = await listing(builder, inbox, limit=2, offset=1)
    assert (subjects(page), page["total"]) == (["m3", "m2"], 5)
    page = await listing(builder, inbox, limit=2, offset=4, order="oldest")
    assert (subjects(page), page["total"]) == (["m4"], 5)
    page = await listing(builder, inbox, offset=10)
    assert page == {"mails": [], "total": 5}

    # Read, unread, archive, unarchive: each answers the caller's new state.
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[1]}/read")) == {
        "mail_id": ids[1],
        "status": "read",
    }
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[1]}/read"))["status"] == "read"
    page = await listing(builder, inbox, status="unread")
    assert (subjects(page), page["total"]) == (["m4", "m3", "m2", "m0"], 4)
    page = await listing(builder, inbox, status="read")
    assert (subjects(page), page["total"]) == (["m1"], 1)
    assert page["mails"][0]["status"] == "read"

    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[2]}/archive"))["status"] == "archived"
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[1]}/archive"))["status"] == "archived"
    page = await listing(builder, inbox)
    assert (subjects(page), page["total"]) == (["m4", "m3", "m0"], 3)
    page = await listing(builder, inbox, status="archived")
    assert (subjects(page), page["total"]) == (["m2", "m1"], 2)
    assert {m["status"] for m in page["mails"]} == {"archived"}
    assert (await listing(builder, inbox, status="unread"))["total"] == 3
    assert (await listing(builder, inbox, status="read"))["total"] == 0
    assert ok(await builder.get(f"{AGENT_MAIL}/{ids[2]}"))["status"] == "archived"

    # Unarchiving restores the read state the mail had.
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[2]}/unarchive"))["status"] == "unread"
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[1]}/unarchive"))["status"] == "read"
    assert ok(await builder.post(f"{AGENT_MAIL}/{ids[1]}/unread"))["status"] == "unread"
    page = await listing(builder, inbox, status="unread")
    assert page["total"] == 5
    assert (await listing(builder, inbox, status="archived"))["total"] == 0

    for bad in ({"status": "spam"}, {"order": "sideways"}, {"limit": 0}, {"limit": 501}):
        refused(await builder.get(inbox, params=bad), 422, "invalid_request")
    refused(await builder.get(inbox, params={"offset": -1}), 422, "invalid_request")


async def test_mark_read_marks_exactly_what_it_listed_and_bodies(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    long_body = "# Title\n\n" + "word " * 100 + "\n\n- item\n"
    ids = [
        (await send(human, HUMAN_SEND, "builder@", subject=f"m{n}", body=f"{long_body}{n}"))[
            "mail_id"
        ]
        for n in range(3)
    ]
    inbox = f"{AGENT_MAIL}/inbox"

    listed = await listing(builder, inbox, status="unread", mark_read=True, limit=2, order="oldest")
    assert [m["mail_id"] for m in listed["mails"]] == ids[:2]
    assert listed["total"] == 3
    page = await listing(builder, inbox, status="unread")
    assert [m["mail_id"] for m in page["mails"]] == [ids[2]]
    page = await listing(builder, inbox, status="read", order="oldest")
    assert [m["mail_id"] for m in page["mails"]] == ids[:2]
    # Without mark_read a listing changes nothing.
    await listing(builder, inbox, status="unread")
    assert (await listing(builder, inbox, status="unread"))["total"] == 1

    # Listings carry a preview; the body only when asked for; one mail always has it.
    mail = (await listing(builder, inbox, limit=1))["mails"][0]
    assert mail["mail_id"] == ids[2]
    assert mail["body"] is None
    # Plain text (core/mail/excerpt.py), cut at 200 characters with an ellipsis.
    preview = ("Title " + "word " * 100)[:199].rstrip() + "…"
    assert mail["body_preview"] == preview
    assert len(mail["body_preview"]) == 200
    assert "\n" not in mail["body_preview"]
    full = (await listing(builder, inbox, limit=1, include_body=True))["mails"][0]
    assert full["body"] == f"{long_body}2"
    assert full["body_preview"] == preview
    one = ok(await builder.get(f"{AGENT_MAIL}/{ids[2]}"))
    assert one["body"] == f"{long_body}2"
    assert one["status"] == "unread"  # reading one mail by id does not mark it
    sent = await listing(human, f"{HUMAN_MAIL}/sent", limit=1, include_body=True)
    assert sent["mails"][0]["body"] == f"{long_body}2"
    assert (await listing(human, f"{HUMAN_MAIL}/sent", limit=1))["mails"][0]["body"] is None


async def test_human_mailbox_read_state_is_per_recipient(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    bob = await api.human("bob")
    builder = await api.agent("builder")
    other = await api.agent("other", [("repo", "/srv/repo")])

    mail = await send(jianf, HUMAN_SEND, "builder@ModelRouter", cc=["alice@"], subject="both")
    mail_id = mail["mail_id"]

    # The cc'd human reads it: only her copy is read.
    assert ok(await alice.post(f"{HUMAN_MAIL}/{mail_id}/read"))["status"] == "read"
    assert ok(await alice.get(f"{HUMAN_MAIL}/{mail_id}"))["status"] == "read"
    assert ok(await builder.get(f"{AGENT_MAIL}/{mail_id}"))["status"] == "unread"
    unread = await listing(builder, f"{AGENT_MAIL}/inbox", status="unread")
    assert [m["mail_id"] for m in unread["mails"]] == [mail_id]
    assert (await listing(alice, f"{HUMAN_MAIL}/inbox", status="unread"))["total"] == 0

    # The agent reads and archives; the human marks hers unread again: still separate.
    assert ok(await builder.post(f"{AGENT_MAIL}/{mail_id}/read"))["status"] == "read"
    assert ok(await builder.post(f"{AGENT_MAIL}/{mail_id}/archive"))["status"] == "archived"
    assert ok(await alice.post(f"{HUMAN_MAIL}/{mail_id}/unread"))["status"] == "unread"
    assert ok(await builder.get(f"{AGENT_MAIL}/{mail_id}"))["status"] == "archived"
    page = await listing(alice, f"{HUMAN_MAIL}/inbox", status="unread")
    assert [(m["mail_id"], m["delivery"]) for m in page["mails"]] == [(mail_id, "cc")]

    # The human endpoints: archive and unarchive.
    assert ok(await alice.post(f"{HUMAN_MAIL}/{mail_id}/archive"))["status"] == "archived"
    assert (await listing(alice, f"{HUMAN_MAIL}/inbox"))["total"] == 0
    archived = await listing(alice, f"{HUMAN_MAIL}/inbox", status="archived")
    assert [m["mail_id"] for m in archived["mails"]] == [mail_id]
    assert ok(await alice.post(f"{HUMAN_MAIL}/{mail_id}/unarchive"))["status"] == "unread"
    assert (await listing(alice, f"{HUMAN_MAIL}/inbox"))["total"] == 1

    # The sender sees it (no delivery of its own) but has no read state to change.
    shown = ok(await jianf.get(f"{HUMAN_MAIL}/{mail_id}"))
    assert (shown["delivery"], shown["status"]) == (None, None)
    assert (await listing(jianf, f"{HUMAN_MAIL}/inbox"))["total"] == 0
    refused(await jianf.post(f"{HUMAN_MAIL}/{mail_id}/read"), 404, "not_found")

    # Neither sender nor recipient: 404, whether the mail exists or not.
    refused(await bob.get(f"{HUMAN_MAIL}/{mail_id}"), 404, "not_found")
    refused(await bob.post(f"{HUMAN_MAIL}/{mail_id}/read"), 404, "not_found")
    refused(await bob.post(f"{HUMAN_MAIL}/{mail_id}/archive"), 404, "not_found")
    refused(await other.get(f"{AGENT_MAIL}/{mail_id}"), 404, "not_found")
    refused(await other.post(f"{AGENT_MAIL}/{mail_id}/read"), 404, "not_found")
    refused(await bob.get(f"{HUMAN_MAIL}/no-such-mail"), 404, "not_found")
    assert ok(await alice.get(f"{HUMAN_MAIL}/{mail_id}"))["status"] == "unread"


async def test_sent_lists_what_the_caller_sent(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    mine = [await send(jianf, HUMAN_SEND, "builder@", subject=f"task {n}") for n in range(3)]
    reply = await send(builder, AGENT_SEND, "jianf@", subject="done", cc=["alice@"])

    page = await listing(jianf, f"{HUMAN_MAIL}/sent")
    assert page["total"] == 3
    assert [m["mail_id"] for m in page["mails"]] == [m["mail_id"] for m in reversed(mine)]
    # One default conversation, named from its first subject ("task 0").
    assert {m["from"] for m in page["mails"]} == {"jianf@.task-0"}
    assert {m["to"] for m in page["mails"]} == {"builder@ModelRouter.task-0"}
    page = await listing(jianf, f"{HUMAN_MAIL}/sent", limit=1, offset=1)
    assert ([m["subject"] for m in page["mails"]], page["total"]) == (["task 1"], 3)

    page = await listing(builder, f"{AGENT_MAIL}/sent")
    assert [m["mail_id"] for m in page["mails"]] == [reply["mail_id"]]
    assert page["total"] == 1
    assert page["mails"][0]["cc"] == ["alice@.task-0"]
    assert await listing(alice, f"{HUMAN_MAIL}/sent") == {"mails": [], "total": 0}


async def test_an_offline_agents_mail_waits(database_url: str, tmp_path: Path) -> None:
    async with running_gateway(database_url, tmp_path / "d", heartbeat_seconds=0.2) as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            sleeper = await api.agent("sleeper", [("repo", "/srv/repo")])
            # It never beats nor streams: after 3 missed beats it is offline.
            async with asyncio.timeout(3):
                while True:
                    offline = await listing(human, "/api/v1/agents", status="offline")
                    if [a["agent_name"] for a in offline["agents"]] == ["sleeper"]:
                        break
                    await asyncio.sleep(0.05)

            sent = await send(human, HUMAN_SEND, "sleeper@repo", subject="while away", budget=5)
            assert sent["budget_remaining"] == 5
            page = await listing(sleeper, f"{AGENT_MAIL}/inbox", status="unread")
            assert [m["mail_id"] for m in page["mails"]] == [sent["mail_id"]]

            beat = ok(await sleeper.post("/api/v1/agent/heartbeat"))
            assert beat["status"] == "ok"
            assert beat["pending_mails"] == 1
            assert beat["sessions"] == [
                {
                    "session_id": sent["session_id"],
                    "session_alias": "while-away",
                    "unread": 1,
                    "budget_limit": 5,
                    "budget_used": 0,
                    "budget_remaining": 5,
                }
            ]
            online = await listing(human, "/api/v1/agents", status="online")
            assert [a["agent_name"] for a in online["agents"]] == ["sleeper"]

            # Once read, nothing is pending any more.
            await listing(sleeper, f"{AGENT_MAIL}/inbox", mark_read=True)
            beat = ok(await sleeper.post("/api/v1/agent/heartbeat"))
            assert (beat["pending_mails"], beat["sessions"]) == (0, [])
        finally:
            await api.close()


async def test_conversation_budget_counts_the_agents_own_mails(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")

    task = await send(human, HUMAN_SEND, "builder@", session_alias="tight", budget=2)
    assert (task["budget_limit"], task["budget_used"], task["budget_remaining"]) == (2, 0, 2)

    first = await send(builder, AGENT_SEND, "jianf@.tight")
    assert (first["budget_used"], first["budget_remaining"]) == (1, 1)
    # Bridge auto-forwards (a question answering the task) and human mails are not rounds.
    auto = await send(
        builder,
        AGENT_SEND,
        "jianf@.tight",
        auto=True,
        mail_type="question",
        reply_to=task["mail_id"],
    )
    assert (auto["budget_used"], auto["budget_remaining"]) == (1, 1)
    by_human = await send(human, HUMAN_SEND, "builder@ModelRouter.tight")
    assert (by_human["budget_used"], by_human["budget_remaining"]) == (1, 1)
    second = await send(builder, AGENT_SEND, "jianf@", reply_to=task["mail_id"])
    assert second["session_id"] == task["session_id"]
    assert (second["budget_used"], second["budget_remaining"]) == (2, 0)

    message = refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@.tight", "subject": "third"}),
        429,
        "budget_exhausted",
    )
    assert "2/2" in message
    refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@", "reply_to": task["mail_id"]}),
        429,
        "budget_exhausted",
    )
    assert (await listing(builder, f"{AGENT_MAIL}/sent"))["total"] == 3
    # The human can still write, and an auto-forward still goes through.
    late = await send(human, HUMAN_SEND, "builder@ModelRouter.tight")
    assert (late["budget_used"], late["budget_remaining"]) == (2, 0)
    summary = await send(
        builder,
        AGENT_SEND,
        "jianf@",
        auto=True,
        mail_type="final_summary",
        reply_to=late["mail_id"],
    )
    assert (summary["session_id"], summary["budget_used"]) == (task["session_id"], 2)
    session = ok(await human.get(f"/api/v1/me/sessions/{task['session_id']}"))["session"]
    assert (session["budget_limit"], session["budget_used"], session["budget_remaining"]) == (
        2,
        2,
        0,
    )

    # Unlimited never runs out.
    endless = await send(human, HUMAN_SEND, "builder@", session_alias="endless", budget="unlimited")
    assert (endless["budget_limit"], endless["budget_remaining"]) == ("unlimited", "unlimited")
    for _ in range(3):
        more = await send(builder, AGENT_SEND, "jianf@.endless")
        assert more["budget_remaining"] == "unlimited"

    # Omitted: the receiving agent's default budget (20).
    default = await send(human, HUMAN_SEND, "builder@", session_alias="by-default")
    assert (default["budget_limit"], default["budget_remaining"]) == (20, 20)

    for bad in (0, -1, "lots"):
        refused(
            await human.post(HUMAN_SEND, json={"to": "builder@.new", "budget": bad}),
            422,
            "invalid_request",
        )
