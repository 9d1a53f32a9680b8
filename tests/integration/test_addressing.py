"""Three-part addressing over REST: native and email forms, workspaces, conversations.

ARCHITECTURE.md, "Three-part addressing" and "Mapping onto real mail addresses".
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused
from tests.support.sse import open_stream

D = "agentmail.localhost"


async def human_send(client: httpx.AsyncClient, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(HUMAN_SEND, json={"to": to, **body}))


async def agent_send(client: httpx.AsyncClient, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(AGENT_SEND, json={"to": to, **body}))


async def inbox(client: httpx.AsyncClient, *, human: bool = False) -> list[dict[str, Any]]:
    path = "/api/v1/me/mail/inbox" if human else "/api/v1/mail/inbox"
    mails: list[dict[str, Any]] = ok(await client.get(path, params={"order": "oldest"}))["mails"]
    return mails


async def session_ids(client: httpx.AsyncClient) -> set[str]:
    listed = ok(await client.get("/api/v1/sessions", params={"limit": 500}))
    return {s["session_id"] for s in listed["sessions"]}


async def test_addresses_resolve_in_either_form(api: Api) -> None:
    human = await api.human("jianf")
    await api.human("alice")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])
    opencode = await api.agent("opencode", [("proj", "/home/u/proj"), ("other", "/srv/other")])

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
    results = [await human_send(human, to) for to in forms]
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
    message = refused(
        await human.post(HUMAN_SEND, json={"to": "builder@modelrouter", "subject": "x"}),
        422,
        "unknown_workspace",
    )
    assert "modelrouter" in message
    assert "ModelRouter (/home/u/ModelRouter)" in message
    refused(
        await human.post(HUMAN_SEND, json={"to": "builder@/home/u", "subject": "x"}),
        422,
        "unknown_workspace",
    )
    message = refused(
        await human.post(HUMAN_SEND, json={"to": "nobody@", "subject": "x"}),
        422,
        "unknown_recipient",
    )
    assert "nobody" in message
    # Another domain is not ours: read as a native address, its name is invalid.
    refused(
        await human.post(HUMAN_SEND, json={"to": "builder+ModelRouter@example.com"}),
        422,
        "invalid_address",
    )
    refused(await human.post(HUMAN_SEND, json={"to": "no-at-sign"}), 422, "invalid_address")
    # Nothing of the refused mails arrived.
    assert len(await inbox(builder)) == len(forms)

    # A workspace is addressed by its name or by its path; an empty path is the first.
    by_path = await human_send(human, "opencode@/home/u/proj")
    by_name = await human_send(human, "opencode@proj")
    first = await human_send(human, "opencode@")
    by_email_path = await human_send(human, f"opencode+/home/u/proj@{D}")
    assert (
        by_path["session_id"]
        == by_name["session_id"]
        == first["session_id"]
        == by_email_path["session_id"]
    )
    other_by_path = await human_send(human, "opencode@/srv/other")
    other_by_name = await human_send(human, f"opencode+other@{D}")
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
    message = refused(
        await human.post(HUMAN_SEND, json={"to": "opencode@/home", "subject": "stray"}),
        422,
        "unknown_workspace",
    )
    assert "proj (/home/u/proj)" in message and "other (/srv/other)" in message

    # A human's address has no path.
    for to in ("alice@something", f"alice+something@{D}", "alice@/home/alice"):
        message = refused(await human.post(HUMAN_SEND, json={"to": to}), 422, "invalid_address")
        assert "alice" in message
        refused(await builder.post(AGENT_SEND, json={"to": to}), 422, "invalid_address")
    refused(
        await human.post(HUMAN_SEND, json={"to": "builder@", "cc": ["alice@x"]}),
        422,
        "invalid_address",
    )
    # The empty path, with or without a session part, is fine.
    to_alice = await human_send(human, "alice@")
    to_alice_new = await human_send(human, f"alice++new@{D}")
    assert to_alice["session_id"] != to_alice_new["session_id"]
    assert [m["mail_id"] for m in await inbox(builder)][len(forms) :] == []


async def test_default_conversation_per_sender_and_workspace(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent(
        "builder", [("ModelRouter", "/home/u/ModelRouter"), ("Gateway", "/srv/gateway")]
    )

    first = await human_send(jianf, "builder@ModelRouter", subject="first")
    second = await human_send(jianf, "builder@ModelRouter", subject="second")
    assert second["session_id"] == first["session_id"]

    # The pair is symmetric: the agent writing to jianf@ (no reply_to) lands there too.
    reply = await agent_send(builder, "jianf@", subject="answer")
    assert reply["session_id"] == first["session_id"]
    [answer] = [m for m in await inbox(jianf, human=True) if m["mail_id"] == reply["mail_id"]]
    # The conversation was named from its first subject, and replies carry that alias.
    assert answer["from"] == "builder@ModelRouter.first"
    assert answer["to"] == "jianf@.first"
    assert answer["parent_mail_id"] is None

    other_workspace = await human_send(jianf, "builder@Gateway")
    other_human = await human_send(alice, "builder@ModelRouter")
    ids = {first["session_id"], other_workspace["session_id"], other_human["session_id"]}
    assert len(ids) == 3

    # Each is stable: the same pair finds the same conversation again.
    assert (await human_send(alice, "builder@"))["session_id"] == other_human["session_id"]
    assert (await human_send(jianf, "builder@Gateway"))["session_id"] == other_workspace[
        "session_id"
    ]
    from_gateway = await agent_send(builder, "jianf@", from_workspace="Gateway")
    assert from_gateway["session_id"] == other_workspace["session_id"]

    detail = ok(await jianf.get(f"/api/v1/me/sessions/{first['session_id']}"))
    assert detail["session"]["participants"] == ["builder", "jianf"]
    assert detail["session"]["mail_count"] == 3
    assert await session_ids(jianf) == {first["session_id"], other_workspace["session_id"]}
    assert await session_ids(alice) == {other_human["session_id"]}


async def test_new_always_opens_a_new_conversation(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")

    default = await human_send(human, "builder@ModelRouter")
    opened = [
        await human_send(human, "builder@ModelRouter.new"),
        await human_send(human, "builder@ModelRouter.new"),
        await human_send(human, "builder@ModelRouter.NEW"),
        await human_send(human, f"builder+ModelRouter+new@{D}"),
    ]
    ids = [default["session_id"], *(o["session_id"] for o in opened)]
    assert len(set(ids)) == len(ids)

    # `.new` with reply_to: a new conversation, and the parent link is kept.
    branched = await human_send(human, "builder@ModelRouter.new", reply_to=default["mail_id"])
    assert branched["session_id"] not in ids
    mail = ok(await human.get(f"/api/v1/me/mail/{branched['mail_id']}"))
    assert mail["parent_mail_id"] == default["mail_id"]
    assert mail["session_id"] == branched["session_id"]

    # An agent's `jianf@.new` opens one too; the default conversation is untouched.
    from_agent = await agent_send(builder, "jianf@.new")
    assert from_agent["session_id"] not in {*ids, branched["session_id"]}
    assert (await human_send(human, "builder@ModelRouter"))["session_id"] == default["session_id"]
    assert (await agent_send(builder, "jianf@"))["session_id"] == default["session_id"]
    assert len(await session_ids(human)) == 7


async def test_aliases_name_existing_conversations(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder", [("ModelRouter", "/home/u/ModelRouter")])

    async with open_stream(builder) as stream:
        task = await human_send(human, "builder@ModelRouter", session_alias="Add-Health-Check")
        assert task["session_alias"] == "add-health-check"  # stored lower-case
        pushed = (await stream.next_of("new_mail")).json
        assert pushed["session_alias"] == "add-health-check"
        assert pushed["from"] == "jianf@.add-health-check"
        assert pushed["from_email"] == f"jianf++add-health-check@{D}"
        assert pushed["to"] == "builder@ModelRouter.add-health-check"

    # A taken alias gets -2, then -3; each is a new conversation.
    again = await human_send(human, "builder@ModelRouter", session_alias="add-health-check")
    third = await human_send(human, "builder@ModelRouter", session_alias="ADD-health-check")
    assert again["session_alias"] == "add-health-check-2"
    assert third["session_alias"] == "add-health-check-3"
    assert len({task["session_id"], again["session_id"], third["session_id"]}) == 3

    # `.alias` delivers into that conversation, in either form and any case.
    into = [
        await human_send(human, "builder@ModelRouter.add-health-check"),
        await human_send(human, f"builder+ModelRouter+Add-Health-Check@{D}"),
        await agent_send(builder, "jianf@.add-health-check"),
        await agent_send(builder, f"jianf++add-health-check@{D}"),
        await human_send(human, "builder@ModelRouter.add-health-check-2"),
    ]
    assert [r["session_id"] for r in into] == [task["session_id"]] * 4 + [again["session_id"]]
    assert all(r["session_alias"] == "add-health-check" for r in into[:4])

    # Addresses in responses carry the session alias; the email form sits beside them.
    mails = {m["mail_id"]: m for m in await inbox(builder)}
    received = mails[task["mail_id"]]
    assert received["session_alias"] == "add-health-check"
    assert received["from"] == "jianf@.add-health-check"
    assert received["from_email"] == f"jianf++add-health-check@{D}"
    assert received["to"] == "builder@ModelRouter.add-health-check"
    assert received["to_email"] == f"builder+ModelRouter+add-health-check@{D}"
    reply = ok(await human.get(f"/api/v1/me/mail/{into[2]['mail_id']}"))
    assert reply["from"] == "builder@ModelRouter.add-health-check"
    assert reply["from_email"] == f"builder+ModelRouter+add-health-check@{D}"
    assert reply["to"] == "jianf@.add-health-check"
    assert reply["to_email"] == f"jianf++add-health-check@{D}"

    # An unknown alias is undeliverable and creates nothing.
    before = await session_ids(human)
    for to in ("builder@ModelRouter.no-such-thing", f"builder+ModelRouter+no-such-thing@{D}"):
        message = refused(
            await human.post(HUMAN_SEND, json={"to": to, "subject": "lost"}), 422, "unknown_alias"
        )
        assert message == "undeliverable: no conversation 'no-such-thing'"
    refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@.no-such-thing"}), 422, "unknown_alias"
    )
    assert await session_ids(human) == before
    assert await session_ids(builder) == before
    assert len(await inbox(builder)) == 6

    # `new` is reserved and an alias has no dots or spaces.
    for bad in ("new", "has space", "with.dot"):
        refused(
            await human.post(HUMAN_SEND, json={"to": "builder@", "session_alias": bad}),
            422,
            "invalid_address",
        )
    assert await session_ids(human) == before


async def test_agent_with_two_workspaces_chooses_the_sending_one(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent(
        "builder", [("ModelRouter", "/home/u/ModelRouter"), ("Gateway", "/srv/gateway")]
    )
    task = await human_send(human, "builder@Gateway", session_alias="gw-task")

    # A reply without from_workspace comes from the workspace the parent was addressed to.
    reply = await agent_send(builder, "jianf@", reply_to=task["mail_id"])
    assert reply["session_id"] == task["session_id"]
    shown = ok(await human.get(f"/api/v1/me/mail/{reply['mail_id']}"))
    assert shown["from"] == "builder@Gateway.gw-task"
    assert shown["from_email"] == f"builder+Gateway+gw-task@{D}"
    assert shown["parent_mail_id"] == task["mail_id"]

    # Without a parent it is the first workspace; from_workspace (name or path) picks one.
    plain = await agent_send(builder, "jianf@")
    by_name = await agent_send(builder, "jianf@", from_workspace="Gateway")
    by_path = await agent_send(builder, "jianf@", from_workspace="/srv/gateway")
    explicit = await agent_send(
        builder, "jianf@", reply_to=task["mail_id"], from_workspace="ModelRouter"
    )
    # (Each default conversation is named from its first subject, "to jianf@".)
    froms = {m["mail_id"]: m["from"] for m in await inbox(human, human=True)}
    assert froms[plain["mail_id"]] == "builder@ModelRouter.to-jianf"
    assert froms[by_name["mail_id"]] == "builder@Gateway.to-jianf-2"
    assert froms[by_path["mail_id"]] == "builder@Gateway.to-jianf-2"
    assert froms[explicit["mail_id"]] == "builder@ModelRouter.gw-task"
    assert explicit["session_id"] == task["session_id"]
    assert plain["session_id"] != by_name["session_id"] == by_path["session_id"]

    message = refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@", "from_workspace": "Elsewhere"}),
        422,
        "unknown_workspace",
    )
    assert "Elsewhere" in message
    # A parent the sender can not see is no parent at all.
    refused(
        await builder.post(AGENT_SEND, json={"to": "jianf@", "reply_to": "no-such-mail"}),
        404,
        "not_found",
    )


async def test_cc_recipients_get_the_mail(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    builder = await api.agent("builder")
    reviewer = await api.agent("reviewer", [("repo", "/srv/repo")])

    async with open_stream(alice) as alice_stream:
        sent = await human_send(
            jianf,
            "builder@ModelRouter",
            cc=["Alice@", f"reviewer+repo@{D}"],
            session_alias="cc-test",
        )
        pushed = (await alice_stream.next_of("new_mail")).json
    assert pushed["mail_id"] == sent["mail_id"]
    assert pushed["to"] == "builder@ModelRouter.cc-test"

    expected_cc = ["alice@.cc-test", "reviewer@repo.cc-test"]
    expected_cc_email = [f"alice++cc-test@{D}", f"reviewer+repo+cc-test@{D}"]
    views = {
        "builder": (await inbox(builder))[0],
        "alice": (await inbox(alice, human=True))[0],
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
    assert await inbox(jianf, human=True) == []

    detail = ok(await alice.get(f"/api/v1/me/sessions/{sent['session_id']}"))
    assert detail["session"]["participants"] == ["alice", "builder", "jianf", "reviewer"]
    # A recipient named twice (as to and cc, or twice in cc) gets one copy, as `to`.
    twice = await human_send(
        jianf, "builder@ModelRouter", cc=["builder@ModelRouter", "alice@", "alice@"]
    )
    copies = [m for m in await inbox(builder) if m["mail_id"] == twice["mail_id"]]
    assert [m["delivery"] for m in copies] == ["to"]
    copies = [m for m in await inbox(alice, human=True) if m["mail_id"] == twice["mail_id"]]
    assert [m["delivery"] for m in copies] == ["cc"]

    # An undeliverable cc refuses the whole mail.
    refused(
        await jianf.post(HUMAN_SEND, json={"to": "builder@", "cc": ["ghost@"]}),
        422,
        "unknown_recipient",
    )
    assert len(await inbox(builder)) == 2

    # The event names the cc'd recipients as the mail views do, with the session alias
    # (like its `from` and `to`), so a reply-all from the event stays in the conversation.
    assert pushed["cc"] == expected_cc
