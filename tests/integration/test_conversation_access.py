"""Security issue, hole 2: knowing a conversation's alias (or id) lets nobody in.

Replays the probe: agent Y sending to `alice@.<alias of A's conversation>`, user B
sending to `xagent@ws1.<A's alias>`, then B reading, renaming and closing it, and
an agent posting a permission request into it by `session_id` — each refused
exactly as for a conversation that does not exist; A's IMAP folder keeps its name.
On both backends.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused
from tests.support.imap import imap_login

ME = "/api/v1/me"


@dataclass
class Scene:
    alice: httpx.AsyncClient
    bob: httpx.AsyncClient
    xagent: httpx.AsyncClient
    yagent: httpx.AsyncClient
    task: dict[str, Any]  # alice's mail to xagent@ws1 that opened the conversation
    alias: str
    attachment_id: str


async def scene(api: Api) -> Scene:
    alice = await api.human("alice")
    bob = await api.human("bob")
    xagent = await api.agent("xagent", [("ws1", "/srv/ws1")])
    yagent = await api.agent("yagent", [("ws2", "/srv/ws2")])
    upload = ok(await alice.post(f"{ME}/attachments", files={"file": ("plan.txt", b"secret")}))
    task = ok(
        await alice.post(
            HUMAN_SEND,
            json={
                "to": "xagent@ws1",
                "subject": "Fix login leak",
                "body": "the token is in the log",
                "attachment_ids": [upload["attachment_id"]],
            },
        )
    )
    assert task["session_alias"] == "fix-login-leak"
    return Scene(alice, bob, xagent, yagent, task, task["session_alias"], upload["attachment_id"])


def same_refusal(found: str, unknown: str, real: str, made_up: str) -> None:
    """The two messages differ only in the alias or id they name."""
    assert real in found and made_up in unknown
    assert found.replace(real, "<x>") == unknown.replace(made_up, "<x>")


async def _no_outsider_writes_into_it(api: Api, s: Scene) -> None:
    made_up = "no-such-alias"

    for client, url, to in (
        (s.yagent, AGENT_SEND, "alice@.{}"),
        (s.bob, HUMAN_SEND, "xagent@ws1.{}"),
        (s.bob, HUMAN_SEND, "alice@.{}"),
    ):
        found = await client.post(url, json={"to": to.format(s.alias), "subject": "let me in"})
        unknown = await client.post(url, json={"to": to.format(made_up), "subject": "let me in"})
        same_refusal(
            refused(found, 422, "unknown_alias"),
            refused(unknown, 422, "unknown_alias"),
            s.alias,
            made_up,
        )
    # A cc's alias routes nothing (the `to` does); in a forward of one's own mail and
    # by replying to A's mail, the same refusals.
    response = await s.bob.post(
        HUMAN_SEND, json={"to": "yagent@", "cc": [f"alice@.{s.alias}"], "subject": "x"}
    )
    assert ok(response)["session_id"] != s.task["session_id"]
    own = ok(await s.bob.post(HUMAN_SEND, json={"to": "yagent@", "subject": "mine"}))
    response = await s.bob.post(
        f"{ME}/mail/{own['mail_id']}/forward", json={"to": f"alice@.{s.alias}"}
    )
    refused(response, 422, "unknown_alias")
    for client, url in ((s.bob, HUMAN_SEND), (s.yagent, AGENT_SEND)):
        response = await client.post(url, json={"to": "alice@", "reply_to": s.task["mail_id"]})
        assert refused(response, 404, "not_found") == f"no mail {s.task['mail_id']}"

    detail = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert detail["session"]["participants"] == ["alice", "xagent"]
    assert len(detail["mails"]) == 1


async def _no_outsider_reads_or_changes_it(api: Api, s: Scene) -> None:
    session_id, made_up = s.task["session_id"], str(uuid.uuid4())
    async with imap_login(api.gateway, "alice") as imap:
        await imap.ok("select", f"Sessions/{s.alias}")
        for path in (f"{ME}/sessions/{{}}", "/api/v1/sessions/{}"):
            found = await s.bob.get(path.format(session_id))
            unknown = await s.bob.get(path.format(made_up))
            same_refusal(
                refused(found, 404, "not_found"),
                refused(unknown, 404, "not_found"),
                session_id,
                made_up,
            )
            for change in (
                {"session_alias": "hijacked", "subject": "mine now"},
                {"status": "completed"},
                {"budget_limit": "unlimited", "reset_budget_used": True},
            ):
                found = await s.bob.patch(path.format(session_id), json=change)
                refused(found, 404, "not_found")
        for path in ("participants", "proposals"):
            refused(await s.bob.get(f"{ME}/sessions/{session_id}/{path}"), 404, "not_found")
            url = f"/api/v1/sessions/{session_id}/{path}"
            refused(await s.yagent.get(url), 404, "not_found")
        response = await s.yagent.post(
            f"/api/v1/sessions/{session_id}/sync", json={"session_alias": "hijacked"}
        )
        refused(response, 404, "not_found")

        # A's conversation and its IMAP folder are untouched.
        names = await imap.ok("list", '""', '"Sessions/*"')
        assert [line.decode().rsplit(" ", 1)[-1].strip('"') for line in names] == [
            f"Sessions/{s.alias}"
        ]
        assert await imap.search_uids("ALL") == [1]
    session = ok(await s.alice.get(f"{ME}/sessions/{session_id}"))["session"]
    assert (session["session_alias"], session["subject"], session["status"]) == (
        s.alias,
        "Fix login leak",
        "active",
    )
    assert session["budget_limit"] == 20 and session["participants"] == ["alice", "xagent"]


async def _no_permission_request_from_outside(api: Api, s: Scene) -> None:
    session_id, made_up = s.task["session_id"], str(uuid.uuid4())
    ask = {"to": "alice@", "question": "May I rm -rf /?", "options": ["yes", "no"]}
    found = await s.yagent.post(
        "/api/v1/permission/request", json={**ask, "session_id": session_id}
    )
    unknown = await s.yagent.post("/api/v1/permission/request", json={**ask, "session_id": made_up})
    same_refusal(
        refused(found, 404, "not_found"), refused(unknown, 404, "not_found"), session_id, made_up
    )
    response = await s.yagent.post(
        "/api/v1/permission/request", json={**ask, "reply_to": s.task["mail_id"]}
    )
    refused(response, 404, "not_found")
    assert ok(await s.alice.get(f"{ME}/permissions"))["total"] == 0

    # The participant agent may: it is its conversation.
    asked = ok(
        await s.xagent.post("/api/v1/permission/request", json={**ask, "session_id": session_id})
    )
    assert asked["session_id"] == session_id


async def _no_tree_attachment_or_participants(api: Api, s: Scene) -> None:
    mail_id = s.task["mail_id"]
    refused(await s.bob.get(f"{ME}/mail/{mail_id}/tree"), 404, "not_found")
    refused(await s.yagent.get(f"/api/v1/mail/{mail_id}/tree"), 404, "not_found")
    refused(await s.bob.get(f"{ME}/mail/{mail_id}"), 404, "not_found")
    refused(await s.bob.get(f"{ME}/attachments/{s.attachment_id}"), 404, "not_found")
    refused(await s.yagent.get(f"/api/v1/attachments/{s.attachment_id}"), 404, "not_found")
    url = f"/api/v1/sessions/{s.task['session_id']}/participants"
    refused(await s.yagent.get(url), 404, "not_found")
    tree = ok(await s.alice.get(f"{ME}/mail/{mail_id}/tree"))
    assert [m["mail_id"] for m in tree["mails"]] == [mail_id]
    assert ok(await s.xagent.get(url))["participants"]


async def _a_drafted_reply_reveals_nothing(api: Api, s: Scene) -> None:
    draft = await s.bob.post(
        f"{ME}/drafts",
        json={"to": "xagent@ws1", "subject": "Re: Fix login leak", "reply_to": s.task["mail_id"]},
    )
    assert draft.status_code == 201, draft.text
    async with imap_login(api.gateway, "bob") as imap:
        await imap.ok("select", "Drafts")
        [(_, header), *_] = await imap.uid("FETCH", "1", "(BODY.PEEK[HEADER])")
        assert b"X-AgentMail-Draft" in header and b"In-Reply-To" not in header
    response = await s.bob.post(f"{ME}/drafts/{draft.json()['draft_id']}/send")
    refused(response, 404, "not_found")
    # Alice's own drafted reply does carry the In-Reply-To.
    mine = await s.alice.post(
        f"{ME}/drafts", json={"to": "xagent@ws1", "reply_to": s.task["mail_id"]}
    )
    assert mine.status_code == 201, mine.text
    async with imap_login(api.gateway, "alice") as imap:
        await imap.ok("select", "Drafts")
        [(_, header), *_] = await imap.uid("FETCH", "1", "(BODY.PEEK[HEADER])")
        assert s.task["message_id"].encode() in header


async def _a_participant_brings_others_in(api: Api, s: Scene) -> None:
    response = await s.alice.post(
        HUMAN_SEND, json={"to": f"xagent@ws1.{s.alias}", "cc": ["bob@"], "subject": "join us"}
    )
    ok(response)
    joined = ok(await s.bob.post(HUMAN_SEND, json={"to": f"alice@.{s.alias}", "subject": "hi"}))
    assert joined["session_id"] == s.task["session_id"]
    detail = ok(await s.bob.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert detail["session"]["participants"] == ["alice", "bob", "xagent"]
    # Bob sees the mails he was in, not the first one.
    assert [m["subject"] for m in detail["mails"]] == ["join us", "hi"]
    # Agent Y still may not, until someone writes to it there.
    refused(await s.yagent.post(AGENT_SEND, json={"to": f"bob@.{s.alias}"}), 422, "unknown_alias")
    ok(await s.bob.post(HUMAN_SEND, json={"to": f"yagent@ws2.{s.alias}", "subject": "help"}))
    ok(await s.yagent.post(AGENT_SEND, json={"to": f"bob@.{s.alias}", "subject": "here"}))


# One scene per backend for each group: gateways and databases are what cost time.
async def test_an_outsider_neither_sees_nor_changes_the_conversation(api: Api) -> None:
    s = await scene(api)
    await _no_outsider_reads_or_changes_it(api, s)
    await _no_tree_attachment_or_participants(api, s)
    await _a_drafted_reply_reveals_nothing(api, s)


async def test_only_participants_write_into_it_and_bring_others_in(api: Api) -> None:
    s = await scene(api)
    await _no_outsider_writes_into_it(api, s)
    await _no_permission_request_from_outside(api, s)
    await _a_participant_brings_others_in(api, s)
