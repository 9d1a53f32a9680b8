"""Conversations ("sessions"): listing, detail, renames, closing, platform sync, events.

tests/integration/test_sessions.py keeps the endpoints' HTTP mapping.
"""

from __future__ import annotations

from typing import Any

from tests.domain.world import Actor, World, refused


async def send(sender: Actor, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return await sender.send(to=to, **body)


async def updates(actor: Actor, session_id: str) -> list[dict[str, Any]]:
    """The conversation's `session_update` events since the last look."""
    return [e for e in await actor.events("session_update") if e["session_id"] == session_id]


async def statuses(actor: Actor, session_id: str) -> list[str]:
    return [e["status"] for e in await updates(actor, session_id)]


async def test_lists_only_the_callers_conversations(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent("builder")
    reviewer = await world.agent("reviewer", [("repo", "/srv/repo")])

    one = await send(jianf, "builder@", subject="first task", session_alias="one")
    two = await send(alice, "builder@", subject="second task", session_alias="two")
    three = await send(builder, "reviewer@repo", subject="review", session_alias="three")
    await send(jianf, "builder@.one", subject="more")
    await builder.ask(to="jianf@", question="May I?", session_id=one["session_id"])

    mine, total = await jianf.listing()
    assert (list(mine), total) == ([one["session_id"]], 1)
    view = mine[one["session_id"]]
    assert view["session_alias"] == "one"
    assert view["subject"] == "first task"
    assert view["status"] == "waiting"
    assert view["participants"] == ["builder", "jianf"]
    assert view["mail_count"] == 3
    assert view["created_by"] == "jianf"
    assert (view["budget_limit"], view["budget_used"], view["budget_remaining"]) == (20, 1, 19)

    mine, total = await alice.listing()
    assert (list(mine), total) == ([two["session_id"]], 1)
    assert mine[two["session_id"]]["mail_count"] == 1
    mine, total = await reviewer.listing()
    assert (list(mine), total) == ([three["session_id"]], 1)
    assert mine[three["session_id"]]["participants"] == ["builder", "reviewer"]
    mine, total = await builder.listing()
    assert set(mine) == {one["session_id"], two["session_id"], three["session_id"]}
    assert total == 3

    # Filters and paging.
    mine, total = await builder.listing(status="waiting")
    assert (set(mine), total) == ({one["session_id"]}, 1)
    mine, total = await builder.listing(status="active")
    assert (set(mine), total) == ({two["session_id"], three["session_id"]}, 2)
    assert await builder.listing(status="completed") == ({}, 0)
    assert await jianf.listing(status="active") == ({}, 0)
    page, total = await builder.listing(limit=2)
    assert (len(page), total) == (2, 3)
    rest, total = await builder.listing(limit=2, offset=2)
    assert (len(rest), total) == (1, 3)
    assert set(page) | set(rest) == {one["session_id"], two["session_id"], three["session_id"]}


async def test_detail_shows_only_the_callers_mails_oldest_first(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent("builder")
    reviewer = await world.agent("reviewer", [("repo", "/srv/repo")])
    outsider = await world.agent("outsider", [("x", "/x")])

    task = await send(jianf, "builder@", subject="task", session_alias="shared")
    session_id = task["session_id"]
    aside = await send(builder, "reviewer@repo.shared", subject="aside")
    answer = await send(reviewer, "builder@ModelRouter.shared", subject="lgtm")
    result = await send(builder, "jianf@.shared", subject="done")
    assert {aside["session_id"], answer["session_id"], result["session_id"]} == {session_id}

    expected = {
        jianf: [task, result],
        builder: [task, aside, answer, result],
        reviewer: [aside, answer],
    }
    for actor, mails in expected.items():
        detail = await actor.session(session_id)
        assert [m["mail_id"] for m in detail["mails"]] == [m["mail_id"] for m in mails]
        assert detail["session"]["session_id"] == session_id
        assert detail["session"]["participants"] == ["builder", "jianf", "reviewer"]
        assert all(m["session_alias"] == "shared" for m in detail["mails"])
    detail = await jianf.session(session_id)
    assert [m["subject"] for m in detail["mails"]] == ["task", "done"]
    assert [m["delivery"] for m in detail["mails"]] == [None, "to"]
    assert detail["mails"][1]["from"] == "builder@ModelRouter.shared"

    # Outsiders: not found, as for a conversation that does not exist.
    await refused(alice.session(session_id), "not_found")
    await refused(outsider.session(session_id), "not_found")
    await refused(jianf.session("no-such-session"), "not_found")


async def test_humans_rename_agents_cannot(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent("builder")
    first = await send(jianf, "builder@", session_alias="first")
    second = await send(jianf, "builder@", session_alias="second")
    first_id = first["session_id"]

    await builder.listen()
    await jianf.listen()
    view = await jianf.change_session(first_id, session_alias="Renamed")
    assert view["session_alias"] == "renamed"
    for actor in (builder, jianf):
        [event] = await updates(actor, first_id)
        assert (event["session_alias"], event["status"]) == ("renamed", "active")

    # The new alias addresses it; the old one too, for its participants only (a mail
    # client replies to the address it synced before the rename).
    moved = await send(jianf, "builder@ModelRouter.renamed")
    assert moved["session_id"] == first_id
    kept = await send(jianf, "builder@ModelRouter.first")
    assert kept["session_id"] == first_id
    await refused(alice.send(to="builder@ModelRouter.first"), "unknown_alias")
    shown = await builder.mail(first["mail_id"])
    assert shown["to"] == "builder@ModelRouter.renamed"

    # A taken alias gets a suffix, as at creation: a refusal would tell who asks that
    # the alias exists (test_a_rename_never_tells_whether_an_alias_exists).
    suffixed = await jianf.change_session(first_id, session_alias="SECOND")
    assert suffixed["session_alias"] == "second-2"
    again = await jianf.change_session(first_id, session_alias="renamed")
    assert again["session_alias"] == "renamed"
    view = await jianf.change_session(first_id, session_alias="via-me", subject="New title")
    assert (view["session_alias"], view["subject"]) == ("via-me", "New title")
    assert (await jianf.session(second["session_id"]))["session"]["session_alias"] == "second"

    for bad in ("new", "has space", "a.b"):
        await refused(jianf.change_session(first_id, session_alias=bad), "invalid_address")
    await refused(jianf.change_session(first_id, status="waiting"), "invalid_request")

    # Agents cannot rename or close; outsiders do not see it.
    await refused(builder.change_session(first_id, session_alias="mine"), "forbidden")
    await refused(builder.change_session(first_id, status="completed"), "forbidden")
    await refused(alice.change_session(first_id, session_alias="stolen"), "not_found")
    session = (await jianf.session(first_id))["session"]
    assert (session["session_alias"], session["status"]) == ("via-me", "active")


async def test_a_rename_never_tells_whether_an_alias_exists(world: World) -> None:
    """Aliases come from subjects: renaming your conversation to an alias held by one
    you are not in answers as for a free one (a suffix, as at creation), and the
    holder keeps its alias."""
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent("builder")
    hers = await send(alice, "builder@", subject="Fix login")
    mine = await send(jianf, "builder@", session_alias="mine")
    hers_alias = (await alice.session(hers["session_id"]))["session"]
    assert hers_alias["session_alias"] == "fix-login"
    taken = await jianf.change_session(mine["session_id"], session_alias="fix-login")
    free = await jianf.change_session(mine["session_id"], session_alias="fix-logout")
    assert (taken["session_alias"], free["session_alias"]) == ("fix-login-2", "fix-logout")
    again = (await alice.session(hers["session_id"]))["session"]
    assert again["session_alias"] == "fix-login"
    # The alias given addresses the conversation.
    moved = await send(jianf, "builder@ModelRouter.fix-logout")
    assert moved["session_id"] == mine["session_id"]
    # An agent's proposal of the taken alias, accepted, is suffixed the same way.
    await send(builder, "jianf@", reply_to=mine["mail_id"], propose_alias="fix-login")
    [proposal] = await jianf.proposals(mine["session_id"])
    accepted = await jianf.decide_proposal(mine["session_id"], proposal["proposal_id"], accept=True)
    assert accepted["session_alias"] == "fix-login-2"


async def test_completing_and_reopening(world: World) -> None:
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    task = await send(jianf, "builder@", session_alias="closing")
    session_id = task["session_id"]

    await builder.listen()
    await jianf.listen()
    view = await jianf.change_session(session_id, status="completed")
    assert view["status"] == "completed"
    for actor in (builder, jianf):
        assert await statuses(actor, session_id) == ["completed"]
    completed, total = await jianf.listing(status="completed")
    assert (list(completed), total) == ([session_id], 1)
    assert await builder.listing(status="active") == ({}, 0)

    # A new mail reopens it.
    reply = await send(builder, "jianf@", reply_to=task["mail_id"])
    assert reply["session_id"] == session_id
    for actor in (builder, jianf):
        assert await statuses(actor, session_id) == ["active"]
    assert (await jianf.session(session_id))["session"]["status"] == "active"

    # Closed again, then reopened by hand.
    await jianf.change_session(session_id, status="completed")
    assert await statuses(jianf, session_id) == ["completed"]
    assert (await jianf.change_session(session_id, status="active"))["status"] == "active"
    assert await statuses(jianf, session_id) == ["active"]

    # A human's mail into the closed conversation reopens it as well.
    await jianf.change_session(session_id, status="completed")
    assert await statuses(builder, session_id) == ["completed", "active", "completed"]
    await send(jianf, "builder@ModelRouter.closing")
    assert await statuses(builder, session_id) == ["active"]
    assert (await builder.listing(status="active"))[1] == 1


async def test_platform_sync_and_human_renames_win(world: World) -> None:
    jianf = await world.human("jianf")
    builder = await world.agent("builder")
    outsider = await world.agent("outsider", [("x", "/x")])
    unnamed = await send(jianf, "builder@", subject="untitled")
    taken = await send(jianf, "builder@", session_alias="fix-login")
    unnamed_id = unnamed["session_id"]

    await builder.listen()
    await jianf.listen()
    view = await builder.sync_session(unnamed_id, alias="Fix-Login", title="Fix the login")
    assert view["session_alias"] == "fix-login-2"  # taken: suffixed
    assert view["subject"] == "Fix the login"
    for actor in (builder, jianf):
        [event] = await updates(actor, unnamed_id)
        assert (event["session_alias"], event["subject"]) == ("fix-login-2", "Fix the login")

    into = await send(jianf, "builder@ModelRouter.fix-login-2")
    assert into["session_id"] == unnamed_id
    assert (await jianf.session(taken["session_id"]))["session"]["session_alias"] == "fix-login"

    # A platform may rename what the platform named.
    view = await builder.sync_session(unnamed_id, alias="login-bug")
    assert view["session_alias"] == "login-bug"
    for actor in (builder, jianf):
        [event] = await updates(actor, unnamed_id)
        assert event["session_alias"] == "login-bug"

    # After a human rename, a later sync does not change the alias.
    await jianf.change_session(unnamed_id, session_alias="my-name")
    [event] = await updates(builder, unnamed_id)
    assert event["session_alias"] == "my-name"
    view = await builder.sync_session(unnamed_id, alias="platform-name")
    assert view["session_alias"] == "my-name"
    assert (await jianf.session(unnamed_id))["session"]["session_alias"] == "my-name"
    await refused(jianf.send(to="builder@.platform-name"), "unknown_alias")

    await refused(outsider.sync_session(unnamed_id, alias="hijack"), "not_found")
    for bad in ("new", "has space"):
        await refused(builder.sync_session(taken["session_id"], alias=bad), "invalid_address")
