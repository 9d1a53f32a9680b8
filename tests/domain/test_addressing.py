"""Three-part addressing: native and email forms, workspaces, conversations, aliases, cc.

docs/architecture.md, "Three-part addressing" and "Mapping onto real mail addresses".
The same rules hold for every entrance; tests/integration/test_addressing.py keeps
their HTTP mapping (status codes, the error's shape).
"""

from __future__ import annotations

from typing import Any

from tests.domain.world import Actor, D, World, refused


async def send(sender: Actor, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return await sender.send(to=to, **body)


async def inbox(actor: Actor) -> list[dict[str, Any]]:
    return await actor.inbox(order="oldest")


async def test_addresses_resolve_in_either_form(world: World) -> None:
    human = await world.human("jianf")
    await world.human("alice")
    builder = await world.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])
    opencode = await world.agent("opencode", [("proj", "/home/u/proj"), ("other", "/srv/other")])

    forms = [
        "builder@ModelRouter",
        "Builder@ModelRouter",
        f"builder+ModelRouter@{D}",
        "BUILDER+ModelRouter@AgentMail.LOCALHOST",
        f"<builder+ModelRouter@{D}>",
        "builder@/home/u/ModelRouter",
        f"builder+/home/u/ModelRouter@{D}",
        "builder@",
        f"builder@{D}",
    ]
    results = [await send(human, to) for to in forms]
    # All of them are the default conversation of jianf and builder's workspace ModelRouter.
    assert len({r["session_id"] for r in results}) == 1
    # Unnamed, it takes its alias from the first subject ("to builder@ModelRouter").
    assert {r["session_alias"] for r in results} == {"to-builder-modelrouter"}

    mails = await inbox(builder)
    assert [m["mail_id"] for m in mails] == [r["mail_id"] for r in results]
    for mail in mails:
        assert mail["to"] == "builder@ModelRouter.to-builder-modelrouter"
        assert mail["to_email"] == f"builder+ModelRouter+to-builder-modelrouter@{D}"
        assert mail["from"] == "jianf@.to-builder-modelrouter"
        assert mail["from_email"] == f"jianf++to-builder-modelrouter@{D}"
        assert mail["delivery"] == "to"

    # The path is case-sensitive: a wrong-case workspace is undeliverable, and the
    # error lists the agent's workspaces.
    message = await refused(human.send(to="builder@modelrouter", subject="x"), "unknown_workspace")
    assert "modelrouter" in message
    assert "ModelRouter (/home/u/ModelRouter)" in message
    await refused(human.send(to="builder@/home/u", subject="x"), "unknown_workspace")
    message = await refused(human.send(to="nobody@", subject="x"), "unknown_recipient")
    assert "nobody" in message
    # Another domain is not ours: read as a native address, its name is invalid.
    await refused(human.send(to="builder+ModelRouter@example.com"), "invalid_address")
    await refused(human.send(to="no-at-sign"), "invalid_address")
    # Nothing of the refused mails arrived.
    assert len(await inbox(builder)) == len(forms)

    # A workspace is addressed by its name or by its path; an empty path is the first.
    by_path = await send(human, "opencode@/home/u/proj")
    by_name = await send(human, "opencode@proj")
    first = await send(human, "opencode@")
    by_email_path = await send(human, f"opencode+/home/u/proj@{D}")
    assert (
        by_path["session_id"]
        == by_name["session_id"]
        == first["session_id"]
        == by_email_path["session_id"]
    )
    other_by_path = await send(human, "opencode@/srv/other")
    other_by_name = await send(human, f"opencode+other@{D}")
    assert other_by_path["session_id"] == other_by_name["session_id"]
    assert other_by_path["session_id"] != by_path["session_id"]
    to = {m["mail_id"]: (m["to"], m["to_email"]) for m in await inbox(opencode)}
    # Responses name the workspace by its name, the canonical (short) form, with the
    # alias each conversation took from its first subject.
    alias = "to-opencode-home-u-proj"
    for sent in (by_path, by_name, first, by_email_path):
        assert to[sent["mail_id"]] == (f"opencode@proj.{alias}", f"opencode+proj+{alias}@{D}")
    alias = "to-opencode-srv-other"
    for sent in (other_by_path, other_by_name):
        assert to[sent["mail_id"]] == (f"opencode@other.{alias}", f"opencode+other+{alias}@{D}")
    # An unregistered path is refused (never a stray conversation), listing the workspaces.
    message = await refused(human.send(to="opencode@/home", subject="stray"), "unknown_workspace")
    assert "proj (/home/u/proj)" in message and "other (/srv/other)" in message

    # A human's address has no path.
    for to_human in ("alice@something", f"alice+something@{D}", "alice@/home/alice"):
        message = await refused(human.send(to=to_human), "invalid_address")
        assert "alice" in message
        await refused(builder.send(to=to_human), "invalid_address")
    await refused(human.send(to="builder@", cc=["alice@x"]), "invalid_address")
    # The empty path, with or without a session part, is fine.
    to_alice = await send(human, "alice@")
    to_alice_new = await send(human, f"alice++new@{D}")
    assert to_alice["session_id"] != to_alice_new["session_id"]
    assert [m["mail_id"] for m in await inbox(builder)][len(forms) :] == []


