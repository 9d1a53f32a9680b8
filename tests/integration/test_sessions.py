"""Conversations ("sessions"): listing, detail, renames, closing, platform sync, events."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused
from tests.support.sse import SseStream, open_stream


async def send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(url, json={"to": to, **body}))


async def sessions(
    client: httpx.AsyncClient, path: str = "/api/v1/sessions", **params: Any
) -> tuple[dict[str, dict[str, Any]], int]:
    listed = ok(await client.get(path, params=params))
    by_id = {s["session_id"]: s for s in listed["sessions"]}
    assert len(by_id) == len(listed["sessions"])
    total: int = listed["total"]
    return by_id, total


async def update_for(stream: SseStream, session_id: str) -> dict[str, Any]:
    while True:
        event: dict[str, Any] = (await stream.next_of("session_update")).json
        if event["session_id"] == session_id:
            return event


async def test_lists_only_the_callers_conversations(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])

    one = await send(jianf, HUMAN_SEND, "builder@", subject="first task", session_alias="one")
    two = await send(alice, HUMAN_SEND, "builder@", subject="second task", session_alias="two")
    three = await send(
        builder, AGENT_SEND, "reviewer@repo", subject="review", session_alias="three"
    )
    await send(jianf, HUMAN_SEND, "builder@.one", subject="more")
    ok(
        await builder.post(
            "/api/v1/permission/request",
            json={"to": "jianf@", "question": "May I?", "session_id": one["session_id"]},
        )
    )

    for path in ("/api/v1/sessions", "/api/v1/me/sessions"):
        mine, total = await sessions(jianf, path)
        assert (list(mine), total) == ([one["session_id"]], 1)
        view = mine[one["session_id"]]
        assert view["session_alias"] == "one"
        assert view["subject"] == "first task"
        assert view["status"] == "waiting"
        assert view["participants"] == ["builder", "jianf"]
        assert view["mail_count"] == 3
        assert view["created_by"] == "jianf"
        assert (view["budget_limit"], view["budget_used"], view["budget_remaining"]) == (20, 1, 19)

    mine, total = await sessions(alice, "/api/v1/me/sessions")
    assert (list(mine), total) == ([two["session_id"]], 1)
    assert mine[two["session_id"]]["mail_count"] == 1
    mine, total = await sessions(reviewer)
    assert (list(mine), total) == ([three["session_id"]], 1)
    assert mine[three["session_id"]]["participants"] == ["builder", "reviewer"]
    mine, total = await sessions(builder)
    assert set(mine) == {one["session_id"], two["session_id"], three["session_id"]}
    assert total == 3

    # Filters and paging.
    mine, total = await sessions(builder, status="waiting")
    assert (set(mine), total) == ({one["session_id"]}, 1)
    mine, total = await sessions(builder, status="active")
    assert (set(mine), total) == ({two["session_id"], three["session_id"]}, 2)
    assert await sessions(builder, status="completed") == ({}, 0)
    assert await sessions(jianf, status="active") == ({}, 0)
    page, total = await sessions(builder, limit=2)
    assert (len(page), total) == (2, 3)
    rest, total = await sessions(builder, limit=2, offset=2)
    assert (len(rest), total) == (1, 3)
    assert set(page) | set(rest) == {one["session_id"], two["session_id"], three["session_id"]}

    refused(
        await builder.get("/api/v1/sessions", params={"status": "done"}), 422, "invalid_request"
    )
    refused(await builder.get("/api/v1/me/sessions"), 403, "forbidden")


async def test_detail_shows_only_the_callers_mails_oldest_first(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])
    outsider = await api.agent("outsider", [("x", "/x")])

    task = await send(jianf, HUMAN_SEND, "builder@", subject="task", session_alias="shared")
    session_id = task["session_id"]
    aside = await send(builder, AGENT_SEND, "reviewer@repo.shared", subject="aside")
    answer = await send(reviewer, AGENT_SEND, "builder@ModelRouter.shared", subject="lgtm")
    result = await send(builder, AGENT_SEND, "jianf@.shared", subject="done")
    assert {aside["session_id"], answer["session_id"], result["session_id"]} == {session_id}

    expected = {
        jianf: [task, result],
        builder: [task, aside, answer, result],
        reviewer: [aside, answer],
    }
    for client, mails in expected.items():
        detail = ok(await client.get(f"/api/v1/sessions/{session_id}"))
        assert [m["mail_id"] for m in detail["mails"]] == [m["mail_id"] for m in mails]
        assert detail["session"]["session_id"] == session_id
        assert detail["session"]["participants"] == ["builder", "jianf", "reviewer"]
        assert all(m["session_alias"] == "shared" for m in detail["mails"])
    detail = ok(await jianf.get(f"/api/v1/me/sessions/{session_id}"))
    assert [m["subject"] for m in detail["mails"]] == ["task", "done"]
    assert [m["delivery"] for m in detail["mails"]] == [None, "to"]
    assert detail["mails"][1]["from"] == "builder@ModelRouter.shared"

    # Outsiders: 404, as for a conversation that does not exist.
    for client, path in (
        (alice, "/api/v1/sessions"),
        (alice, "/api/v1/me/sessions"),
        (outsider, "/api/v1/sessions"),
        (jianf, "/api/v1/sessions"),
    ):
        target = "no-such-session" if client is jianf else session_id
        refused(await client.get(f"{path}/{target}"), 404, "not_found")


async def test_humans_rename_agents_cannot(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    first = await send(jianf, HUMAN_SEND, "builder@", session_alias="first")
    second = await send(jianf, HUMAN_SEND, "builder@", session_alias="second")
    url = f"/api/v1/sessions/{first['session_id']}"

    async with open_stream(builder) as agent_stream, open_stream(jianf) as human_stream:
        view = ok(await jianf.patch(url, json={"session_alias": "Renamed"}))
        assert view["session_alias"] == "renamed"
        for stream in (agent_stream, human_stream):
            event = await update_for(stream, first["session_id"])
            assert (event["session_alias"], event["status"]) == ("renamed", "active")

    # The new alias addresses it; the old one too, for its participants only (a mail
    # client replies to the address it synced before the rename).
    moved = await send(jianf, HUMAN_SEND, "builder@ModelRouter.renamed")
    assert moved["session_id"] == first["session_id"]
    kept = await send(jianf, HUMAN_SEND, "builder@ModelRouter.first")
    assert kept["session_id"] == first["session_id"]
    refused(
        await alice.post(HUMAN_SEND, json={"to": "builder@ModelRouter.first"}), 422, "unknown_alias"
    )
    shown = ok(await builder.get(f"/api/v1/mail/{first['mail_id']}"))
    assert shown["to"] == "builder@ModelRouter.renamed"

    # A taken alias gets a suffix, as at creation: a refusal would tell who asks that
    # the alias exists (test_a_rename_never_tells_whether_an_alias_exists).
    suffixed = ok(await jianf.patch(url, json={"session_alias": "SECOND"}))
    assert suffixed["session_alias"] == "second-2"
    again = ok(await jianf.patch(url, json={"session_alias": "renamed"}))
    assert again["session_alias"] == "renamed"
    view = ok(
        await jianf.patch(
            f"/api/v1/me/sessions/{first['session_id']}",
            json={"session_alias": "via-me", "subject": "New title"},
        )
    )
    assert (view["session_alias"], view["subject"]) == ("via-me", "New title")
    assert (
        ok(await jianf.get(f"/api/v1/sessions/{second['session_id']}"))["session"]["session_alias"]
        == "second"
    )

    for bad in ("new", "has space", "a.b"):
        refused(await jianf.patch(url, json={"session_alias": bad}), 422, "invalid_address")
    refused(await jianf.patch(url, json={"status": "waiting"}), 422, "invalid_request")

    # Agents cannot rename or close; outsiders do not see it.
    refused(await builder.patch(url, json={"session_alias": "mine"}), 403, "forbidden")
    refused(await builder.patch(url, json={"status": "completed"}), 403, "forbidden")
    refused(
        await builder.patch(f"/api/v1/me/sessions/{first['session_id']}", json={}),
        403,
        "forbidden",
    )
    refused(await alice.patch(url, json={"session_alias": "stolen"}), 404, "not_found")
    session = ok(await jianf.get(url))["session"]
    assert (session["session_alias"], session["status"]) == ("via-me", "active")


async def test_a_rename_never_tells_whether_an_alias_exists(api: Api) -> None:
    """Aliases come from subjects: renaming your conversation to an alias held by one
    you are not in answers as for a free one (a suffix, as at creation), and the
    holder keeps its alias."""
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    hers = await send(alice, HUMAN_SEND, "builder@", subject="Fix login")
    mine = await send(jianf, HUMAN_SEND, "builder@", session_alias="mine")
    hers_alias = ok(await alice.get(f"/api/v1/me/sessions/{hers['session_id']}"))["session"]
    assert hers_alias["session_alias"] == "fix-login"
    url = f"/api/v1/me/sessions/{mine['session_id']}"
    taken = ok(await jianf.patch(url, json={"session_alias": "fix-login"}))
    free = ok(await jianf.patch(url, json={"session_alias": "fix-logout"}))
    assert (taken["session_alias"], free["session_alias"]) == ("fix-login-2", "fix-logout")
    again = ok(await alice.get(f"/api/v1/me/sessions/{hers['session_id']}"))["session"]
    assert again["session_alias"] == "fix-login"
    # The alias given addresses the conversation.
    moved = await send(jianf, HUMAN_SEND, "builder@ModelRouter.fix-logout")
    assert moved["session_id"] == mine["session_id"]
    # An agent's proposal of the taken alias, accepted, is suffixed the same way.
    proposed = {"reply_to": mine["mail_id"], "propose_alias": "fix-login"}
    await send(builder, AGENT_SEND, "jianf@", **proposed)
    [proposal] = ok(await jianf.get(f"{url}/proposals"))["proposals"]
    accepted = ok(await jianf.post(f"{url}/proposals/{proposal['proposal_id']}/accept"))
    assert accepted["session_alias"] == "fix-login-2"


async def test_completing_and_reopening(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    task = await send(jianf, HUMAN_SEND, "builder@", session_alias="closing")
    session_id = task["session_id"]
    url = f"/api/v1/me/sessions/{session_id}"

    async with open_stream(builder) as agent_stream, open_stream(jianf) as human_stream:
        view = ok(await jianf.patch(url, json={"status": "completed"}))
        assert view["status"] == "completed"
        for stream in (agent_stream, human_stream):
            assert (await update_for(stream, session_id))["status"] == "completed"
        completed, total = await sessions(jianf, status="completed")
        assert (list(completed), total) == ([session_id], 1)
        assert await sessions(builder, status="active") == ({}, 0)

        # A new mail reopens it.
        reply = await send(builder, AGENT_SEND, "jianf@", reply_to=task["mail_id"])
        assert reply["session_id"] == session_id
        for stream in (agent_stream, human_stream):
            assert (await update_for(stream, session_id))["status"] == "active"
        assert ok(await jianf.get(url))["session"]["status"] == "active"

        # Closed again, then reopened by hand.
        ok(await jianf.patch(url, json={"status": "completed"}))
        assert (await update_for(human_stream, session_id))["status"] == "completed"
        assert ok(await jianf.patch(url, json={"status": "active"}))["status"] == "active"
        assert (await update_for(human_stream, session_id))["status"] == "active"

        # A human's mail into the closed conversation reopens it as well.
        ok(await jianf.patch(url, json={"status": "completed"}))
        assert (await update_for(agent_stream, session_id))["status"] == "completed"
        await send(jianf, HUMAN_SEND, "builder@ModelRouter.closing")
        assert (await update_for(agent_stream, session_id))["status"] == "active"
    assert (await sessions(builder, status="active"))[1] == 1


async def test_platform_sync_and_human_renames_win(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    outsider = await api.agent("outsider", [("x", "/x")])
    unnamed = await send(jianf, HUMAN_SEND, "builder@", subject="untitled")
    taken = await send(jianf, HUMAN_SEND, "builder@", session_alias="fix-login")
    sync = f"/api/v1/sessions/{unnamed['session_id']}/sync"

    async with open_stream(builder) as agent_stream, open_stream(jianf) as human_stream:
        view = ok(
            await builder.post(sync, json={"session_alias": "Fix-Login", "title": "Fix the login"})
        )
        assert view["session_alias"] == "fix-login-2"  # taken: suffixed
        assert view["subject"] == "Fix the login"
        for stream in (agent_stream, human_stream):
            event = await update_for(stream, unnamed["session_id"])
            assert (event["session_alias"], event["subject"]) == ("fix-login-2", "Fix the login")

        into = await send(jianf, HUMAN_SEND, "builder@ModelRouter.fix-login-2")
        assert into["session_id"] == unnamed["session_id"]
        assert (
            ok(await jianf.get(f"/api/v1/sessions/{taken['session_id']}"))["session"][
                "session_alias"
            ]
            == "fix-login"
        )

        # A platform may rename what the platform named.
        view = ok(await builder.post(sync, json={"session_alias": "login-bug"}))
        assert view["session_alias"] == "login-bug"
        for stream in (agent_stream, human_stream):
            event = await update_for(stream, unnamed["session_id"])
            assert event["session_alias"] == "login-bug"

        # After a human rename, a later sync does not change the alias.
        ok(
            await jianf.patch(
                f"/api/v1/sessions/{unnamed['session_id']}", json={"session_alias": "my-name"}
            )
        )
        assert (await update_for(agent_stream, unnamed["session_id"]))["session_alias"] == (
            "my-name"
        )
        view = ok(await builder.post(sync, json={"session_alias": "platform-name"}))
        assert view["session_alias"] == "my-name"
        assert (
            ok(await jianf.get(f"/api/v1/sessions/{unnamed['session_id']}"))["session"][
                "session_alias"
            ]
            == "my-name"
        )
        refused(
            await jianf.post(HUMAN_SEND, json={"to": "builder@.platform-name"}),
            422,
            "unknown_alias",
        )

    refused(await outsider.post(sync, json={"session_alias": "hijack"}), 404, "not_found")
    taken_sync = f"/api/v1/sessions/{taken['session_id']}/sync"
    for bad in ("new", "has space"):
        refused(await builder.post(taken_sync, json={"session_alias": bad}), 422, "invalid_address")