async def test_default_conversation_per_sender_and_workspace(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent(
        "builder", [("ModelRouter", "/home/u/ModelRouter"), ("Gateway", "/srv/gateway")]
    )

    first = await send(jianf, "builder@ModelRouter", subject="first")
    second = await send(jianf, "builder@ModelRouter", subject="second")
    assert second["session_id"] == first["session_id"]

    # The pair is symmetric: the agent writing to jianf@ (no reply_to) lands there too.
    reply = await send(builder, "jianf@", subject="answer")
    assert reply["session_id"] == first["session_id"]
    [answer] = [m for m in await inbox(jianf) if m["mail_id"] == reply["mail_id"]]
    # The conversation was named from its first subject, and replies carry that alias.
    assert answer["from"] == "builder@ModelRouter.first"
    assert answer["to"] == "jianf@.first"
    assert answer["parent_mail_id"] is None

    other_workspace = await send(jianf, "builder@Gateway")
    other_human = await send(alice, "builder@ModelRouter")
    ids = {first["session_id"], other_workspace["session_id"], other_human["session_id"]}
    assert len(ids) == 3

    # Each is stable: the same pair finds the same conversation again.
    assert (await send(alice, "builder@"))["session_id"] == other_human["session_id"]
    again = await send(jianf, "builder@Gateway")
    assert again["session_id"] == other_workspace["session_id"]
    from_gateway = await send(builder, "jianf@", from_workspace="Gateway")
    assert from_gateway["session_id"] == other_workspace["session_id"]

    detail = await jianf.session(first["session_id"])
    assert detail["session"]["participants"] == ["builder", "jianf"]
    assert detail["session"]["mail_count"] == 3
    assert await jianf.session_ids() == {first["session_id"], other_workspace["session_id"]}
    assert await alice.session_ids() == {other_human["session_id"]}


async def test_new_always_opens_a_new_conversation(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder")

    default = await send(human, "builder@ModelRouter")
    opened = [
        await send(human, "builder@ModelRouter.new"),
        await send(human, "builder@ModelRouter.new"),
        await send(human, "builder@ModelRouter.NEW"),
        await send(human, f"builder+ModelRouter+new@{D}"),
    ]
    ids = [default["session_id"], *(o["session_id"] for o in opened)]
    assert len(set(ids)) == len(ids)

    # `.new` with reply_to: a new conversation, and the parent link is kept.
    branched = await send(human, "builder@ModelRouter.new", reply_to=default["mail_id"])
    assert branched["session_id"] not in ids
    mail = await human.mail(branched["mail_id"])
    assert mail["parent_mail_id"] == default["mail_id"]
    assert mail["session_id"] == branched["session_id"]

    # An agent's `jianf@.new` opens one too; the default conversation is untouched.
    from_agent = await send(builder, "jianf@.new")
    assert from_agent["session_id"] not in {*ids, branched["session_id"]}
    assert (await send(human, "builder@ModelRouter"))["session_id"] == default["session_id"]
    assert (await send(builder, "jianf@"))["session_id"] == default["session_id"]
    assert len(await human.session_ids()) == 7


async def test_aliases_name_existing_conversations(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])

    await builder.listen()
    task = await send(human, "builder@ModelRouter", session_alias="Add-Health-Check")
    assert task["session_alias"] == "add-health-check"  # stored lower-case
    [pushed] = await builder.events("new_mail")
    assert pushed["session_alias"] == "add-health-check"
    assert pushed["from"] == "jianf@.add-health-check"
    assert pushed["from_email"] == f"jianf++add-health-check@{D}"
    assert pushed["to"] == "builder@ModelRouter.add-health-check"

    # A taken alias gets -2, then -3; each is a new conversation.
    again = await send(human, "builder@ModelRouter", session_alias="add-health-check")
    third = await send(human, "builder@ModelRouter", session_alias="ADD-health-check")
    assert again["session_alias"] == "add-health-check-2"
    assert third["session_alias"] == "add-health-check-3"
    assert len({task["session_id"], again["session_id"], third["session_id"]}) == 3

    # `.alias` delivers into that conversation, in either form and any case.
    into = [
        await send(human, "builder@ModelRouter.add-health-check"),
        await send(human, f"builder+ModelRouter+Add-Health-Check@{D}"),
        await send(builder, "jianf@.add-health-check"),
        await send(builder, f"jianf++add-health-check@{D}"),
        await send(human, "builder@ModelRouter.add-health-check-2"),
    ]
    assert [r["session_id"] for r in into] == [task["session_id"]] * 4 + [again["session_id"]]
    assert all(r["session_alias"] == "add-health-check" for r in into[:4])

    # Addresses in views carry the session alias; the email form sits beside them.
    mails = {m["mail_id"]: m for m in await inbox(builder)}
    received = mails[task["mail_id"]]
    assert received["session_alias"] == "add-health-check"
    assert received["from"] == "jianf@.add-health-check"
    assert received["from_email"] == f"jianf++add-health-check@{D}"
    assert received["to"] == "builder@ModelRouter.add-health-check"
    assert received["to_email"] == f"builder+ModelRouter+add-health-check@{D}"
    reply = await human.mail(into[2]["mail_id"])
    assert reply["from"] == "builder@ModelRouter.add-health-check"
    assert reply["from_email"] == f"builder+ModelRouter+add-health-check@{D}"
    assert reply["to"] == "jianf@.add-health-check"
    assert reply["to_email"] == f"jianf++add-health-check@{D}"

    # An unknown alias is undeliverable and creates nothing.
    before = await human.session_ids()
    for to in ("builder@ModelRouter.no-such-thing", f"builder+ModelRouter+no-such-thing@{D}"):
        message = await refused(human.send(to=to, subject="lost"), "unknown_alias")
        assert message == "undeliverable: no conversation 'no-such-thing'"
    await refused(builder.send(to="jianf@.no-such-thing"), "unknown_alias")
    assert await human.session_ids() == before
    assert await builder.session_ids() == before
    assert len(await inbox(builder)) == 6

    # `new` is reserved and an alias has no dots or spaces.
    for bad in ("new", "has space", "with.dot"):
        await refused(human.send(to="builder@", session_alias=bad), "invalid_address")
    assert await human.session_ids() == before


async def test_agent_with_two_workspaces_chooses_the_sending_one(world: World) -> None:
    human = await world.human("jianf")
    builder = await world.agent(
        "builder", [("ModelRouter", "/home/u/ModelRouter"), ("Gateway", "/srv/gateway")]
    )
    task = await send(human, "builder@Gateway", session_alias="gw-task")

    # A reply without from_workspace comes from the workspace the parent was addressed to.
    reply = await send(builder, "jianf@", reply_to=task["mail_id"])
    assert reply["session_id"] == task["session_id"]
    shown = await human.mail(reply["mail_id"])
    assert shown["from"] == "builder@Gateway.gw-task"
    assert shown["from_email"] == f"builder+Gateway+gw-task@{D}"
    assert shown["parent_mail_id"] == task["mail_id"]

    # Without a parent it is the first workspace; from_workspace (name or path) picks one.
    plain = await send(builder, "jianf@")
    by_name = await send(builder, "jianf@", from_workspace="Gateway")
    by_path = await send(builder, "jianf@", from_workspace="/srv/gateway")
    explicit = await send(builder, "jianf@", reply_to=task["mail_id"], from_workspace="ModelRouter")
    # (Each default conversation is named from its first subject, "to jianf@".)
    froms = {m["mail_id"]: m["from"] for m in await inbox(human)}
    assert froms[plain["mail_id"]] == "builder@ModelRouter.to-jianf"
    assert froms[by_name["mail_id"]] == "builder@Gateway.to-jianf-2"
    assert froms[by_path["mail_id"]] == "builder@Gateway.to-jianf-2"
    assert froms[explicit["mail_id"]] == "builder@ModelRouter.gw-task"
    assert explicit["session_id"] == task["session_id"]
    assert plain["session_id"] != by_name["session_id"] == by_path["session_id"]

    message = await refused(
        builder.send(to="jianf@", from_workspace="Elsewhere"), "unknown_workspace"
    )
    assert "Elsewhere" in message
    # A parent the sender can not see is no parent at all.
    await refused(builder.send(to="jianf@", reply_to="no-such-mail"), "not_found")


async def test_cc_recipients_get_the_mail(world: World) -> None:
    jianf = await world.human("jianf")
    alice = await world.human("alice")
    builder = await world.agent("builder")
    reviewer = await world.agent("reviewer", [("repo", "/srv/repo")])

    await alice.listen()
    sent = await send(
        jianf, "builder@ModelRouter", cc=["Alice@", f"reviewer+repo@{D}"], session_alias="cc-test"
    )
    [pushed] = await alice.events("new_mail")
    assert pushed["mail_id"] == sent["mail_id"]
    assert pushed["to"] == "builder@ModelRouter.cc-test"

    expected_cc = ["alice@.cc-test", "reviewer@repo.cc-test"]
    expected_cc_email = [f"alice++cc-test@{D}", f"reviewer+repo+cc-test@{D}"]
    views = {
        "builder": (await inbox(builder))[0],
        "alice": (await inbox(alice))[0],
        "reviewer": (await inbox(reviewer))[0],
    }
    assert {who: v["delivery"] for who, v in views.items()} == {
        "builder": "to",
        "alice": "cc",
        "reviewer": "cc",
    }
    for view in views.values():
        assert view["mail_id"] == sent["mail_id"]
        assert view["status"] == "unread"
        assert view["to"] == "builder@ModelRouter.cc-test"
        assert view["cc"] == expected_cc
        assert view["cc_email"] == expected_cc_email
    # The sender is no recipient of its own mail.
    assert await inbox(jianf) == []

    detail = await alice.session(sent["session_id"])
    assert detail["session"]["participants"] == ["alice", "builder", "jianf", "reviewer"]
    # A recipient named twice (as to and cc, or twice in cc) gets one copy, as `to`.
    twice = await send(jianf, "builder@ModelRouter", cc=["builder@ModelRouter", "alice@", "alice@"])
    copies = [m for m in await inbox(builder) if m["mail_id"] == twice["mail_id"]]
    assert [m["delivery"] for m in copies] == ["to"]
    copies = [m for m in await inbox(alice) if m["mail_id"] == twice["mail_id"]]
    assert [m["delivery"] for m in copies] == ["cc"]

    # An undeliverable cc refuses the whole mail.
    await refused(jianf.send(to="builder@", cc=["ghost@"]), "unknown_recipient")
    assert len(await inbox(builder)) == 2

    # The event names the cc'd recipients as the mail views do, with the session alias
    # (like its `from` and `to`), so a reply-all from the event stays in the conversation.
    assert pushed["cc"] == expected_cc
